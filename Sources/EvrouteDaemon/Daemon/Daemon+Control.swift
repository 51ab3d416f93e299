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
        if ControlProtocol.commandName(of: request) == ControlProtocol.Command.reload.rawValue {
            log.notice(.reloadRequested, "control socket: reload requested")
            reload(answer: answer)
        } else {
            answer.send(self.answer(request))
        }
    }

    /// The answer to a request answered at once (every one but `reload`).
    func answer(_ request: JSONValue) -> JSONValue {
        if let answer = layoutControl.answer(request) { return answer }
        let name = ControlProtocol.commandName(of: request)
        switch name.flatMap(ControlProtocol.Command.init(rawValue:)) {
        case .status?:
            if request[ControlProtocol.Status.format]?.stringValue == ControlProtocol.Status.prometheus {
                guard metrics != nil else {
                    return ControlProtocol.failure("the config has no metrics: block (docs/deployment.md, \"A fleet\")")
                }
                return ControlProtocol.success([(ControlProtocol.Status.prometheus, .string(metricsText()))])
            }
            return status()
        case .replay?:
            let started = startReplay()
            return started ? ControlProtocol.success()
                : ControlProtocol.failure(replay == nil ? "not replaying" : "the replay has already started")
        default:
            let what = name.map { "unknown command \"\($0)\"" }
                ?? "expected {\"\(ControlProtocol.command)\": \"\(ControlProtocol.Command.status.rawValue)\" | \"\(ControlProtocol.Command.reload.rawValue)\"}"
            return ControlProtocol.failure(what)
        }
    }

    /// The `status` answer: the daemon, its devices, active touches, displays, plugins and counters.
    func status() -> JSONValue {
        typealias S = ControlProtocol.Status
        let now = MonotonicClock.now()
        let layout = session.layout
        let router = session.router
        let infos = Dictionary(session.activeDevices.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })

        var devices: [JSONValue] = []
        for info in session.activeDevices.sorted(by: { $0.id.rawValue < $1.id.rawValue }) {
            let device = live?.device(info.id), node = node(of: info.id)
            let grabbed = device?.isGrabbed ?? false
            let source = device == nil && node != nil ? "replay" : "live"
            devices.append(.object([
                (S.Device.id, .int(info.id.rawValue)), (S.Device.name, .string(info.name)), (S.Device.rule, .string(info.ruleName)),
                (S.Device.kind, .string(info.kind.rawValue)), (S.Device.display, .string(info.display)), (S.Device.node, .string(node)),
                (S.Device.grabbed, .bool(grabbed)), (S.Device.source, .string(source)),
            ]))
        }

        let touches: [JSONValue] = router.activeTouches.sorted { $0.id < $1.id }.map { t in
            .object([
                (S.Touch.id, .int(t.id)), (S.Touch.device, .string(infos[t.device]?.ruleName)), (S.Touch.deviceID, .int(t.device.rawValue)),
                (S.Touch.region, .string(t.region.map { t.layout.regions[$0].path })), (S.Touch.phase, .string(t.phase.rawValue)),
                (S.Touch.x, .number(t.location.x)), (S.Touch.y, .number(t.location.y)),
                (S.Touch.currentLayout, .bool(t.layout === layout)),
            ])
        }

        let routerState = router.state
        let displays: [JSONValue] = zip(layout.displays.indices, routerState.displays).map { d, state in
            let display = layout.displays[d]
            var members: [(String, JSONValue)] = [
                (S.Display.name, .string(display.name)), (S.Display.width, .number(display.size.width)), (S.Display.height, .number(display.size.height)),
                (S.Display.activeScreen, .string(state.stack.last)),
                (S.Display.presentationStack, .array(state.stack.map { .string($0) })),
                (S.Display.firstResponder, .string(state.firstResponder)),
            ]
            if let activity = router.activity(ofDisplay: d) {
                members.append((S.Display.activity, .string(activity.idle ? "idle" : "active")))
                members.append((S.Display.activitySince, activity.since.map { .number($0.seconds) } ?? .null))
            }
            return .object(members)
        }

        let plugins: [JSONValue] = (self.plugins?.statistics ?? []).map { s in
            .object([
                (S.Plugin.name, .string(s.name)), (S.Plugin.type, .string(s.type.rawValue)), (S.Plugin.delivered, .int(s.delivered)),
                (S.Plugin.handled, .int(s.handled)), (S.Plugin.declined, .int(s.declined)), (S.Plugin.timedOut, .int(s.timedOut)),
                (S.Plugin.dropped, .int(s.dropped)), (S.Plugin.failures, .int(s.failures)), (S.Plugin.restarts, .int(s.restarts)),
                (S.Plugin.lastError, .string(s.lastError)),
                (S.Plugin.details, .object(s.details.map { ($0.name, .int($0.value)) })),
            ])
        }

        let c = observer.counts, r = session.router.routeCounts
        let events: JSONValue = .object([
            (S.Events.input, .int(inputEvents)), (S.Events.touch, .int(r.touchEvents)), (S.Events.key, .int(r.keyEvents)),
            (S.Events.text, .int(r.texts)), (S.Events.motion, .int(r.motions)), (S.Events.action, .int(r.actions)), (S.Events.gesture, .int(r.gestures)), (S.Events.handled, .int(r.handled)),
            (S.Events.unhandled, .int(r.unhandled)), (S.Events.devicesAdded, .int(c.devicesAdded)),
            (S.Events.devicesRemoved, .int(c.devicesRemoved)), (S.Events.touchesCancelledByReload, .int(c.touchesCancelledByReload)),
            (S.Events.regionChanges, .int(c.regionChanges)), (S.Events.touchesCancelledByChanges, .int(c.touchesCancelledByChanges)),
            (S.Events.contactsDropped, .int(session.contactsDropped)),
        ])
        let summary: JSONValue = .object([
            (S.Layout.displays, .int(layout.displays.count)), (S.Layout.screens, .int(layout.screens.count)),
            (S.Layout.regions, .int(layout.regions.count)), (S.Layout.handlers, .int(layout.handlers.count)),
            (S.Layout.deviceRules, .array(layout.deviceRules.map { .string($0.name) })),
        ])
        let uptime = Double((now - startTime).microseconds / 1000) / 1000
        let startup = readyTime.map { Double(($0 - startTime).microseconds / 100) / 10_000 } ?? 0
        let input = replay == nil ? "live" : (replay!.isFinished ? "replay finished" : replayStarted ? "replaying" : "replay paused")
        var members: [(String, JSONValue)] = [(ControlProtocol.ok, .bool(true)), (S.version, .string(evrouteVersion)), (S.pid, .int(Int(getpid())))]
        members.append((S.uptime, .number(uptime)))
        members.append((S.startupSeconds, .number(startup)))
        members.append((S.config, .string(configSource)))
        members.append((S.layout, summary))
        members.append((S.reloads, .int(reloads)))
        members.append((S.reloading, .bool(isReloading)))
        members.append((S.failedReloads, .int(failedReloads)))
        members.append((S.lastReloadErrors, .array(lastReloadErrors.map { .string($0) })))
        members.append((S.input, .string(input)))
        members.append((S.devices, .array(devices)))
        members.append((S.touches, .array(touches)))
        members.append((S.displays, .array(displays)))
        members.append((S.plugins, .array(plugins)))
        members.append((S.events, events))
        members.append((S.filtered, .array(session.router.filteredCounts.sorted.map { entry in
            .object([(S.Filtered.device, .string(entry.key.device)), (S.Filtered.filter, .string(entry.key.filter)),
                     (S.Filtered.count, .int(entry.count))])
        })))
        members.append((ControlProtocol.State.changedRegions, .array(RuntimeControl.changedRegions(routerState.changedRegions))))
        members.append((S.metrics, metricsStatus()))
        members.append((S.loop, .object([(S.Loop.wakeups, .int(loop.wakeups)), (S.Loop.controlRequests, .int(control?.requests ?? 0))])))
        members.append((S.rssKilobytes, Daemon.residentKilobytes().map { .int($0) } ?? .null))
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
