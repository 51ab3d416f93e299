/// A contact a device's filters took out of the stream: dropped before it
/// was routed (a ghost tap, a contact begun in an ignored area, a palm, too light), or
/// cancelled after it had begun (a palm). It goes through the router's observers like a routing
/// decision (trace, monitor, log, status counters) but is never routed to a handler. The idle
/// stage reports a swallowed wake touch the same way, as filter `wake`.
public struct FilteredContact: Sendable, Equatable {
    /// The event time of the frame that decided it.
    public var time: Timestamp
    /// The device it came from.
    public var deviceID: DeviceID
    /// The device rule's name (`devices[].name`).
    public var device: String
    /// The filter's config name: `ghost-tap`, `ignore`, `palm`, `pressure`, `wake`, …
    public var filter: String
    /// Where the contact was (display units) when it was filtered.
    public var location: Point

    public init(time: Timestamp, deviceID: DeviceID, device: String, filter: String, location: Point) {
        self.time = time
        self.deviceID = deviceID
        self.device = device
        self.filter = filter
        self.location = location
    }
}

/// The one per-device, per-filter table of filtered contacts (``Router/filteredCounts``):
/// what status shows and a metrics sink exports as `evroute_filtered_total{device,filter}`.
public struct FilteredCounts: Sendable, Equatable {
    /// A counter's key: device rule name and filter name.
    public struct Key: Hashable, Sendable {
        public var device: String
        public var filter: String
        public init(device: String, filter: String) { self.device = device; self.filter = filter }
    }

    /// The count per device rule and filter since the router began.
    public private(set) var counts: [Key: Int] = [:]

    public init() {}

    /// Counts one filtered contact.
    public mutating func add(_ contact: FilteredContact) {
        counts[Key(device: contact.device, filter: contact.filter), default: 0] += 1
    }

    /// The count for one device rule and filter (0 when none).
    public func count(device: String, filter: String) -> Int {
        counts[Key(device: device, filter: filter)] ?? 0
    }

    /// Every counter, sorted by device then filter (for status and metrics).
    public var sorted: [(key: Key, count: Int)] {
        counts.map { (key: $0.key, count: $0.value) }
            .sorted { ($0.key.device, $0.key.filter) < ($1.key.device, $1.key.filter) }
    }
}
