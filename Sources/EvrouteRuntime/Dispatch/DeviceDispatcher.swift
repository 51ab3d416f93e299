import EvrouteCore
import EvrouteInput

/// One device's input handling, built from the rule the device matched when it arrives
/// (``RoutingSession/makeDispatcher(for:time:)``): it takes the device's reads, routes what they
/// make, and answers for its own deadlines. The session holds one per device and asks each for
/// its next deadline: one merge, whatever the kind of device.
///
/// Event time decides order: before each event that can route anything a dispatcher moves the
/// session's time to the event's (``RoutingSession/advanceTime(to:)``), so whatever was due
/// earlier — its own deadlines, other devices', the router's — fires first.
protocol DeviceDispatcher: AnyObject {
    /// Takes one read of the device, in order, and routes what it makes.
    func dispatch(_ batch: InputBatch, in session: RoutingSession)
    /// Whether the dispatcher can ever have a deadline (the session asks only those that can).
    var hasDeadlines: Bool { get }
    /// When something of the device is next due without input; nil: nothing.
    var deadline: Timestamp? { get }
    /// Its deadline came (the router's time is there): fires what was due then.
    func expire(at time: Timestamp, in session: RoutingSession)
    /// The device went: ends everything the dispatcher holds (contacts cancelled, a line sent).
    func removeAll(at time: Timestamp, in session: RoutingSession)
    /// Contacts and samples the device's decoding dropped so far.
    var droppedContacts: Int { get }
    /// The device's `SYN_DROPPED`s so far.
    var synDropped: Int { get }
}

extension DeviceDispatcher {
    var droppedContacts: Int { 0 }
    var synDropped: Int { 0 }
}
