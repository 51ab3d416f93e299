import EvrouteCore
import EvrouteInput
import EvrouteJSON
import EvrouteSystem
#if canImport(Glibc)
import Glibc
#endif

/// `evroute --dry-run`: routes recordings or live devices and prints every decision.
public final class DryRun {
    public let layout: Layout
    public let writer: TraceWriter
    public let session: RoutingSession

    /// Where warnings about the input go (standard error by default); the trace never has them.
    public var warn: (String) -> Void = { line in try? SystemCall.writeAll(.standardError, line + "\n") }

    public init(layout: Layout, format: TraceFormat, sink: OutputSink = FileDescriptorSink(fd: 1)) {
        self.layout = layout
        writer = TraceWriter(format: format, sink: sink)
        session = RoutingSession(layout: layout)
        session.router.observer = writer
        let writer = self.writer
        session.onDeviceIgnored = { description, kind, time in writer.deviceIgnored(name: description.name, kind: kind, time: time) }
    }

    /// How a dry-run serves a control socket (SPEC §8: a UI developed against a replay or
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
        // trace on stdout stays the SPEC §4 contract.
        for warning in recordings.flatMap(\.warnings) { warn(warning.description) }
        let source = ReplaySource(recordings: recordings)
        guard let control else { return run(source) }
        let loop = try EventLoop()
        let driver = ReplayDriver(source: source)
        var replayStarted = false
        func startReplay() -> Bool {
            guard !replayStarted else { return false }
            replayStarted = true
            driver.start(in: loop, into: session, pace: .chunked(256)) { [writer] in
                writer.flush()
                if control.exitAfterReplay { loop.stop() }
            }
            return true
        }
        let server = try serve(control, loop: loop, now: { [session] in session.now }) { request in
            guard request["command"]?.stringValue == "replay" else { return nil }
            return startReplay() ? .object([("ok", .bool(true))])
                : .object([("ok", .bool(false)), ("error", .string("the replay has already started"))])
        }
        if !control.replayPaused { _ = startReplay() }
        loop.run()
        server.shutdown()
        writer.flush()
    }

    /// Routes recordings to their end (see ``ReplayDriver``).
    public func run(_ source: ReplaySource) {
        ReplayDriver(source: source).runToEnd(into: session)
        writer.flush()
    }

    /// Routes live devices until SIGINT or SIGTERM, printing as it goes: the same event loop,
    /// live input source and gesture timer as the daemon, so a long press fires on time while
    /// the finger rests and nothing else arrives. Output is written once per loop wakeup. With
    /// `control`, the control socket is served too.
    public func runLive(control: ControlOptions? = nil) throws {
        let loop = try EventLoop()
        let source = try LiveInputSource(rules: layout.deviceRules)
        source.onError = { error in
            let line = "evroute: \(error)\n"
            _ = line.withCString { Glibc.write(2, $0, strlen($0)) }
        }
        let timer = GestureTimer(loop: loop, session: session)
        let server = try control.map { options in
            try serve(options, loop: loop, now: { [session] in
                session.advanceTime(to: MonotonicClock.now())
                return session.now
            }) { _ in nil }
        }
        let writer = self.writer
        loop.afterWakeup = {
            timer.rearm()
            writer.flush()
        }
        try source.start(in: loop) { [session] item in session.handle(item) }
        timer.rearm()
        writer.flush()
        if server == nil { try loop.handleSignals([SIGINT, SIGTERM]) { _ in loop.stop() } }
        loop.run()
        server?.shutdown()
        source.stop()
        writer.flush()
    }

    /// Serves the control socket on `loop`: the run-time layout commands (``RuntimeControl``),
    /// then `own` for the rest; SIGINT and SIGTERM stop the loop; the trace is written once per
    /// wakeup.
    private func serve(_ options: ControlOptions, loop: EventLoop, now: @escaping () -> Timestamp,
                       own: @escaping (JSONValue) -> JSONValue?) throws -> ControlServer {
        try loop.handleSignals([SIGINT, SIGTERM]) { _ in loop.stop() }
        let writer = self.writer
        if loop.afterWakeup == nil { loop.afterWakeup = { writer.flush() } }
        let control = RuntimeControl(session: session, now: now)
        let log = Log(threshold: .warning)
        return try ControlServer(path: options.socketPath, loop: loop, log: log) { request in
            control.answer(request) ?? own(request)
                ?? .object([("ok", .bool(false)),
                            ("error", .string("a dry-run serves the layout commands and `replay`; not \"\(request["command"]?.stringValue ?? "?")\""))])
        }
    }
}

/// Keeps one loop timer on the router's next gesture-recognizer deadline, for live input: a
/// long press fires while the finger rests and nothing arrives. Live event times are
/// `CLOCK_MONOTONIC`, the loop's clock, so a deadline is used as it is. No pending recognizer,
/// no timer. Call ``rearm()`` after routing (once per loop wakeup is enough).
public final class GestureTimer {
    private let loop: EventLoop
    private let session: RoutingSession
    private var armed: (id: EventLoop.TimerID, deadline: Timestamp)?
    /// Stops re-arming (shutdown).
    public var isEnabled = true

    public init(loop: EventLoop, session: RoutingSession) {
        self.loop = loop
        self.session = session
    }

    /// Arms the timer for the router's next deadline, if that changed.
    public func rearm() {
        let deadline = isEnabled ? session.router.nextTimerDeadline : nil
        if armed?.deadline == deadline { return }
        if let armed { loop.cancel(armed.id) }
        armed = nil
        guard let deadline else { return }
        let id = loop.schedule(at: deadline) { [unowned self] in
            armed = nil
            session.advanceTime(to: max(deadline, MonotonicClock.now()))
            rearm()
        }
        armed = (id, deadline)
    }
}
