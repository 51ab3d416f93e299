import EvrouteCore

/// The metrics that are counted where routing decisions happen: one member of the
/// daemon's ``RouteFanOut`` when the config has a `metrics:` block (none else: the log-only
/// daemon builds no record per event). Per routed event it does a few array increments — the
/// taker's handler and the event's kind, or the kind unhandled — and, for live input, places
/// the dispatch latency (the event's kernel timestamp → now, now read once per wake-up) in the
/// histogram. Names (plugins, forwarding, device rules) are looked up only when the text is
/// rendered (``Daemon/metricsText()``), so labels are bounded by the layout and the device rules.
/// The counters read per event are the sink's body, confined to the loop's thread.
final class MetricsSink: RouteObserver {
    /// The `kind` label's values, in the order of the per-kind counters.
    static let kinds = ["touch", "key", "text", "action", "gesture", "motion", "idle", "active"]

    /// The histogram's upper bounds, in microseconds (`le` in seconds when rendered).
    static let latencyBounds: [Int64] = [100, 250, 500, 1000, 2500, 5000, 10_000, 25_000, 50_000, 100_000, 250_000, 500_000, 1_000_000]
    /// The bounds as the `le` label says them, in seconds.
    static let latencyBoundLabels = latencyBounds.map { "\(Double($0) / 1e6)" }

    /// `evroute_dispatch_latency_seconds`: counts per bucket (not cumulative; the last one is
    /// +Inf), the sum in microseconds.
    struct Latency: Equatable {
        var buckets = [Int](repeating: 0, count: MetricsSink.latencyBounds.count + 1)
        var sumMicroseconds: Int64 = 0
        var count = 0

        @inline(__always)
        mutating func observe(_ microseconds: Int64) {
            let d = max(microseconds, 0)
            var i = 0
            let bounds = MetricsSink.latencyBounds
            while i < bounds.count && d > bounds[i] { i += 1 }
            buckets[i] &+= 1
            sumMicroseconds &+= d
            count &+= 1
        }
    }

    /// Handled events of the layout being counted: `[handler * kinds.count + kind]`.
    private(set) var handledCounts: [Int] = []
    /// The layout ``handledCounts`` indexes (events of another one fold it first), kept until
    /// then, and its identity (compared per event: no reference count touched).
    private(set) var countedLayout: Layout?
    private var countedID: ObjectIdentifier?
    /// Handled events of layouts no longer counted, by (plugin, forwards, kind).
    private(set) var earlierHandled: [HandledKey: Int] = [:]
    private(set) var unhandled = [Int](repeating: 0, count: MetricsSink.kinds.count)
    /// Touches begun, by device id (``deviceRules`` names each id's rule).
    private(set) var touchesByDevice: [Int: Int] = [:]
    /// The rule each device id that was routed matched.
    private(set) var deviceRules: [Int: String] = [:]
    /// Devices opened again under a rule after one of its devices went, by rule name.
    private(set) var reopens: [String: Int] = [:]
    /// Devices of each rule that went and have not come back yet.
    private var devicesGone: [String: Int] = [:]
    /// Cancelled touch phases routed (all reasons).
    private(set) var touchesCancelled = 0
    /// Gestures recognized (discrete) or begun (continuous), by name.
    private(set) var gestures: [String: Int] = [:]
    /// Contacts the contact filters removed, by device rule and filter (``recordFiltered(device:filter:)``).
    private(set) var filtered: [FilteredKey: Int] = [:]
    private(set) var latency = Latency()
    /// Whether dispatch latency is measured (live input: event times are the kernel's monotonic clock).
    var measuresLatency = false
    /// Now, read once per wake-up (at its first dispatched event), cleared by ``wakeupEnded()``.
    private var wakeupNow: Timestamp?
    /// Reads the clock the events' timestamps use (CLOCK_MONOTONIC: EVIOCSCLOCKID).
    private let now: () -> Timestamp

    struct HandledKey: Hashable {
        var plugin: String
        var forwards: Bool
        var kind: Int
    }

