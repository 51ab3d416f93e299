import EvrouteCore

/// Several recordings replayed as one input stream, as if their devices were plugged in together.
///
/// The stream starts with an `added` item per recording (in the order given), then every event of
/// every recording merged by timestamp — stable: equal times keep the order of the recordings as
/// given, and each recording's own order is kept even where its timestamps go backwards — and a
/// `removed` item right after each recording's last event, at that event's time (a recording
/// without events is removed at the stream's last time). Timestamps are kept exactly as recorded
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
        private var nextAdded = 0
        /// Per recording: the index of its next event; `events.count` means "removed is next",
        /// `events.count + 1` means done.
        private var positions: [Int]
        private let endTime: Timestamp

        init(devices: [(id: DeviceID, recording: EvemuRecording)]) {
            self.devices = devices
            positions = Array(repeating: 0, count: devices.count)
            endTime = devices.compactMap { $0.recording.events.last?.time }.max() ?? .zero
        }

        public mutating func next() -> InputItem? {
            if nextAdded < devices.count {
                defer { nextAdded += 1 }
                return .added(devices[nextAdded].id, devices[nextAdded].recording.description)
            }
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
            let events = devices[best].recording.events
            let position = positions[best]
            positions[best] += 1
            if position < events.count {
                return .event(devices[best].id, events[position])
            }
            return .removed(devices[best].id, bestTime)
        }

        /// The time of a recording's next item, nil when it is done.
        private func headTime(_ index: Int) -> Timestamp? {
            let events = devices[index].recording.events
            let position = positions[index]
            if position < events.count { return events[position].time }
            if position == events.count { return events.last?.time ?? endTime }
            return nil
        }
    }
}
