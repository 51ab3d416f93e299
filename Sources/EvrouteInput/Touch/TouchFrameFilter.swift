import EvrouteCore

/// A contact filter: a stage of a touch device's chain between its decoder (contacts decoded
/// and mapped to display coordinates) and the router, which may change, hold back or drop
/// contacts of each frame (a frame left without contacts is not routed). One per device, made
/// when the device arrives (it may keep state across frames); it runs on the loop's thread.
///
/// A contact that had begun (was passed on) is never dropped silently: its filter turns its
/// sample into `cancelled` and drops what follows; every drop or cancel is told as a
/// ``FilteredContact`` appended to `filtered`.
public protocol TouchFrameFilter: AnyObject {
    /// Filters one frame of the device's contacts, in place.
    func filter(_ frame: inout TouchFrameInput, _ filtered: inout [FilteredContact])
    /// When the filter must act although no frame comes (a held contact's bound), on the event
    /// clock; nil: never. The session arms its one timer for it (``expire(_:_:)`` then).
    var deadline: Timestamp? { get }
    /// The deadline came: `frame` is an empty frame of the device at that time; the filter adds
    /// what it releases then (later filters then see the frame, as any other).
    func expire(_ frame: inout TouchFrameInput, _ filtered: inout [FilteredContact])
}

extension TouchFrameFilter {
    public var deadline: Timestamp? { nil }
    public func expire(_ frame: inout TouchFrameInput, _ filtered: inout [FilteredContact]) {}
}

/// The one place contact filters are registered: what a device rule asks for becomes a
/// device's filter list, in the order they run. A filter is one file (its type) plus one line
/// here; with no `filters:` every list is empty (and an empty list costs a count test per frame).
public enum TouchFrameFilters {
    /// The filters, in order, for a touch device `description` that `rule` took.
    /// The `filter` names under which `spec`'s filters report the contacts they take out (a
    /// `filtered` record's, the metrics' label): known before anything is filtered, so the
    /// metrics can say 0. The jitter filter takes out moves, never contacts.
    public static func removalNames(_ spec: TouchFilterSpec) -> [String] {
        var names: [String] = []
        if !spec.ignore.isEmpty { names.append("ignore") }
        if spec.pressureMin != nil { names.append("pressure") }
        if spec.palm != nil { names.append("palm") }
        if spec.ghostTapMaxMs != nil { names.append("ghost-tap") }
        if spec.stuckAfterS != nil { names.append("stuck") }
        return names
    }

    public static func make(for rule: DeviceRuleSpec, device description: DeviceDescription) -> [any TouchFrameFilter] {
        let spec = rule.filters
        if spec.isEmpty { return [] }
        var filters: [any TouchFrameFilter] = []
        if !spec.ignore.isEmpty { filters.append(IgnoreFilter(spec.ignore, rule: rule.name)) }
        if let min = spec.pressureMin { filters.append(PressureFilter(min: min, rule: rule.name)) }
        if let palm = spec.palm { filters.append(PalmFilter(palm, rule: rule.name)) }
        if let ms = spec.ghostTapMaxMs { filters.append(GhostTapFilter(maxDurationMs: ms, rule: rule.name)) }
        if let h = spec.jitterHysteresis { filters.append(JitterFilter(hysteresis: h)) }
        if let s = spec.stuckAfterS {
            filters.append(StuckFilter(after: s, hysteresis: spec.jitterHysteresis ?? TouchFilterSpec.defaultJitterHysteresis, rule: rule.name))
        }
        return filters
    }
}

/// The contacts a filter took out, by the device's contact number: their later samples are
/// dropped too, until the contact ends (the number may then be used again).
struct RemovedContacts {
    private var ids: [Int] = []

    var isEmpty: Bool { ids.isEmpty }
    func contains(_ contact: Int) -> Bool { ids.contains(contact) }
    mutating func insert(_ contact: Int) { if !ids.contains(contact) { ids.append(contact) } }
    mutating func remove(_ contact: Int) { ids.removeAll { $0 == contact } }

    /// Drops `sample` when its contact was taken out (forgetting it at its end): true when dropped.
    mutating func drops(_ sample: ContactSample) -> Bool {
        guard !ids.isEmpty, ids.contains(sample.contact) else { return false }
        if sample.change == .ended || sample.change == .cancelled { remove(sample.contact) }
        return true
    }
}

extension FilteredContact {
    init(_ sample: ContactSample, _ time: Timestamp, _ deviceID: DeviceID, rule: String, filter: String) {
        self.init(time: time, deviceID: deviceID, device: rule, filter: filter, location: sample.location)
    }
}
