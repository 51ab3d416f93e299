#if canImport(Glibc)
import Glibc
#endif
import EvrouteCore
import EvrouteInput
import EvrouteJSON
import EvrouteRuntime
import EvrouteSystem

extension Daemon {
    /// Answers one control request: `{"command":"status"}`, `{"command":"reload"}`, and
    /// `{"command":"replay"}` (starts a replay held by `--replay-paused`), and the layout commands.
    /// Every answer carries `"ok"`; a failure also `"error"` (and `"errors"` for a reload).
    /// A reload is answered when its compile ends (``reload(answer:)``); the rest at once.
    func answer(_ request: JSONValue, _ answer: ControlServer.PendingAnswer) {
        if request["command"]?.stringValue == "reload" {
            log.notice("control socket: reload requested")
            reload(answer: answer)
        } else {
            answer.send(self.answer(request))
        }
    }

    /// The answer to a request answered at once (every one but `reload`).
    func answer(_ request: JSONValue) -> JSONValue {
        if let answer = layoutControl.answer(request) { return answer }
        switch request["command"]?.stringValue {
        case "status":
            return status()
        case "replay":
            let started = startReplay()
            return started ? .object([("ok", .bool(true))])
                : .object([("ok", .bool(false)), ("error", .string(replay == nil ? "not replaying" : "the replay has already started"))])
        case let other:
            let what = other.map { "unknown command \"\($0)\"" } ?? "expected {\"command\": \"status\" | \"reload\"}"
            return .object([("ok", .bool(false)), ("error", .string(what))])
        }
    }

    /// The `status` answer: the daemon, its devices, active touches, displays, plugins and counters.
    func status() -> JSONValue {
        let now = MonotonicClock.now()
        let layout = session.layout
        let router = session.router
        let infos = Dictionary(session.activeDevices.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })

        var devices: [JSONValue] = []
        for info in session.activeDevices.sorted(by: { $0.id.rawValue < $1.id.rawValue }) {
            var node: String?
            var grabbed = false
            var source = "live"
            if let device = live?.device(info.id) {
                node = device.path
                grabbed = device.isGrabbed
            } else if let replayed = replay?.devices.first(where: { $0.id == info.id }) {
                node = replayed.path
                source = "replay"
            }
            devices.append(.object([
                ("id", .int(info.id.rawValue)), ("name", .string(info.name)), ("rule", .string(info.ruleName)),
                ("kind", .string(info.kind.rawValue)), ("display", .string(info.display)), ("node", .string(node)),
                ("grabbed", .bool(grabbed)), ("source", .string(source)),
            ]))
        }

        let touches: [JSONValue] = router.activeTouches.sorted { $0.id < $1.id }.map { t in
            .object([
                ("id", .int(t.id)), ("device", .string(infos[t.device]?.ruleName)), ("device_id", .int(t.device.rawValue)),
                ("region", .string(t.region.map { t.layout.regions[$0].path })), ("phase", .string(t.phase.rawValue)),
                ("x", .number(t.location.x)), ("y", .number(t.location.y)),
                ("current_layout", .bool(t.layout === layout)),
            ])
        }

        let routerState = router.state
        let displays: [JSONValue] = zip(layout.displays, routerState.displays).map { display, state in
            .object([
                ("name", .string(display.name)), ("width", .number(display.size.width)), ("height", .number(display.size.height)),
                ("active_screen", .string(state.stack.last)),
                ("presentation_stack", .array(state.stack.map { .string($0) })),
                ("first_responder", .string(state.firstResponder)),
            ])
        }

        let plugins: [JSONValue] = (self.plugins?.statistics ?? []).map { s in
            .object([
                ("name", .string(s.name)), ("type", .string(s.type.rawValue)), ("delivered", .int(s.delivered)),
                ("handled", .int(s.handled)), ("declined", .int(s.declined)), ("timed_out", .int(s.timedOut)),
                ("dropped", .int(s.dropped)), ("failures", .int(s.failures)), ("restarts", .int(s.restarts)),
                ("last_error", .string(s.lastError)),
                ("details", .object(s.details.map { ($0.name, .int($0.value)) })),
            ])
        }

        let c = observer.counts, r = session.router.routeCounts
        let events: JSONValue = .object([
            ("input", .int(inputEvents)), ("touch", .int(r.touchEvents)), ("key", .int(r.keyEvents)),
            ("text", .int(r.texts)), ("motion", .int(r.motions)), ("action", .int(r.actions)), ("gesture", .int(r.gestures)), ("handled", .int(r.handled)),
            ("unhandled", .int(r.unhandled)), ("devices_added", .int(c.devicesAdded)),
            ("devices_removed", .int(c.devicesRemoved)), ("touches_cancelled_by_reload", .int(c.touchesCancelledByReload)),
            ("region_changes", .int(c.regionChanges)), ("touches_cancelled_by_changes", .int(c.touchesCancelledByChanges)),
            ("contacts_dropped", .int(session.contactsDropped)),
        ])
        let summary: JSONValue = .object([
            ("displays", .int(layout.displays.count)), ("screens", .int(layout.screens.count)),
            ("regions", .int(layout.regions.count)), ("handlers", .int(layout.handlers.count)),
            ("device_rules", .array(layout.deviceRules.map { .string($0.name) })),
        ])
        let uptime = Double((now - startTime).microseconds / 1000) / 1000
        let startup = readyTime.map { Double(($0 - startTime).microseconds / 100) / 10_000 } ?? 0
        let input = replay == nil ? "live" : (replay!.isFinished ? "replay finished" : replayStarted ? "replaying" : "replay paused")
        var members: [(String, JSONValue)] = [("ok", .bool(true)), ("version", .string(evrouteVersion)), ("pid", .int(Int(getpid())))]
        members.append(("uptime", .number(uptime)))
        members.append(("startup_seconds", .number(startup)))
        members.append(("config", .string(configSource)))
        members.append(("layout", summary))
        members.append(("reloads", .int(reloads)))
        members.append(("reloading", .bool(isReloading)))
        members.append(("failed_reloads", .int(failedReloads)))
        members.append(("last_reload_errors", .array(lastReloadErrors.map { .string($0) })))
        members.append(("input", .string(input)))
        members.append(("devices", .array(devices)))
        members.append(("touches", .array(touches)))
        members.append(("displays", .array(displays)))
        members.append(("plugins", .array(plugins)))
        members.append(("events", events))
        members.append(("changed_regions", .array(RuntimeControl.changedRegions(routerState.changedRegions))))
        members.append(("loop", .object([("wakeups", .int(loop.wakeups)), ("control_requests", .int(control?.requests ?? 0))])))
        members.append(("rss_kb", Daemon.residentKilobytes().map { .int($0) } ?? .null))
        return .object(members)
    }

    /// VmRSS of this process, from `/proc/self/status`.
    static func residentKilobytes() -> Int? {
        guard let bytes = try? SystemCall.readFile("/proc/self/status", limit: 65536) else { return nil }
        let text = String(decoding: bytes, as: UTF8.self)
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return nil }
        return line.split(separator: " ").dropFirst().first.flatMap { Int($0) }
    }
}
