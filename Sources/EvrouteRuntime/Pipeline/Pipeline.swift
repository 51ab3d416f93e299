import EvrouteCore
import EvrouteSystem
#if canImport(Glibc)
import Glibc
#endif

/// One part of a run on the ``Pipeline``: the input (live or replayed), the control socket, the
/// plugins, the watchdog… Started in list order, stopped in the reverse.
public protocol PipelineComponent: AnyObject {
    /// For errors and tests.
    var name: String { get }
    /// Starts it on `pipeline`'s loop. One that throws undoes what it began itself; the
    /// components started before it are then stopped (in reverse).
    func start(in pipeline: Pipeline) throws
    /// Stops it (once, after a start that returned).
    func stop()
}

/// What runs a mode (the daemon, the dry-run, the monitor): the one ``EventLoop``, the signal
/// handling (SIGINT / SIGTERM stop; a mode may take more signals), the session's one
/// ``SessionTimer``, the one flush policy (``OutputFlush``), and the mode's components: started
/// in list order (when one throws, the started ones are stopped, in reverse), stopped in reverse
/// list order.
public final class Pipeline {
    public let loop: EventLoop
    public let session: RoutingSession
    /// The session's deadline timer (live input: ``useSessionTimer()``).
    public private(set) var timer: SessionTimer?
    /// The components started, in order.
    public private(set) var started: [PipelineComponent] = []
    /// Set by ``stop()``.
    public private(set) var isStopped = false

    public init(session: RoutingSession, loop: EventLoop? = nil) throws {
        self.session = session
        self.loop = try loop ?? EventLoop()
    }

    /// SIGINT and SIGTERM: the pipeline's stop.
    public static let stopSignals: [Int32] = [SIGINT, SIGTERM]

    /// Takes SIGINT and SIGTERM (and `more`) through the loop's signalfd: each goes to `signalled`;
    /// without it, SIGINT and SIGTERM stop the pipeline.
    public func handleSignals(more: [Int32] = [], _ signalled: ((Int32) -> Void)? = nil) throws {
        try loop.handleSignals(Pipeline.stopSignals + more) { [unowned self] signal in
            if let signalled { signalled(signal) } else { stop() }
        }
    }

    /// Creates the session's deadline timer (live input; a replay's time is the recording's).
    @discardableResult
    public func useSessionTimer() -> SessionTimer {
        if let timer { return timer }
        let made = SessionTimer(loop: loop, session: session)
        timer = made
        // After each wake-up the timer follows what was routed.
        loop.addEndOfWakeupHook { [unowned made] in made.rearm() }
        return made
    }

    /// Starts `components` in order. When one throws, those started are stopped (in reverse)
    /// and the error is rethrown.
    public func start(_ components: [PipelineComponent]) throws {
        for component in components {
            do {
                try component.start(in: self)
            } catch {
                stopComponents()
                throw error
            }
            started.append(component)
        }
    }

    /// Stops the started components in reverse order (once) and ends ``run()``.
    public func stop() {
        guard !isStopped else { return }
        isStopped = true
        stopComponents()
        loop.stop()
    }

    private func stopComponents() {
        while let component = started.popLast() { component.stop() }
    }

    /// Runs the loop until ``stop()``. At the end of each wake-up the loop runs the hooks the
    /// components added (``EventLoop/addEndOfWakeupHook(_:)``: the session timer follows what was
    /// routed, sinks write what the wake-up queued); buffered output leaves per ``OutputFlush``
    /// (`pending`, `flush`), early by the event time when `liveInput`.
    public func run(pending: (() -> Bool)? = nil, flush: (() -> Void)? = nil, liveInput: Bool = false) {
        if let pending, let flush {
            OutputFlush.install(on: loop, pending: pending, flush: flush, liveSession: liveInput ? session : nil)
        }
        loop.run()
    }
}
