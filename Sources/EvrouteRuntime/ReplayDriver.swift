import EvrouteCore
import EvrouteInput
import EvrouteSystem

/// evroute's one replay driver: routes recordings into a session the way live devices would
/// arrive — each device appears at its recording's first event and goes at its last (see
/// ``ReplaySource``), matched to a device rule here, once (the session's layout's rules, as
/// ``LiveInputSource`` matches a live one), and fed to the session through its ``InputSink``
/// channel; the session's time follows the recordings — in one of three paces:
///
/// - ``runToEnd(into:)``: everything at once (`--dry-run --replay`, tests, benchmarks);
/// - ``start(in:into:pace:onFinished:)`` with ``Pace/chunked(_:)``: as fast as possible but a
///   bounded chunk per loop turn, so the daemon serves signals, sockets and plugins in between;
/// - ``start(in:into:pace:onFinished:)`` with ``Pace/recorded``: paced by the recordings' own
///   timing (`--replay-realtime`), sleeping in the loop until the next item is due.
public final class ReplayDriver {
    /// How a loop-driven replay is paced.
    public enum Pace: Sendable, Equatable {
        /// As fast as possible, this many items per loop turn.
        case chunked(Int)
        /// As the devices delivered it: each item when its recorded time is due.
        case recorded
    }

    /// A replayed device: its id and the recording it comes from.
    public struct Device: Sendable {
        public var id: DeviceID
        public var path: String
        public var name: String
    }

    public let devices: [Device]
    /// What the recordings had that was odd but replayable (timestamps going backwards).
    public let warnings: [Diagnostic]
    /// Keep replayed devices "plugged in" after their recording ends (touches still down stay down).
    public let keepDevices: Bool
    /// Raw events routed so far.
    public private(set) var eventsFed = 0
    /// Whether every item has been routed.
    public private(set) var isFinished = false

    private var iterator: ReplaySource.Iterator
    /// The next item, read ahead so that its time is known (paced replay).
    private var peeked: InputItem?
    /// A run of one device's events, up to its frame's end: handed to the session at once, as a
    /// live device's read is (``RoutingSession/events(_:from:)``), so a replay takes the live path.
    private var run: [InputEvent] = []
    private var runDevice = DeviceID(0)
    private var started = false

    /// How replayed devices are numbered.
    public enum DeviceNumbering: Sendable {
        /// From ``ProcessDeviceIDs`` (the daemon: never reused, beside live devices).
        case processWide
        /// 1, 2, … in the order given (a dry-run's trace).
        case fromOne
    }

    /// Loads every recording (`descriptionPath` for those without a description) — the one place
    /// recordings are loaded for a replay; errors name the file and line; `warnings` has what was
    /// odd but replayable. Recordings made on different clocks each replay on their own, aligned
    /// at their starts (``clockAlignments``).
    public convenience init(paths: [String], descriptionPath: String?, keepDevices: Bool = false,
                            numbering: DeviceNumbering = .processWide) throws {
        var list: [(id: DeviceID, recording: EvemuRecording)] = []
        var devices: [Device] = []
        var recordings = try paths.map { try EvemuRecording.load(path: $0, descriptionPath: descriptionPath) }
        let alignments = EvemuRecording.alignClocks(&recordings)
        for (index, (path, recording)) in zip(paths, recordings).enumerated() {
            let id = numbering == .fromOne ? DeviceID(index + 1) : ProcessDeviceIDs.next()
            list.append((id, recording))
            devices.append(Device(id: id, path: path, name: recording.description.name))
        }
        self.init(source: ReplaySource(devices: list), devices: devices, keepDevices: keepDevices)
        clockAlignments = alignments
    }

    /// What ``EvemuRecording/alignClocks(_:)`` did to the recordings (none on one clock).
    public private(set) var clockAlignments: [ClockAlignment] = []
    /// The same, worded for the log.
    public var clockNotes: [String] { clockAlignments.map(\.description) }

    /// Replays a source of recordings already loaded.
    public convenience init(source: ReplaySource, keepDevices: Bool = false) {
        self.init(source: source, devices: source.devices.map { Device(id: $0.id, path: $0.recording.path ?? "", name: $0.recording.description.name) },
                  keepDevices: keepDevices)
    }

    private init(source: ReplaySource, devices: [Device], keepDevices: Bool) {
        self.devices = devices
        warnings = source.devices.flatMap { $0.recording.warnings }
        self.keepDevices = keepDevices
        iterator = source.makeIterator()
    }

    /// Routes every remaining item.
    public func runToEnd(into session: RoutingSession) {
        while feed(.max, upTo: nil, into: session) {}
    }

    /// Starts routing through `loop` at `pace`; `onFinished` runs once every item is routed.
    /// Returns false when it had started already.
    @discardableResult
    public func start(in loop: EventLoop, into session: RoutingSession, pace: Pace,
                      onFinished: @escaping () -> Void) -> Bool {
        guard !started else { return false }
        started = true
        var origin: (wall: Timestamp, recording: Timestamp)?
        func turn() {
            let more: Bool
            switch pace {
            case .chunked(let limit):
                more = feed(max(limit, 1), upTo: nil, into: session)
                if more { loop.schedule(after: .milliseconds(0)) { turn() } }
            case .recorded:
                let now = MonotonicClock.now()
                if origin == nil, let first = nextItemTime { origin = (now, first) }
                let due = origin.map { $0.recording + (now - $0.wall) }
                more = feed(4096, upTo: due, into: session)
                if more, let origin, let next = nextItemTime {
                    loop.schedule(at: origin.wall + (next - origin.recording)) { turn() }
                }
            }
            if !more { onFinished() }
        }
        loop.schedule(after: .milliseconds(0)) { turn() }
        return true
    }

    /// The time of the next item, nil at the end.
    private var nextItemTime: Timestamp? {
        if peeked == nil { peeked = iterator.next() }
        return peeked?.time
    }

    /// Routes up to `limit` items, stopping before the first one later than `until` when given;
    /// returns false once the stream is exhausted.
    private func feed(_ limit: Int, upTo until: Timestamp?, into session: RoutingSession) -> Bool {
        defer { handRun(to: session) }
        var count = 0
        while count < limit {
            if let until, let t = nextItemTime, t > until { return true }
            guard let item = peeked ?? iterator.next() else {
                isFinished = true
                return false
            }
            peeked = nil
            count += 1
            switch item {
            case .event(let id, let event):
                eventsFed += 1
                if id != runDevice { handRun(to: session); runDevice = id }
                run.append(event)
                if event.type == EventType.syn && event.code == SynCode.report { handRun(to: session) }
                continue
            case .removed where keepDevices: continue
            default: break
            }
            handRun(to: session)
            // Matched against the rules of the moment (a reload may change them, as it reopens
            // live devices).
            session.take(item, matching: DeviceRuleMatcher(rules: session.layout.deviceRules))
        }
        return true
    }

    /// Hands the run of events collected so far to the session.
    private func handRun(to session: RoutingSession) {
        guard !run.isEmpty else { return }
        InputBatch.with(run) { session.events($0, from: runDevice) }
        run.removeAll(keepingCapacity: true)
    }
}
