import EvrouteSystem
import EvrouteCore

/// The pipeline's one loop timer: it follows the session's next deadline, whatever asks for one
/// (a gesture recognizer's, a shake's, a scanner's line timeout, a display's idle — ``RoutingSession/nextDeadline``),
/// so a long press fires while the finger rests and nothing arrives. Live event times are
/// `CLOCK_MONOTONIC`, the loop's clock, so a deadline is used as it is. No deadline, no timer.
/// Call ``rearm()`` after routing (once per loop wake-up is enough). The daemon and the live
/// dry-run/monitor both use this one; there is no second scheduler.
public final class SessionTimer {
    private let loop: EventLoop
    private let session: RoutingSession
    private var armed: (id: EventLoop.TimerID, deadline: Timestamp)?
    /// Stops re-arming (shutdown).
    public var isEnabled = true

    public init(loop: EventLoop, session: RoutingSession) {
        self.loop = loop
        self.session = session
    }

    /// Arms the timer for the session's next deadline, if that changed.
    public func rearm() {
        let deadline = isEnabled ? session.nextDeadline : nil
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
