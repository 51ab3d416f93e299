import EvrouteCore
import EvrouteInput
import EvrouteJSON

/// A contact filter: a stage of a touch device's chain between its decoder (contacts decoded
/// and mapped to display coordinates) and the router, which may change, hold back or drop
/// contacts of each frame (a frame left without contacts is not routed). One per device, made
/// when the device arrives (it may keep state across frames): a value in the device's
/// ``ContactFilterChain``, which its touch dispatcher owns.
///
/// A contact that had begun (was passed on) is never dropped silently: its filter turns its
/// sample into `cancelled` and drops what follows; every drop or cancel is told as a
/// ``FilteredContact`` appended to `filtered`.
///
/// A filter works on the frame in place and writes to it only to change it (the frame's
/// contact list is shared with the decoder until then): ``TouchFrameInput/removeContacts(where:)``.
public protocol TouchFrameFilter {
    /// Filters one frame of the device's contacts, in place.
    mutating func filter(_ frame: inout TouchFrameInput, _ filtered: inout [FilteredContact])
    /// Whether it ever has a ``deadline`` (one that holds contacts back); false: never asked.
    var hasDeadline: Bool { get }
    /// When the filter must act although no frame comes (a held contact's bound), on the event
    /// clock; nil: never. The session arms its one timer for it (``expire(_:_:)`` then).
    var deadline: Timestamp? { get }
    /// The deadline came: `frame` is an empty frame of the device at that time; the filter adds
    /// what it releases then (later filters then see the frame, as any other).
    mutating func expire(_ frame: inout TouchFrameInput, _ filtered: inout [FilteredContact])
}

extension TouchFrameFilter {
    public var hasDeadline: Bool { false }
    public var deadline: Timestamp? { nil }
    public mutating func expire(_ frame: inout TouchFrameInput, _ filtered: inout [FilteredContact]) {}
}

/// A stage's settings, fixed when its device arrives, behind one reference: with them there, a
/// stage's value (the reference and its changing state) fits an existential's inline buffer of
/// three words, so its chain changes it in place with no box to check.
final class FixedSettings<Value> {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// A device's contact filters, in the order they run: one value its touch dispatcher owns and
/// changes once per frame. Empty when its rule configures none (then a frame costs a count test).
public struct ContactFilterChain {
    private var stages: [any TouchFrameFilter]
    /// The stages that may have a deadline (by index), the only ones asked for it.
    private let timed: [Int]
    /// The earliest deadline of a stage, on the event clock, as of the last frame; nil: none.
    public private(set) var deadline: Timestamp?

    init(_ stages: [any TouchFrameFilter]) {
        self.stages = stages
        self.timed = stages.indices.filter { stages[$0].hasDeadline }
    }

    public var isEmpty: Bool { stages.isEmpty }
    public var count: Int { stages.count }
    /// Whether a stage may hold contacts back until a deadline.
    public var hasDeadlines: Bool { !timed.isEmpty }

    /// One frame through every stage, in order; what they drop or cancel is appended to
    /// `filtered`. Returns whether the chain's ``deadline`` moved.
    @discardableResult
    public mutating func filter(_ frame: inout TouchFrameInput, _ filtered: inout [FilteredContact]) -> Bool {
        for i in stages.indices { stages[i].filter(&frame, &filtered) }
        guard !timed.isEmpty else { return false }
        let before = deadline
        deadline = due?.deadline
        return deadline != before
    }

    /// The earliest stage's deadline (the first in order on a tie), and which stage.
    private var due: (index: Int, deadline: Timestamp)? {
        var due: (index: Int, deadline: Timestamp)?
        for i in timed {
            if let d = stages[i].deadline, due.map({ d < $0.deadline }) ?? true { due = (i, d) }
        }
        return due
    }

    /// If a stage's deadline is at or before `time`: an empty frame of `device` at that deadline
    /// through the due stage's `expire`, then through the stages after it (nil: none was due).
    public mutating func expire(device: DeviceID, at time: Timestamp, _ filtered: inout [FilteredContact]) -> TouchFrameInput? {
        guard let deadline, deadline <= time, let due else { return nil }
        var frame = TouchFrameInput(device: device, time: due.deadline, contacts: [])
        stages[due.index].expire(&frame, &filtered)
        for i in stages.indices where i > due.index { stages[i].filter(&frame, &filtered) }
        self.deadline = self.due?.deadline
        return frame
    }
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
    public static func make(for rule: DeviceRuleSpec, displaySize: Size) -> ContactFilterChain {
        if rule.filters.isEmpty { return ContactFilterChain([]) }
        var stages: [any TouchFrameFilter] = []
        for case let filter as any ContactFilterType in rule.filters {
            stages.append(filter.stage(rule: rule.name, display: displaySize, among: rule.filters))
        }
        return ContactFilterChain(stages)
    }

    /// A rule's `filters:` as `tree` shows them: a mapping of the configured filters, in the
    /// order they run, with the values they run with; empty when none is configured.
    public static func facts(_ filters: [any ContactFilterOptions]) -> JSONValue {
        var members: [(String, JSONValue)] = []
        for case let filter as any ContactFilterType in filters { members.append((filter.keyName, filter.fact)) }
        return .object(members)
    }
}

extension TouchFrameInput {
    /// Removes the samples `drop` says (asked once per sample, in order), keeping the others in
    /// order; the list is not written when nothing goes.
    mutating func removeContacts(where drop: (ContactSample) -> Bool) {
        let count = contacts.count
        var i = 0
        while i < count, !drop(contacts[i]) { i += 1 }
        guard i < count else { return }
        var kept = i
        i += 1
        while i < count {
            let sample = contacts[i]
            if !drop(sample) { contacts[kept] = sample; kept += 1 }
            i += 1
        }
        for _ in kept..<count { contacts.removeLast() }
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
