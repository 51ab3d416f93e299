import EvrouteCore

/// One item of the input stream that live devices and recordings both produce:
/// a device appears, one of its raw events, or it goes away.
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