    struct FilteredKey: Hashable {
        var device: String
        var filter: String
    }

    init(now: @escaping () -> Timestamp) {
        self.now = now
    }

    var observesRoutedEvents: Bool { true }

    func record(_ record: RouteRecord) {
        switch record {
        case .deviceAdded(let info, _):
            deviceRules[info.id.rawValue] = info.ruleName
            if let gone = devicesGone[info.ruleName], gone > 0 {
                devicesGone[info.ruleName] = gone - 1
                reopens[info.ruleName, default: 0] += 1
            }
        case .deviceRemoved(let info, _):
            devicesGone[info.ruleName, default: 0] += 1
        case .routed(let event, let responder, let binding):
            routed(event, handledBy: responder, handler: binding?.handlerIndex)
        case .filtered(let contact):
            // What a device rule's filters dropped or cancelled: counted where it happens.
            recordFiltered(device: contact.device, filter: contact.filter)
        default:
            break
        }
    }

    func routed(_ event: RoutedEvent, handledBy responder: ResponderID?, handler: HandlerIndex?) {
        // The kind read without binding its payload (a key's or gesture's name is not copied,
        // nor the device's info: its id is read in place).
        let kind: Int
        switch event.kind {
        case .touch(let phase, _):
            kind = 0
            if phase == .began {
                if let id = event.device?.id.rawValue { touchesByDevice[id, default: 0] += 1 }
            } else if phase == .cancelled {
                touchesCancelled &+= 1
            }
        case .key: kind = 1
        case .text: kind = 2
        case .action: kind = 3
        case .gesture(let name, let state):
            kind = 4
            if state == "recognized" || state == "began" { gestures[name, default: 0] += 1 }
        case .motion: kind = 5
        case .idle: kind = 6
        case .active: kind = 7
        }
        guard let handler else {
            unhandled[kind] &+= 1
            return
        }
        if ObjectIdentifier(event.layout) != countedID { count(layout: event.layout) }
        handledCounts[handler.rawValue &* MetricsSink.kinds.count &+ kind] &+= 1
        if measuresLatency, event.device != nil {
            let t: Timestamp
            if let n = wakeupNow { t = n } else { t = now(); wakeupNow = t }
            latency.observe((t - event.time).microseconds)
        }
    }

    /// The end of a loop wake-up: the next dispatch reads the clock again.
    func wakeupEnded() {
        wakeupNow = nil
    }

    /// A contact a filter removed (a `FilteredContact`): `device` is its rule's name,
    /// `filter` the filter's name; both bounded by the config.
    func recordFiltered(device: String, filter: String) {
        filtered[FilteredKey(device: device, filter: filter), default: 0] += 1
    }

    /// Starts counting `layout`'s handlers, the counts of the one before kept by name.
    private func count(layout: Layout) {
        foldCurrent()
        countedLayout = layout
        countedID = ObjectIdentifier(layout)
        handledCounts = [Int](repeating: 0, count: layout.handlers.count * MetricsSink.kinds.count)
    }

    private func foldCurrent() {
        guard let layout = countedLayout else { return }
        for (i, n) in handledCounts.enumerated() where n > 0 {
            let binding = layout.handlers[i / MetricsSink.kinds.count]
            earlierHandled[HandledKey(plugin: binding.plugin, forwards: binding.forwards, kind: i % MetricsSink.kinds.count), default: 0] += n
        }
    }

    /// Every handled count by (plugin, forwards, kind): the earlier layouts' and the current one's.
    var handled: [HandledKey: Int] {
        var all = [HandledKey: Int](minimumCapacity: earlierHandled.count + handledCounts.count)
        for (k, n) in earlierHandled { all[k] = n }
        if let layout = countedLayout {
            for (i, n) in handledCounts.enumerated() where n > 0 {
                let binding = layout.handlers[i / MetricsSink.kinds.count]
                all[HandledKey(plugin: binding.plugin, forwards: binding.forwards, kind: i % MetricsSink.kinds.count), default: 0] += n
            }
        }
        return all
    }
}
