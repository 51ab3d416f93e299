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
    private var pacer: ReplayPacer
    /// Raw events routed so far.
    private(set) var eventsFed = 0
    private(set) var isFinished = false

    /// Loads every recording (errors name the file and line); ids come from ``ProcessDeviceIDs``.
    init(paths: [String], descriptionPath: String?, keepDevices: Bool) throws {
        var list: [(id: DeviceID, recording: EvemuRecording)] = []
        var devices: [Device] = []
        for path in paths {
            let recording = try EvemuRecording.load(path: path, descriptionPath: descriptionPath)
            let id = ProcessDeviceIDs.next()
            list.append((id, recording))
            devices.append(Device(id: id, path: path, name: recording.description.name))
        }
        self.devices = devices
        let source = ReplaySource(devices: list)
        pacer = ReplayPacer(startTimes: ReplayPacer.startTimes(of: source), keepDevices: keepDevices)
        iterator = source.makeIterator()
    }

    /// The next item, read ahead so its time can be known (`--replay-realtime`).
    private var peeked: InputItem?

    /// The recording time of the next item (nil when it has none, e.g. a device appearing, or
    /// at the end).
    var nextItemTime: Timestamp? {
        get {
            if peeked == nil { peeked = iterator.next() }
            switch peeked {
            case .event(_, let e)?: return e.time
            case .removed(_, let t)?: return t
            default: return nil
            }
        }
    }

    /// Routes up to `limit` items, stopping before the first one later than `until` (recording
    /// time) when given; returns false once the stream is exhausted.
    func feed(_ limit: Int, upTo until: Timestamp? = nil, into session: RoutingSession) -> Bool {
        var count = 0
        while count < limit {
            if let until, let t = nextItemTime, t > until { return true }
            guard let item = peeked ?? iterator.next() else {
                isFinished = true
                return false
            }
            peeked = nil
            count += 1
            if pacer.route(item, into: session) { eventsFed += 1 }
        }
        return true
    }
}
