import EvrouteCore
import EvrouteInput
import EvrouteJSON

/// `palm: { tool, size }`: a contact that reports MT_TOOL_PALM (with `tool`) or a touch major
/// of at least `size` is a palm. One that is a palm when it begins is never begun (dropped
/// whole); one that turns into a palm after it began is cancelled there, and its later samples
/// are dropped.
struct PalmFilter: TouchFrameFilter {
    static let toolPalm = 2   // MT_TOOL_PALM
    private let fixed: FixedSettings<(spec: PalmFilterOptions, rule: String)>
    private var removed = RemovedContacts()
    var spec: PalmFilterOptions { fixed.value.spec }
    var rule: String { fixed.value.rule }

    init(_ spec: PalmFilterOptions, rule: String) {
        fixed = FixedSettings((spec, rule))
    }

    func isPalm(_ sample: ContactSample) -> Bool {
        if spec.tool, sample.toolType == Self.toolPalm { return true }
        if let size = spec.size, let major = sample.majorRadius, major >= size { return true }
        return false
    }

    mutating func filter(_ frame: inout TouchFrameInput, _ filtered: inout [FilteredContact]) {
        let (time, device) = (frame.time, frame.device)
        var index = 0
        while index < frame.contacts.count {
            let sample = frame.contacts[index]
            if removed.drops(sample) { frame.contacts.remove(at: index); continue }
            guard sample.change == .began || sample.change == .moved, isPalm(sample) else { index += 1; continue }
            removed.insert(sample.contact)
            filtered.append(FilteredContact(sample, time, device, rule: rule, filter: PalmFilterOptions.name))
            if sample.change == .began {
                frame.contacts.remove(at: index)
            } else {
                frame.contacts[index].change = .cancelled
                index += 1
            }
        }
    }
}

/// `palm: { tool, size }`: a contact is a palm when it reports MT_TOOL_PALM (`tool: true`) or a
/// touch major (display units) of at least `size`. `tool: false` without a size: off.
public struct PalmFilterOptions: ContactFilterType, Equatable {
    static let name = "palm"
    static let removalName: String? = name
    static let key = ConfigKey("palm", .mapping, "Drop palms: contacts the device reports as MT_TOOL_PALM, or at least size wide.", keys: [
        ConfigKey("tool", .boolean, default: "true", "Drop contacts reported with MT_TOOL_PALM."),
        ConfigKey("size", .number(1...10_000), "The smallest touch major, in display units, that is a palm."),
    ])

    public var tool: Bool
    public var size: Double?
    public init(tool: Bool = true, size: Double? = nil) { self.tool = tool; self.size = size }

    static func read(_ value: YAMLNode, _ reader: SpecReader) -> Self? {
        guard let f = reader.fields(value, "'palm'", known: key.keyNames) else { return nil }
        let tool = f["tool"].flatMap { reader.bool($0, "'tool'") } ?? true
        var size: Double?
        if let s = f["size"] { size = reader.bounded(s, "'size'", key["size"]!.numberRange!) }
        return tool || size != nil ? Self(tool: tool, size: size) : nil
    }

    var fact: JSONValue {
        var p: [(String, JSONValue)] = [("tool", .bool(tool))]
        if let size { p.append(("size", .number(size))) }
        return .object(p)
    }

    func stage(rule: String, display: Size, among all: [any ContactFilterOptions]) -> any TouchFrameFilter {
        PalmFilter(self, rule: rule)
    }
}
