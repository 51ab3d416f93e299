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
            .value("format", valueName: "format", help: "Output: text (for people) or json (the daemon's answer, one line).",
                   choices: ["text", "json"], default: "text"),
        ],
        run: { p in
            let answer = try request("status", [], p, what: "evroute status")
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
            let answer = try request("reload", [], p, what: "evroute reload", timeoutSeconds: reloadAnswerSeconds)
            writeOut("reloaded \(answer["config"]?.stringValue ?? "the config")\n")
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
        var out = ""
        func str(_ v: JSONValue?) -> String {
            switch v {
            case .string(let x)?: x
            case .number?: v!.serialized
            case .bool(let b)?: b ? "yes" : "no"
            default: "-"
            }
        }
        out += "evroute \(str(s["version"])) daemon, pid \(str(s["pid"])), up \(str(s["uptime"])) s (ready after \(str(s["startup_seconds"])) s)\n"
        out += "config: \(str(s["config"])) (\(str(s["layout"]?["displays"])) display(s), \(str(s["layout"]?["screens"])) screen(s), "
        out += "\(str(s["layout"]?["regions"])) region(s), \(str(s["layout"]?["handlers"])) handler(s)); "
        out += "reloads \(str(s["reloads"])), failed \(str(s["failed_reloads"]))"
        out += s["reloading"]?.boolValue == true ? "; reloading now (the config is being compiled)\n" : "\n"
        for e in s["last_reload_errors"]?.arrayValue ?? [] { out += "  last reload error: \(str(e))\n" }
        out += "input: \(str(s["input"]))\n"

        let devices = s["devices"]?.arrayValue ?? []
        out += "\ndevices (\(devices.count)):\n"
        if devices.isEmpty { out += "  none (waiting for hotplug)\n" }
        for d in devices {
            out += "  #\(str(d["id"])) \"\(str(d["name"]))\"  rule \(str(d["rule"])), \(str(d["kind"])), display \(str(d["display"])), "
            out += "\(str(d["node"]))\(d["grabbed"]?.boolValue == true ? ", grabbed" : "")\n"
        }

        let touches = s["touches"]?.arrayValue ?? []
        out += "\nactive touches (\(touches.count)):\n"
        for t in touches {
            out += "  touch \(str(t["id"])) on \(str(t["device"])): \(str(t["phase"])) at (\(str(t["x"])), \(str(t["y"]))), region \(str(t["region"]))\n"
        }

        out += "\ndisplays:\n"
        for d in s["displays"]?.arrayValue ?? [] {
            let stack = (d["presentation_stack"]?.arrayValue ?? []).map { str($0) }.joined(separator: " < ")
            out += "  \(str(d["name"])) \(str(d["width"]))×\(str(d["height"])): screen \(str(d["active_screen"])) (stack \(stack.isEmpty ? "-" : stack)), first responder \(str(d["first_responder"]))\n"
        }

        let plugins = s["plugins"]?.arrayValue ?? []
        out += "\nplugins (\(plugins.count)):\n"
        for p in plugins {
            out += "  \(str(p["name"])) (\(str(p["type"]))): delivered \(str(p["delivered"])), handled \(str(p["handled"])), "
            out += "declined \(str(p["declined"])), timed out \(str(p["timed_out"])), dropped \(str(p["dropped"])), "
            out += "failures \(str(p["failures"])), restarts \(str(p["restarts"]))"
            if case .object(let details)? = p["details"], !details.isEmpty {
                out += ", " + details.map { "\($0.0) \(str($0.1))" }.joined(separator: ", ")
            }
            if let e = p["last_error"]?.stringValue { out += "; last error: \(e)" }
            out += "\n"
        }

        let e = s["events"]
        out += "\nevents: \(str(e?["input"])) input, \(str(e?["touch"])) touch, \(str(e?["key"])) key, \(str(e?["action"])) action, "
        out += "\(str(e?["gesture"])) gesture; handled \(str(e?["handled"])), unhandled \(str(e?["unhandled"])); "
        out += "devices added \(str(e?["devices_added"])), removed \(str(e?["devices_removed"]))\n"
        out += "loop: \(str(s["loop"]?["wakeups"])) wakeups, \(str(s["loop"]?["control_requests"])) control requests; RSS \(str(s["rss_kb"])) kB\n"
        return out
    }
}
