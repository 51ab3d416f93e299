import EvrouteCore

/// Several recordings replayed as one input stream, as if their devices were plugged in together.
///
/// Every event of every recording merged by timestamp — stable: equal times keep the order of
/// the recordings as given, and each recording's own order is kept even where its timestamps go
/// backwards —, each device `added` right before its first event (at that event's time) and
/// `removed` right after its last (at that event's time). A recording without events is added
/// at the stream's first time and removed at its last. Timestamps are kept exactly as recorded
/// (often large epoch times).
public struct ReplaySource: Sequence, Sendable {
    /// The recordings and the device ids they replay as.
    public let devices: [(id: DeviceID, recording: EvemuRecording)]

    /// - Parameters:
    ///   - recordings: the recordings, in order.
    ///   - firstDeviceID: the id of the first recording's device; the others count up from it.
    public init(recordings: [EvemuRecording], firstDeviceID: Int = 1) {
        devices = recordings.enumerated().map { (DeviceID(firstDeviceID + $0.offset), $0.element) }
    }

    /// Recordings with explicit device ids.
    public init(devices: [(id: DeviceID, recording: EvemuRecording)]) {
        self.devices = devices
    }

    /// All items, in stream order.
    public var items: [InputItem] { Array(self) }

    public func makeIterator() -> Iterator { Iterator(devices: devices) }

    /// Walks the merged stream.
    public struct Iterator: IteratorProtocol {
        private let devices: [(id: DeviceID, recording: EvemuRecording)]
        /// Per recording: −1 means "added is next"; an index below `events.count` is its next
        /// event; `events.count` means "removed is next"; `events.count + 1` means done.
        private var positions: [Int]
        private let startTime: Timestamp
        private let endTime: Timestamp

        init(devices: [(id: DeviceID, recording: EvemuRecording)]) {
            self.devices = devices
            positions = Array(repeating: -1, count: devices.count)
            startTime = devices.compactMap { $0.recording.events.first?.time }.min() ?? .zero
            endTime = devices.compactMap { $0.recording.events.last?.time }.max() ?? .zero
        }

        public mutating func next() -> InputItem? {
            var best = -1
            var bestTime = Timestamp.zero
            for index in devices.indices {
                guard let time = headTime(index) else { continue }
                if best < 0 || time < bestTime {
                    best = index
                    bestTime = time
                }
            }
            guard best >= 0 else { return nil }
            let (id, recording) = devices[best]
            let position = positions[best]
            positions[best] += 1
            if position < 0 { return .added(id, recording.description, bestTime) }
            if position < recording.events.count { return .event(id, recording.events[position]) }
            return .removed(id, bestTime)
        }

        /// The time of a recording's next item, nil when it is done.
        private func headTime(_ index: Int) -> Timestamp? {
            let events = devices[index].recording.events
            let position = positions[index]
            if position < 0 { return events.first?.time ?? startTime }
            if position < events.count { return events[position].time }
            if position == events.count { return events.last?.time ?? endTime }
            return nil
        }
    }
}
