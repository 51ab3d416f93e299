import EvrouteCore
import EvrouteInput
import EvrouteJSON

/// `ignore: [[x, y, w, h], …]`: a contact that begins in one of the rectangles (a bezel, a
/// corner that taps by itself) is dropped whole; one that begins elsewhere and moves in is kept.
struct IgnoreFilter: TouchFrameFilter {
    private let fixed: FixedSettings<(areas: [Rect], rule: String)>
    private var removed = RemovedContacts()
    var areas: [Rect] { fixed.value.areas }
    var rule: String { fixed.value.rule }

    init(_ areas: [Rect], rule: String) {
        fixed = FixedSettings((areas, rule))
    }

    mutating func filter(_ frame: inout TouchFrameInput, _ filtered: inout [FilteredContact]) {
        let (time, device) = (frame.time, frame.device)
        frame.removeContacts { sample in
            if removed.drops(sample) { return true }
            guard sample.change == .began, areas.contains(where: { $0.contains(sample.location) }) else { return false }
            removed.insert(sample.contact)
            filtered.append(FilteredContact(sample, time, device, rule: rule, filter: IgnoreFilterOptions.name))
            return true
        }
    }
}

/// `ignore: [[x, y, width, height], …]`, in display units; no area: off.
public struct IgnoreFilterOptions: ContactFilterType, Equatable {
    static let name = "ignore"
    static let removalName: String? = name
    static let key = ConfigKey("ignore", .list(of: "[x, y, width, height]"), "Areas in display units where a contact that begins there is dropped whole.")

    public var areas: [Rect]
    public init(_ areas: [Rect]) { self.areas = areas }

    static func read(_ value: YAMLNode, _ reader: SpecReader) -> Self? {
        guard let list = reader.list(value, "'ignore'") else { return nil }
        var areas: [Rect] = []
        for area in list {
            guard let n = reader.numbers(area, "each area of 'ignore'", count: 4,
                                         shape: "[x, y, width, height] in display units, width and height > 0",
                                         range: LayoutLimits.coordinates) else { continue }
            if n[2] > 0 && n[3] > 0 { areas.append(Rect(x: n[0], y: n[1], width: n[2], height: n[3])) }
            else { reader.error(area, .invalidValue, "each area of 'ignore' must be [x, y, width, height] with width and height > 0, found \(reader.render(area))") }
        }
        return areas.isEmpty ? nil : Self(areas)
    }

    var fact: JSONValue { .array(areas.map { r in .array([r.minX, r.minY, r.width, r.height].map { .number($0) }) }) }

    func stage(rule: String, display: Size, among all: [any ContactFilterOptions]) -> any TouchFrameFilter {
        IgnoreFilter(areas, rule: rule)
    }
}
