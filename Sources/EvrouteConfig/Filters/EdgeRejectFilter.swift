import EvrouteCore
import EvrouteInput
import EvrouteJSON

/// `edge-reject: { margin }`: a contact that begins within `margin` display units of its
/// display's edge (a bezel resting on the panel's border) is dropped whole, as `ignore` drops
/// one; a contact that begins farther in and then moves near the edge is kept.
struct EdgeRejectFilter: TouchFrameFilter {
    private let fixed: FixedSettings<(margin: Double, display: Size, rule: String)>
    private var removed = RemovedContacts()
    var margin: Double { fixed.value.margin }
    var display: Size { fixed.value.display }
    var rule: String { fixed.value.rule }

    init(margin: Double, display: Size, rule: String) {
        fixed = FixedSettings((margin, display, rule))
    }

    func nearEdge(_ p: Point) -> Bool {
        p.x < margin || p.y < margin || p.x > display.width - margin || p.y > display.height - margin
    }

    mutating func filter(_ frame: inout TouchFrameInput, _ filtered: inout [FilteredContact]) {
        let (time, device) = (frame.time, frame.device)
        frame.removeContacts { sample in
            if removed.drops(sample) { return true }
            guard sample.change == .began, nearEdge(sample.location) else { return false }
            removed.insert(sample.contact)
            filtered.append(FilteredContact(sample, time, device, rule: rule, filter: EdgeRejectFilterOptions.name))
            return true
        }
    }
}

/// `edge-reject: { margin }`, in display units: more than 0, less than half the display's
/// smaller side (else no contact could begin anywhere).
public struct EdgeRejectFilterOptions: ContactFilterType {
    static let name = "edge-reject"
    static let removalName: String? = name
    static let key = ConfigKey("edge-reject", .mapping, "Drop contacts that begin within margin of the display's edge (a bezel resting on the panel's border).", keys: [
        ConfigKey("margin", .number(0...LayoutLimits.coordinate), required: true,
                  "The distance from each edge, in display units: more than 0, less than half the display's smaller side."),
    ])

    public var margin: Double
    /// Where `margin` was written (the display check's errors).
    var place: SourceLocation?
    public init(margin: Double) { self.margin = margin }

    public func isEqual(to other: any ContactFilterOptions) -> Bool { (other as? Self)?.margin == margin }

    static func read(_ value: YAMLNode, _ reader: SpecReader) -> Self? {
        guard let f = reader.fields(value, "'edge-reject'", known: key.keyNames),
              let m = reader.required(f, "margin", hint: "the distance from the display's edges, in display units"),
              let margin = reader.number(m, "'margin'") else { return nil }
        guard margin > 0, margin <= LayoutLimits.coordinate else {
            reader.error(m, .invalidValue, "'margin' must be a distance in display units, more than 0, found \(reader.render(m))")
            return nil
        }
        var options = Self(margin: margin)
        options.place = reader.location(m)
        return options
    }

    func check(display: DisplaySpec, _ reader: SpecReader) {
        let half = min(display.size.width, display.size.height) / 2
        guard margin >= half else { return }
        reader.error(at: place, .invalidValue,
                     "'margin' must be less than half the smaller side of display '\(display.name)' (\(LayoutLimits.text(display.size.width))x\(LayoutLimits.text(display.size.height)): less than \(LayoutLimits.text(half))), found \(LayoutLimits.text(margin))")
    }

    var fact: JSONValue { .object([("margin", .number(margin))]) }

    func stage(rule: String, display: Size, among all: [any ContactFilterOptions]) -> any TouchFrameFilter {
        EdgeRejectFilter(margin: margin, display: display, rule: rule)
    }
}
