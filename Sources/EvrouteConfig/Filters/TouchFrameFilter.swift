import EvrouteCore
import EvrouteInput
import EvrouteJSON

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

/// A filter type: one file declares its config key, reads and checks its value, says what
/// `tree` shows of it and under which name its removals are counted, and makes its stage; one
/// line of ``TouchFrameFilters/types`` registers it. Its value is the options it runs with.
protocol ContactFilterType: ContactFilterOptions {
    /// Its key under `filters:`, with its inner keys, ranges and defaults (check's and the manual's).
    static var key: ConfigKey { get }
    /// The `filter` name its removals and cancels are told under (a `filtered` record, the
    /// metrics' label); nil: it takes out no contact (jitter takes out moves only).
    static var removalName: String? { get }
    /// Reads the key's value, each error at its file:line:col; nil: off, or refused.
    static func read(_ value: YAMLNode, _ reader: SpecReader) -> Self?
    /// The options as `tree` shows them (the values it runs with, defaults filled in).
    var fact: JSONValue { get }
    /// Checks the options against the rule's display (its name and size in display units), each
    /// error at the option's file:line:col (``SpecReader/error(at:_:_:)``). Called once the
    /// whole layout is read.
    func check(display: DisplaySpec, _ reader: SpecReader)
    /// The stage for a touch device of rule `rule` on a display of size `display`; `all` is the
    /// rule's filters (one may read another's options).
    func stage(rule: String, display: Size, among all: [any ContactFilterOptions]) -> any TouchFrameFilter
}

extension ContactFilterType {
    func check(display: DisplaySpec, _ reader: SpecReader) {}
    /// The type's key name and removal name, of a value.
    var keyName: String { Self.key.name }
    var removal: String? { Self.removalName }
}

/// The one place contact filters are registered: what a device rule asks for becomes a
/// device's filter list, in the order they run. A filter is one file (its type) plus one line
/// here; with no `filters:` every list is empty (and an empty list costs a count test per frame).
public enum TouchFrameFilters {
    /// Every filter type, in the order they run.
    static let types: [any ContactFilterType.Type] = [
        IgnoreFilterOptions.self,
        EdgeRejectFilterOptions.self,
        PressureFilterOptions.self,
        PalmFilterOptions.self,
        GhostTapFilterOptions.self,
        JitterFilterOptions.self,
        StuckFilterOptions.self,
    ]

    /// The filters' keys, as `filters:` lists them (by name).
    static var keys: [ConfigKey] { types.map { $0.key }.sorted { $0.name < $1.name } }

    /// The `filter` names under which `filters` report the contacts they take out (a
    /// `filtered` record's, the metrics' label): known before anything is filtered, so the
    /// metrics can say 0.
    public static func removalNames(_ filters: [any ContactFilterOptions]) -> [String] {
        var names: [String] = []
        for case let filter as any ContactFilterType in filters { if let name = filter.removal { names.append(name) } }
        return names
    }

    /// The filters, in order, for a touch device that `rule` took, on a display of `displaySize`.
    public static func make(for rule: DeviceRuleSpec, displaySize: Size) -> [any TouchFrameFilter] {
        if rule.filters.isEmpty { return [] }
        var stages: [any TouchFrameFilter] = []
        for case let filter as any ContactFilterType in rule.filters {
            stages.append(filter.stage(rule: rule.name, display: displaySize, among: rule.filters))
        }
        return stages
    }

    /// A rule's `filters:` as `tree` shows them: a mapping of the configured filters, in the
    /// order they run, with the values they run with; empty when none is configured.
    public static func facts(_ filters: [any ContactFilterOptions]) -> JSONValue {
        var members: [(String, JSONValue)] = []
        for case let filter as any ContactFilterType in filters { members.append((filter.keyName, filter.fact)) }
        return .object(members)
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
