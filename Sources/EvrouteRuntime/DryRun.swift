import EvrouteCore
import EvrouteInput
import EvrouteJSON
import EvrouteSystem
#if canImport(Glibc)
import Glibc
#endif

/// `evroute --dry-run` and `evroute monitor`: routes recordings or live devices and reports
/// every decision — as the trace (``TraceWriter``) or as the monitor's lines (``MonitorWriter``) —
/// running no hosted handler. A replay ends with a summary line (``RouteSummary``).
public final class DryRun {
    public let layout: Layout
    /// Where decisions go: the trace or the monitor.
    public let report: RouteReport
    /// The trace, when the report is one (`--dry-run`).
    public var writer: TraceWriter? { report as? TraceWriter }
    public let session: RoutingSession
    /// Counts what is routed for the summary line; the router's observer (it passes every
    /// record on to `report`).
    public let summary: RouteSummary

    /// Where warnings about the input go (standard error by default); the trace never has them.
    /// The recording each replayed device comes from (a description may come from a `.desc`).
    private var recordingPaths: [DeviceID: String] = [:]

    public var warn: (String) -> Void = { line in try? SystemCall.writeAll(.standardError, line + "\n") }

    /// A dry-run printing the trace in `format` to `sink` (and, in JSON, its summary line to `errors`).
    public convenience init(layout: Layout, format: TraceFormat, sink: OutputSink = FileDescriptorSink(fd: 1),
                            errors: OutputSink = FileDescriptorSink(fd: 2)) {
        self.init(layout: layout, report: TraceWriter(format: format, sink: sink, errors: errors))
    }

    /// A dry-run reporting to `report` (the monitor passes a ``MonitorWriter``).
    public init(layout: Layout, report: RouteReport) {
        self.layout = layout
        self.report = report
        session = RoutingSession(layout: layout)
        summary = RouteSummary(next: report)
        session.router.observer = summary
        session.onDeviceIgnored = { [unowned self] id, description, kind, reason, time in
            report.deviceIgnored(node: recordingPaths[id] ?? description.path, name: description.name, kind: kind,
                                 reason: reason, time: time)
        }
        session.onDeviceWarning = { info, warning, time in
            report.deviceWarning(name: info.name, message: "\(warning)", time: time)
        }
        session.onWarning = { [unowned self] message, _ in warn("evroute: warning: " + message) }
    }

    /// Names the replayed devices' recordings to the report and to ignored-device lines.
    private func attach(_ driver: ReplayDriver) {
        for device in driver.devices { recordingPaths[device.id] = device.path }
        report.attach(driver)
    }

    /// Prints the summary line of a replay that routed `inputEvents` events.
    func finishReplay(inputEvents: Int) {
        report.summary(summary.line(inputEvents: inputEvents))
        report.flush()
    }

    /// How a dry-run serves a control socket (docs/ui-control.md: a UI developed against a replay or
    /// live devices drives the layout while the trace shows every decision).
    public struct ControlOptions: Sendable {
        /// The socket to serve (`--control-socket PATH`).
        public var socketPath: String
        /// Hold the replay until `{"command":"replay"}` (`evroute ctl replay`).
        public var replayPaused = false
        /// Exit once the replay is routed; otherwise serve until SIGINT / SIGTERM.
        public var exitAfterReplay = false

        public init(socketPath: String, replayPaused: Bool = false, exitAfterReplay: Bool = false) {
            self.socketPath = socketPath
            self.replayPaused = replayPaused
            self.exitAfterReplay = exitAfterReplay
        }
    }

