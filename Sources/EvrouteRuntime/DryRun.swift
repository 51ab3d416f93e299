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
    /// 1, 2, … in the order given. With `control`, the control socket is served meanwhile (and
    /// after, until a stop signal, unless `exitAfterReplay`).
    public func runReplays(paths: [String], descriptionPath: String?, control: ControlOptions? = nil) throws {
        try runReplay(.paths(paths, descriptionPath: descriptionPath, keepDevices: false, numbering: .fromOne), control: control)
    }

    /// Routes recordings to their end (see ``ReplayDriver``), then prints the summary line.
    public func run(_ source: ReplaySource) throws {
        try runReplay(.driver(ReplayDriver(source: source)), control: nil)
    }

    /// The replay's run: on the pipeline's loop, the control socket beside it when asked for.
    /// Without one, the whole replay is routed in one turn of the loop.
    private func runReplay(_ recordings: ReplayComponent.Recordings, control: ControlOptions?) throws {
        let pipeline = try Pipeline(session: session)
        let replay = ReplayComponent(recordings, pace: .chunked(control == nil ? .max : 256),
                                     paused: control?.replayPaused ?? false)
        if case .paths = recordings {
            replay.onLoaded = { [unowned self] driver in sayLoaded(driver) }
        } else {
            replay.onLoaded = { [unowned self] driver in attach(driver) }
        }
        replay.onFinished = finished(replay, pipeline, exit: control?.exitAfterReplay ?? true)
        var components: [PipelineComponent] = []
        if let control {
            try pipeline.handleSignals()
            components.append(serve(control, now: { [session] in session.now }, own: replayCommand(replay)))
        }
        components.append(replay)
        try pipeline.start(components)
        // The trace is written at the end of each wake-up.
        let report = self.report
        pipeline.loop.addEndOfWakeupHook { report.flush() }
        pipeline.run()
        report.flush()
    }

    /// Recordings loaded by the replay: their warnings on stderr (odd but replayable: timestamps
    /// going backwards; the trace on stdout stays the docs/events.md contract), the clocks they
    /// were aligned on in the trace's header, their names.
    private func sayLoaded(_ driver: ReplayDriver) {
        for warning in driver.warnings { warn(warning.description) }
        report.clocksAligned(driver.clockAlignments)
        attach(driver)
    }

    /// The end of the replay: the summary line, and the stop unless the control socket serves on.
    private func finished(_ replay: ReplayComponent, _ pipeline: Pipeline, exit: Bool) -> () -> Void {
        { [unowned self, unowned replay, unowned pipeline] in
            finishReplay(inputEvents: replay.driver?.eventsFed ?? 0)
            if exit { pipeline.stop() }
        }
    }

    /// `{"command":"replay"}`: starts a held replay.
    private func replayCommand(_ replay: ReplayComponent) -> (JSONValue) -> JSONValue? {
        { [unowned replay] request in
            guard ControlProtocol.commandName(of: request) == ControlProtocol.Command.replay.rawValue else { return nil }
            return replay.begin() ? ControlProtocol.success() : ControlProtocol.failure("the replay has already started")
        }
    }

    /// Routes live devices until SIGINT or SIGTERM, printing as it goes: the same event loop,
    /// live input source and gesture timer as the daemon, so a long press fires on time while
    /// the finger rests and nothing else arrives. Output is written once per loop wakeup. With
    /// `control`, the control socket is served too.
    public func runLive(control: ControlOptions? = nil) throws {
        let pipeline = try Pipeline(session: session)
        // Before anything is printed: whoever reads the first line may stop us at once.
        try pipeline.handleSignals()
        let server = control.map { options in
            serve(options, now: { [session] in
                session.advanceTime(to: MonotonicClock.now())
                return session.now
            }) { _ in nil }
        }
        try pipeline.start((server.map { [$0] } ?? []) + [liveInput(pipeline)])
        let report = self.report
        report.flush()
        // The trace leaves per the one flush policy (``OutputFlush``): one write(2) for a burst
        // of frames.
        pipeline.run(pending: { report.hasPendingOutput }, flush: { report.flush() }, liveInput: true)
        report.flush()
    }

    /// The live input: the devices, their lines in the report, the session timer.
    private func liveInput(_ pipeline: Pipeline) -> LiveInputComponent {
        let report = self.report
        return LiveInputComponent(rules: layout.deviceRules, prepare: { [unowned self] source in
            source.onError = { [unowned self] error in warn("evroute: \(error)") }
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
        }, started: { [unowned pipeline] source in
            if source.devices.isEmpty { report.noDevice(time: MonotonicClock.now()) }
            pipeline.timer?.rearm()
        })
    }

    /// The control socket: the run-time layout commands (``RuntimeControl``), then `own` for the rest.
    private func serve(_ options: ControlOptions, now: @escaping () -> Timestamp,
                       own: @escaping (JSONValue) -> JSONValue?) -> ControlSocketComponent {
        let control = RuntimeControl(session: session, now: now)
        return ControlSocketComponent(path: options.socketPath, log: Log(threshold: .warning)) { request in
            control.answer(request) ?? own(request)
                ?? ControlProtocol.failure("a dry-run serves the layout commands and `replay`; not \"\(ControlProtocol.commandName(of: request) ?? "?")\"")
        }
    }
}
