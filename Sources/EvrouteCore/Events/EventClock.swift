/// Where the core's notion of "now" comes from. The router advances it from event
/// timestamps; a daemon may also advance it from a monotonic clock between events
/// (so timers fire while nothing happens), a replay only from the recording.
public protocol EventClock: AnyObject {
    /// The latest time the clock has seen.
    var now: Timestamp { get }
    /// Moves the clock forward; earlier times are ignored (time never goes back).
    func advance(to time: Timestamp)
}

/// A clock driven purely by the timestamps it is given.
public final class ManualClock: EventClock {
    public var now: Timestamp { current }
    /// ``now``'s storage: read and written at every frame by the router.
    private var current: Timestamp

    public init(start: Timestamp = .zero) { current = start }

    public func advance(to time: Timestamp) {
        if time > current { current = time }
    }
}