    /// Loads each recording (its description from itself, a sibling `.desc`, or `descriptionPath`)
    /// and routes them merged by timestamp. Errors name the file and line. Devices are numbered
    /// 1, 2, … in the order given. With `control`, the replay runs on the event loop and the
    /// control socket is served meanwhile (and after, until a stop signal, unless
    /// `exitAfterReplay`).
    public func runReplays(paths: [String], descriptionPath: String?, control: ControlOptions? = nil) throws {
        var recordings: [EvemuRecording] = []
        for path in paths {
            recordings.append(try EvemuRecording.load(path: path, descriptionPath: descriptionPath))
        }
        // Odd but replayable recordings (timestamps going backwards) are said on stderr, so the
        // trace on stdout stays the docs/events.md contract.
        for warning in recordings.flatMap(\.warnings) { warn(warning.description) }
        let source = ReplaySource(recordings: recordings)
        let driver = ReplayDriver(source: source)
        attach(driver)
        guard let control else {
            driver.runToEnd(into: session)
            return finishReplay(inputEvents: driver.eventsFed)
        }
        let loop = try EventLoop()
        var replayStarted = false
        func startReplay() -> Bool {
            guard !replayStarted else { return false }
            replayStarted = true
            driver.start(in: loop, into: session, pace: .chunked(256)) { [self] in
                finishReplay(inputEvents: driver.eventsFed)
                if control.exitAfterReplay { loop.stop() }
            }
            return true
        }
        let server = try serve(control, loop: loop, now: { [session] in session.now }) { request in
            guard ControlProtocol.commandName(of: request) == ControlProtocol.Command.replay.rawValue else { return nil }
            return startReplay() ? ControlProtocol.success() : ControlProtocol.failure("the replay has already started")
        }
        if !control.replayPaused { _ = startReplay() }
        loop.run()
        server.shutdown()
        report.flush()
    }

    /// Routes recordings to their end (see ``ReplayDriver``), then prints the summary line.
    public func run(_ source: ReplaySource) {
        let driver = ReplayDriver(source: source)
        attach(driver)
        driver.runToEnd(into: session)
        finishReplay(inputEvents: driver.eventsFed)
    }

    /// Routes live devices until SIGINT or SIGTERM, printing as it goes: the same event loop,
    /// live input source and gesture timer as the daemon, so a long press fires on time while
    /// the finger rests and nothing else arrives. Output is written once per loop wakeup. With
    /// `control`, the control socket is served too.
    public func runLive(control: ControlOptions? = nil) throws {
        let loop = try EventLoop()
        // Before anything is printed: whoever reads the first line may stop us at once.
        if control == nil { try loop.handleSignals([SIGINT, SIGTERM]) { _ in loop.stop() } }
        let source = try LiveInputSource(rules: layout.deviceRules)
        source.onError = { [unowned self] error in warn("evroute: \(error)") }
        let timer = SessionTimer(loop: loop, session: session)
        let server = try control.map { options in
            try serve(options, loop: loop, now: { [session] in
                session.advanceTime(to: MonotonicClock.now())
                return session.now
            }) { _ in nil }
        }
        let report = self.report
        report.attach(source)
        if report.reportsIgnoredLiveDevices {
            source.onIgnored = { node, description, reason in
                let kind = description.map { DeviceKind.of($0) }
                report.deviceIgnored(node: node, name: description?.name ?? "?", kind: kind, reason: reason,
                                     time: MonotonicClock.now())
            }
            source.onIgnoredRemoved = { node in report.deviceGone(node: node, time: MonotonicClock.now()) }
        }
        loop.afterWakeup = { timer.rearm() }
        // The trace leaves per the one flush policy (``OutputFlush``): one write(2) for a burst
        // of frames.
        OutputFlush.install(on: loop, pending: { report.hasPendingOutput }, flush: { report.flush() },
                            liveSession: session)
        session.onDeviceRemoved = { [weak source] _, time in
            if source?.devices.isEmpty ?? false { report.noDevice(time: time) }
        }
        source.sink = session
        try source.start(in: loop)
        if source.devices.isEmpty { report.noDevice(time: MonotonicClock.now()) }
        timer.rearm()
        report.flush()
        loop.run()
        server?.shutdown()
        source.stop()
        report.flush()
    }

    /// Serves the control socket on `loop`: the run-time layout commands (``RuntimeControl``),
    /// then `own` for the rest; SIGINT and SIGTERM stop the loop; the trace is written once per
    /// wakeup.
    private func serve(_ options: ControlOptions, loop: EventLoop, now: @escaping () -> Timestamp,
                       own: @escaping (JSONValue) -> JSONValue?) throws -> ControlServer {
        try loop.handleSignals([SIGINT, SIGTERM]) { _ in loop.stop() }
        let report = self.report
        if loop.afterWakeup == nil { loop.afterWakeup = { report.flush() } }
        let control = RuntimeControl(session: session, now: now)
        let log = Log(threshold: .warning)
        return try ControlServer(path: options.socketPath, loop: loop, log: log) { request in
            control.answer(request) ?? own(request)
                ?? ControlProtocol.failure("a dry-run serves the layout commands and `replay`; not \"\(ControlProtocol.commandName(of: request) ?? "?")\"")
        }
    }
}
