import EvrouteCore
import EvrouteInput
import EvrouteJSON

/// `pressure: { min }`: a contact that begins lighter than `min` (raw device units) is dropped
/// whole (a panel's faint phantom contacts). A contact with no pressure reported is kept.
struct PressureFilter: TouchFrameFilter {
    private let fixed: FixedSettings<(min: Double, rule: String)>
    private var removed = RemovedContacts()
    var min: Double { fixed.value.min }
    var rule: String { fixed.value.rule }

    init(min: Double, rule: String) {
        fixed = FixedSettings((min, rule))
    }

    mutating func filter(_ frame: inout TouchFrameInput, _ filtered: inout [FilteredContact]) {
        let (time, device) = (frame.time, frame.device)
        frame.removeContacts { sample in
            if removed.drops(sample) { return true }
            guard sample.change == .began, let p = sample.pressure, p < min else { return false }
            removed.insert(sample.contact)
            filtered.append(FilteredContact(sample, time, device, rule: rule, filter: PressureFilterOptions.name))
            return true
        }
    }
}

/// `pressure: { min }`, in the device's raw pressure units.
public struct PressureFilterOptions: ContactFilterType, Equatable {
    static let name = "pressure"
    static let removalName: String? = name
    static let key = ConfigKey("pressure", .mapping, "Drop contacts that begin lighter than min.", keys: [
        ConfigKey("min", .number(0...1_000_000), required: true, "The lightest contact taken, in the device's pressure units."),
    ])

    public var min: Double
    public init(min: Double) { self.min = min }

    static func read(_ value: YAMLNode, _ reader: SpecReader) -> Self? {
        guard let f = reader.fields(value, "'pressure'", known: key.keyNames),
              let m = reader.required(f, "min", hint: "the lightest contact taken, in the device's pressure units") else { return nil }
        return reader.bounded(m, "'min'", key["min"]!.numberRange!).map { Self(min: $0) }
    }

    var fact: JSONValue { .object([("min", .number(min))]) }

    func stage(rule: String, display: Size, among all: [any ContactFilterOptions]) -> any TouchFrameFilter {
        PressureFilter(min: min, rule: rule)
    }
}
