import EvrouteCore
import EvrouteInput
import EvrouteRuntime

/// Feeds recordings into a routing session a bounded chunk at a time, so the daemon's loop
/// serves signals, sockets and plugins between chunks. Devices appear at their recording's
/// first event (as in `--dry-run`), and are removed after their last unless `keepDevices`.
final class ReplayFeeder {
    /// A replayed device: its id and the recording it comes from.
    struct Device {
        var id: DeviceID
        var path: String
        var name: String
    }

    let devices: [Device]
    private var iterator: ReplaySource.Iterator
    private var pending: [DeviceID: DeviceDescription] = [:]
    private let startTimes: [DeviceID: Timestamp]
    private let keepDevices: Bool
    /// Raw events routed so far.
    private(set) var eventsFed = 0
    private(set) var isFinished = false

    /// Loads every recording (errors name the file and line); ids come from ``ProcessDeviceIDs``.
    init(paths: [String], descriptionPath: String?, keepDevices: Bool) throws {
        var list: [(id: DeviceID, recording: EvemuRecording)] = []
        var devices: [Device] = []
        var starts: [DeviceID: Timestamp] = [:]
        for path in paths {
            let recording = try EvemuRecording.load(path: path, descriptionPath: descriptionPath)
            let id = ProcessDeviceIDs.next()
            list.append((id, recording))
            devices.append(Device(id: id, path: path, name: recording.description.name))
            if let first = recording.events.first { starts[id] = first.time }
        }
        self.devices = devices
        startTimes = starts
        iterator = ReplaySource(devices: list).makeIterator()
        self.keepDevices = keepDevices
    }

    /// Routes up to `limit` items; returns false once the stream is exhausted.
    func feed(_ limit: Int, into session: RoutingSession) -> Bool {
        var count = 0
        while count < limit {
            guard let item = iterator.next() else {
                isFinished = true
                return false
            }
            count += 1
            if case .added(let id, let description) = item, startTimes[id] != nil {
                pending[id] = description
                continue
            }
            if let description = pending.removeValue(forKey: item.device) {
                session.router.advanceTime(to: startTimes[item.device]!)
                session.handle(.added(item.device, description))
            }
            switch item {
            case .event(_, let e):
                session.router.advanceTime(to: e.time)
                eventsFed += 1
            case .removed(_, let t):
                if keepDevices { continue }
                session.router.advanceTime(to: t)
            case .added:
                break
            }
            session.handle(item)
        }
        return true
    }
}
