import EvrouteCommandLine
import EvrouteDaemon
import EvrouteRuntime
import EvrouteJSON

extension EvrouteCLI {
    /// `evroute status`: ask the running daemon what it is doing (devices, touches, screens, plugins).
    static let status = Command(
        "status", abstract: "Show what the running daemon is doing: devices, active touches, screens, plugins, counters.",
        options: [
            controlSocketOption,
            .value("format", valueName: "format",
                   help: "Output: text (for people), json (the daemon's answer, one line) or prometheus (the metrics page, as the metrics: text file has it).",
                   choices: ["text", "json", "prometheus"], default: "text"),
        ],
        run: { p in
            if p.value("format") == ControlProtocol.Status.prometheus {
                let answer = try request(.status, [(ControlProtocol.Status.format, .string(ControlProtocol.Status.prometheus))], p, what: "evroute status")
                return writeOut(answer[ControlProtocol.Status.prometheus]?.stringValue ?? "")
            }
            let answer = try request(.status, [], p, what: "evroute status")
            writeOut(p.value("format") == "json" ? answer.serialized + "\n" : StatusText.render(answer))
        })

    /// `evroute reload`: make the running daemon reload its config, and say whether it took.
    /// The daemon answers when its compile of the config ends (off its loop; a large config takes
    /// a second or so, and a reload already compiling is finished first), so this waits longer
    /// for the answer than the other commands.
    static let reload = Command(
        "reload", abstract: "Make the running daemon reload its config; print the errors (file:line:col) and exit 1 when it has any.",
        options: [controlSocketOption],
        run: { p in
            let answer = try request(.reload, [], p, what: "evroute reload", timeoutSeconds: reloadAnswerSeconds)
            writeOut("reloaded \(answer[ControlProtocol.Status.config]?.stringValue ?? "the config")\n")
        })
}

extension EvrouteCLI {
    /// How long `evroute reload` waits for the daemon's answer (below systemd's default 90 s for
    /// the unit's `ExecReload=`).
    static let reloadAnswerSeconds = 60
}

/// The status answer (an `"ok":true` one) as text for people.
enum StatusText {
    static func render(_ s: JSONValue) -> String {
        typealias S = ControlProtocol.Status
        var out = ""
        func str(_ v: JSONValue?) -> String {
            switch v {
            case .string(let x)?: x
            case .number?: v!.serialized
            case .bool(let b)?: b ? "yes" : "no"
            default: "-"
            }
        }
        out += "evroute \(str(s[S.version])) daemon, pid \(str(s[S.pid])), up \(str(s[S.uptime])) s (ready after \(str(s[S.startupSeconds])) s)\n"
        out += "config: \(str(s[S.config])) (\(str(s[S.layout]?[S.Layout.displays])) display(s), \(str(s[S.layout]?[S.Layout.screens])) screen(s), "
        out += "\(str(s[S.layout]?[S.Layout.regions])) region(s), \(str(s[S.layout]?[S.Layout.handlers])) handler(s)); "
        out += "reloads \(str(s[S.reloads])), failed \(str(s[S.failedReloads]))"
        out += s[S.reloading]?.boolValue == true ? "; reloading now (the config is being compiled)\n" : "\n"
        for e in s[S.lastReloadErrors]?.arrayValue ?? [] { out += "  last reload error: \(str(e))\n" }
        out += "input: \(str(s[S.input]))\n"

        let devices = s[S.devices]?.arrayValue ?? []
        out += "\ndevices (\(devices.count)):\n"
        if devices.isEmpty { out += "  none (waiting for hotplug)\n" }
        for d in devices {
            out += "  #\(str(d[S.Device.id])) \"\(str(d[S.Device.name]))\"  rule \(str(d[S.Device.rule])), \(str(d[S.Device.kind])), display \(str(d[S.Device.display])), "
            out += "\(str(d[S.Device.node]))\(d[S.Device.grabbed]?.boolValue == true ? ", grabbed" : "")\n"
        }

        let touches = s[S.touches]?.arrayValue ?? []
        out += "\nactive touches (\(touches.count)):\n"
        for t in touches {
            out += "  touch \(str(t[S.Touch.id])) on \(str(t[S.Touch.device])): \(str(t[S.Touch.phase])) at (\(str(t[S.Touch.x])), \(str(t[S.Touch.y]))), region \(str(t[S.Touch.region]))\n"
        }

        out += "\ndisplays:\n"
        for d in s[S.displays]?.arrayValue ?? [] {
            let stack = (d[S.Display.presentationStack]?.arrayValue ?? []).map { str($0) }.joined(separator: " < ")
            out += "  \(str(d[S.Display.name])) \(str(d[S.Display.width]))×\(str(d[S.Display.height])): screen \(str(d[S.Display.activeScreen])) (stack \(stack.isEmpty ? "-" : stack)), first responder \(str(d[S.Display.firstResponder]))"
            if let activity = d[S.Display.activity]?.stringValue {
                let since = d[S.Display.activitySince]
                out += "; \(activity)" + (since == nil || since == .null ? "" : " since t=\(str(since))")
            }
            out += "\n"
        }

        let plugins = s[S.plugins]?.arrayValue ?? []
        out += "\nplugins (\(plugins.count)):\n"
        for p in plugins {
            out += "  \(str(p[S.Plugin.name])) (\(str(p[S.Plugin.type]))): delivered \(str(p[S.Plugin.delivered])), handled \(str(p[S.Plugin.handled])), "
            out += "declined \(str(p[S.Plugin.declined])), timed out \(str(p[S.Plugin.timedOut])), dropped \(str(p[S.Plugin.dropped])), "
            out += "failures \(str(p[S.Plugin.failures])), restarts \(str(p[S.Plugin.restarts]))"
            if case .object(let details)? = p[S.Plugin.details], !details.isEmpty {
                out += ", " + details.map { "\($0.0) \(str($0.1))" }.joined(separator: ", ")
            }
            if let e = p[S.Plugin.lastError]?.stringValue { out += "; last error: \(e)" }
            out += "\n"
        }

        let e = s[S.events]
        out += "\nevents: \(str(e?[S.Events.input])) input, \(str(e?[S.Events.touch])) touch, \(str(e?[S.Events.key])) key, \(str(e?[S.Events.action])) action, "
        out += "\(str(e?[S.Events.gesture])) gesture; handled \(str(e?[S.Events.handled])), unhandled \(str(e?[S.Events.unhandled])); "
        out += "devices added \(str(e?[S.Events.devicesAdded])), removed \(str(e?[S.Events.devicesRemoved]))\n"
        if let filtered = s[S.filtered]?.arrayValue, !filtered.isEmpty {
            out += "filtered: " + filtered.map { "\(str($0[S.Filtered.device])) \(str($0[S.Filtered.filter])) \(str($0[S.Filtered.count]))" }
                .joined(separator: ", ") + "\n"
        }
        if let m = s[S.metrics], m != .null {
            typealias M = S.Metrics
            if m[M.textfile]?.stringValue == nil {
                out += "metrics: no text file (status --format prometheus only)\n"
            } else {
                out += "metrics: \(str(m[M.textfile])) every \(str(m[M.intervalSeconds])) s; last write \(str(m[M.lastWrite]))"
                if let e = m[M.lastError]?.stringValue { out += ": \(e)" }
                out += "; \(str(m[M.failures])) failed write(s)\n"
            }
        }
        out += "loop: \(str(s[S.loop]?[S.Loop.wakeups])) wakeups, \(str(s[S.loop]?[S.Loop.controlRequests])) control requests; RSS \(str(s[S.rssKilobytes])) kB\n"
        return out
    }
}
