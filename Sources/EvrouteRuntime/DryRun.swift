import EvrouteCore
import EvrouteInput
import EvrouteSystem
#if canImport(Glibc)
import Glibc
#endif

/// `evroute --dry-run`: routes recordings or live devices and prints every decision.
public final class DryRun {
    public let layout: Layout
    public let writer: TraceWriter
    public let session: RoutingSession

    public init(layout: Layout, format: TraceFormat, sink: OutputSink = FileDescriptorSink(fd: 1)) {
        self.layout = layout
        writer = TraceWriter(format: format, sink: sink)
        session = RoutingSession(layout: layout)
        session.router.observer = writer
        let writer = self.writer
        session.onDeviceIgnored = { description, kind, time in writer.deviceIgnored(name: description.name, kind: kind, time: time) }
    }

    /// Loads each recording (its description from itself, a sibling `.desc`, or `descriptionPath`)
    /// and routes them merged by timestamp. Errors name the file and line. Devices are numbered
    /// 1, 2, … in the order given.
    public func runReplays(paths: [String], descriptionPath: String?) throws {
        var recordings: [EvemuRecording] = []
        for path in paths {
            recordings.append(try EvemuRecording.load(path: path, descriptionPath: descriptionPath))
        }
        run(ReplaySource(recordings: recordings))
    }

    /// Routes recordings to their end (see ``ReplayDriver``).
    public func run(_ source: ReplaySource) {
        ReplayDriver(source: source).runToEnd(into: session)
        writer.flush()
    }

    /// Routes live devices until SIGINT or SIGTERM, printing as it goes: the same event loop,
    /// live input source and gesture timer as the daemon, so a long press fires on time while
    /// the finger rests and nothing else arrives. Output is written once per loop wakeup.
    public func runLive() throws {
        let loop = try EventLoop()
        try loop.handleSignals([SIGINT, SIGTERM]) { _ in loop.stop() }
        let source = try LiveInputSource(rules: layout.deviceRules)
        source.onError = { error in
            let line = "evroute: \(error)\n"
            _ = line.withCString { Glibc.write(2, $0, strlen($0)) }
        }
        let timer = GestureTimer(loop: loop, session: session)
        let writer = self.writer
        loop.afterWakeup = {
            timer.rearm()
            writer.flush()
        }
        try source.start(in: loop) { [session] item in session.handle(item) }
        timer.rearm()
        writer.flush()
        loop.run()
        source.stop()
        writer.flush()
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
