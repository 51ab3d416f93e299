import EvrouteCore

/// One item of a recorded input stream (``ReplaySource``): a device appears, one of its raw
/// events, or it goes away. The replay driver hands each on to an ``InputSink`` (the routing
/// session) as a live source does, an `added` device matched to a rule first
/// (``InputSink/take(_:matching:)``).
///
/// A device is always `added` before its first `event` and `removed` after its last;
/// on `removed` the runtime cancels the device's live touches and held keys. Every item carries
/// its time (the clock the device's events are stamped with), so the routing session alone
/// sets the router's time from the stream.
public enum InputItem: Sendable {
    /// A device appeared (hotplug, startup enumeration, or a recording's first event) at this time.
    case added(DeviceID, DeviceDescription, Timestamp)
    /// One raw evdev event from the device.
    case event(DeviceID, InputEvent)
    /// The device went away (unplug, read error, or the end of its recording) at this event time.
    case removed(DeviceID, Timestamp)

    /// The device the item concerns.
    public var device: DeviceID {
        switch self {
        case .added(let id, _, _), .event(let id, _), .removed(let id, _): return id
        }
    }

    /// When it happened.
    @inline(__always)
    public var time: Timestamp {
        switch self {
        case .added(_, _, let t), .removed(_, let t): return t
        case .event(_, let e): return e.time
        }
    }
}
