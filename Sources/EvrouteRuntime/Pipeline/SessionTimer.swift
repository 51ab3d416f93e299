import EvrouteSystem
import EvrouteCore

/// The pipeline's one loop timer: it follows the session's next deadline, whatever asks for one
/// (a gesture recognizer's, a shake's, a scanner's line timeout, a display's idle — ``RoutingSession/nextDeadline``),
/// so a long press fires while the finger rests and nothing arrives. Live event times are
/// `CLOCK_MONOTONIC`, the loop's clock, so a deadline is used as it is. No deadline, no timer.
/// Call ``rearm()`` after routing (once per loop wake-up is enough). The daemon and the live
/// dry-run/monitor both use this one; there is no second scheduler.
///
/// Input first: when the timer fires, every event already readable is read and routed first
/// (``readPendingInput``), and the session then advances to the deadline itself, not to the
/// wall clock. A device's events carry the time the kernel stamped them, and routing an event
/// first fires whatever was due before its time: so a deadline fires after the events stamped
/// before it and before those stamped after it, whether the timer and the input were ready in
/// the same wake-up (in either order) or the process ran late (a loaded machine, a stopped
/// process). The rule is one for every deadline: a recognizer's, a contact filter's hold, a
/// scanner line's timeout, a display's idle.
public final class SessionTimer {
    private let loop: EventLoop
    private let session: RoutingSession
    private var armed: (id: EventLoop.TimerID, deadline: Timestamp)?
    /// Stops re-arming (shutdown).
    public var isEnabled = true
    /// Reads and routes every event already readable, without waiting (a live source's
    /// ``LiveInputSource/readPending()``); called before a deadline fires.
    public var readPendingInput: (() -> Void)?

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
            readPendingInput?()
            // To the deadline, never beyond: an event read after this (stamped later than
            // this moment's reads) advances the session to its own time when routed.
            session.advanceTime(to: deadline)
            rearm()
        }
        armed = (id, deadline)
    }
}
