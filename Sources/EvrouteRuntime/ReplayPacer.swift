import EvrouteCore
import EvrouteInput

/// Routes a replay's items into a session the way a live device would arrive: each device
/// appears at its recording's first event (so merged recordings route in time order), the
/// router's clock — and with it gesture timers — advances to every item's time, and a device
/// is removed after its last event unless `keepDevices`. `--dry-run --replay` and the daemon's
/// `--replay` both go through here.
public struct ReplayPacer {
    private let startTimes: [DeviceID: Timestamp]
    private let keepDevices: Bool
    private var pending: [DeviceID: DeviceDescription] = [:]

    /// `startTimes`: each device's appearance time (its recording's first event).
    public init(startTimes: [DeviceID: Timestamp], keepDevices: Bool = false) {
        self.startTimes = startTimes
        self.keepDevices = keepDevices
    }

    /// The appearance times of a replay's devices.
    public static func startTimes(of source: ReplaySource) -> [DeviceID: Timestamp] {
        var starts: [DeviceID: Timestamp] = [:]
        for (id, recording) in source.devices { if let first = recording.events.first { starts[id] = first.time } }
        return starts
    }

    /// Routes one item; returns true when it was a raw event.
    @discardableResult
    public mutating func route(_ item: InputItem, into session: RoutingSession) -> Bool {
        if case .added(let id, let description) = item, startTimes[id] != nil {
            pending[id] = description
            return false
        }
        if let description = pending.removeValue(forKey: item.device) {
            session.router.advanceTime(to: startTimes[item.device]!)
            session.handle(.added(item.device, description))
        }
        switch item {
        case .event(_, let e):
            session.router.advanceTime(to: e.time)
            session.handle(item)
            return true
        case .removed(_, let t):
            guard !keepDevices else { return false }
            session.router.advanceTime(to: t)
        case .added:
            break
        }
        session.handle(item)
        return false
    }
}
