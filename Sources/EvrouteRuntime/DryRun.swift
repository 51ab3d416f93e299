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
    /// Counts what is routed for the summary line: one of the run's observers, before `report`.
    public let summary: RouteSummary
    /// The router's observer: the caller's observers, then ``summary``, then ``report``.
    public let observers: RouteFanOut

    /// Where warnings about the input go (standard error by default); the trace never has them.
    /// The recording each replayed device comes from (a description may come from a `.desc`).
    private var recordingPaths: [DeviceID: String] = [:]

    public var warn: (String) -> Void = { line in try? SystemCall.writeAll(.standardError, line + "\n") }

    /// A dry-run printing the trace in `format` to `sink` (and, in JSON, its summary line to `errors`).
    /// `observers` see every record before the summary and the trace (`--heatmap`'s ``TouchTrails``).
    public convenience init(layout: Layout, format: TraceFormat, sink: OutputSink = FileDescriptorSink(fd: 1),
                            errors: OutputSink = FileDescriptorSink(fd: 2), observers: [RouteObserver] = [], verbose: Bool = false) {
        self.init(layout: layout, report: TraceWriter(format: format, sink: sink, errors: errors, verbose: verbose), observers: observers)
    }

    /// A dry-run reporting to `report` (the monitor passes a ``MonitorWriter``); `observers` see
    /// every record before the summary and `report`.
    public init(layout: Layout, report: RouteReport, observers: [RouteObserver] = []) {
        self.layout = layout
        self.report = report
        session = RoutingSession(layout: layout)
        summary = RouteSummary()
        self.observers = RouteFanOut(observers + [summary, report])
        session.router.observer = self.observers
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
        // Recordings made on different clocks each replay on their own, aligned at their starts;
        // the trace's header says so.
        report.clocksAligned(EvemuRecording.alignClocks(&recordings))
        let source = ReplaySource(recordings: recordings)
        let driver = ReplayDriver(source: source)
        attach(driver)
        guard let control else {
            driver.runToEnd(into: session)
            return finishReplay(inputEvents: driver.eventsFed)
        }
        let pipeline = try Pipeline(session: session)
        try pipeline.handleSignals()
        var replayStarted = false
        func startReplay() -> Bool {
            guard !replayStarted else { return false }
            replayStarted = true
            driver.start(in: pipeline.loop, into: session, pace: .chunked(256)) { [self] in
                finishReplay(inputEvents: driver.eventsFed)
                if control.exitAfterReplay { pipeline.stop() }
            }
            return true
        }
        let server = serve(control, now: { [session] in session.now }) { request in
            guard ControlProtocol.commandName(of: request) == ControlProtocol.Command.replay.rawValue else { return nil }
            return startReplay() ? ControlProtocol.success() : ControlProtocol.failure("the replay has already started")
        }
        let input = PipelineStep("replay", start: { _ in
            if !control.replayPaused { _ = startReplay() }
        })
        try pipeline.start([server, input])
        let report = self.report
        pipeline.run(afterWakeup: { report.flush() })
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
        let pipeline = try Pipeline(session: session)
        // Before anything is printed: whoever reads the first line may stop us at once.
        try pipeline.handleSignals()
        let source = try LiveInputSource(rules: layout.deviceRules)
        source.onError = { [unowned self] error in warn("evroute: \(error)") }
        let server = control.map { options in
            serve(options, now: { [session] in
                session.advanceTime(to: MonotonicClock.now())
                return session.now
            }) { _ in nil }
        }
        let input = liveInput(source)
        try pipeline.start((server.map { [$0] } ?? []) + [input])
        let report = self.report
        report.flush()
        // The trace leaves per the one flush policy (``OutputFlush``): one write(2) for a burst
        // of frames.
        pipeline.run(pending: { report.hasPendingOutput }, flush: { report.flush() }, liveInput: true)
        report.flush()
    }

    /// The live input (a component): the devices, their lines in the report, the session timer.
    private func liveInput(_ source: LiveInputSource) -> PipelineComponent {
        PipelineStep("live input", start: { [unowned self] pipeline in try startLive(source, on: pipeline) },
                     stop: { source.stop() })
    }

    private func startLive(_ source: LiveInputSource, on pipeline: Pipeline) throws {
        let timer = pipeline.useSessionTimer()
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
        session.onDeviceRemoved = { [weak source] _, time in
            if source?.devices.isEmpty ?? false { report.noDevice(time: time) }
        }
        source.sink = session
        timer.readPendingInput = { [unowned source] in source.readPending() }
        try source.start(in: pipeline.loop)
        if source.devices.isEmpty { report.noDevice(time: MonotonicClock.now()) }
        timer.rearm()
    }

    /// The control socket (a component): the run-time layout commands (``RuntimeControl``), then
    /// `own` for the rest.
    private func serve(_ options: ControlOptions, now: @escaping () -> Timestamp,
                       own: @escaping (JSONValue) -> JSONValue?) -> PipelineComponent {
        let control = RuntimeControl(session: session, now: now)
        var server: ControlServer?
        return PipelineStep("control socket", start: { pipeline in
            let log = Log(threshold: .warning)
            server = try ControlServer(path: options.socketPath, loop: pipeline.loop, log: log) { request in
                control.answer(request) ?? own(request)
                    ?? ControlProtocol.failure("a dry-run serves the layout commands and `replay`; not \"\(ControlProtocol.commandName(of: request) ?? "?")\"")
            }
        }, stop: {
            server?.shutdown()
            server = nil
        })
    }
}
