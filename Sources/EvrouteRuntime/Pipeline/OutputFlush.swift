import EvrouteCore
import EvrouteSystem

/// How every mode's buffered output (the daemon's log lines, a dry-run's trace, the monitor's
/// lines) leaves: the one flush policy, used by the daemon and the dry-run alike.
///
/// Output waits at most ``delay`` after it began to wait (a loop timer), and while live input
/// flows it leaves at the end of the first wake-up whose input time shows it has waited three
/// quarters of that: the flush costs no wake-up of its own. The input time is the pipeline's
/// concern, not the loop's: only live input has it without a clock read (a live session's event
/// time is `CLOCK_MONOTONIC`, the loop's timers' clock); a replay's event time is the
/// recording's, so a replay flushes by the timer alone. Flush timing never changes the bytes.
public enum OutputFlush {
    /// 250 ms: one `write(2)` for many frames of a moving finger instead of one per wake-up, and
    /// the flush timer's two system calls once per quarter second. Nothing is lost by the wait
    /// (each line carries its event's time), and a person watching a trace sees no difference
    /// that matters. (The dry-run used 50 ms, the daemon 250 ms; one value now, the daemon's, as
    /// it is the path whose cost counts.)
    public static let delay: Timestamp.Duration = .milliseconds(250)

    /// Makes `loop` write what `pending` says waits, by calling `flush`, per this policy. With
    /// `liveSession`, the session's event time lets a wake-up flush early (see above): checked
    /// by an end-of-wake-up hook of the loop's, after those added before it (add those first).
    public static func install(on loop: EventLoop, pending: @escaping () -> Bool, flush: @escaping () -> Void,
                               liveSession: RoutingSession?) {
        loop.lazyFlush = EventLoop.LazyFlush(delay: delay, pending: pending, flush: flush)
        guard let session = liveSession else { return }
        loop.addEndOfWakeupHook { [unowned loop] in
            if let earliest = loop.lazyFlushEarliest, session.now >= earliest { loop.flushLazyOutput() }
        }
    }
}
