import EvrouteCore
import EvrouteInput
import EvrouteJSON

/// `jitter: { hysteresis }`: a move that stays within `hysteresis` display units of the
/// contact's last reported point is not reported (a resting finger's noise); a move past it is
/// reported where it is, and becomes the new reference. Begins, ends and cancels always pass.
struct JitterFilter: TouchFrameFilter {
    let hysteresis: Double
    /// The last reported point of each contact that is down (a few: a list, not a table).
    private var reported: [(contact: Int, point: Point)] = []

    init(hysteresis: Double) {
        self.hysteresis = hysteresis
    }

    mutating func filter(_ frame: inout TouchFrameInput, _ filtered: inout [FilteredContact]) {
        frame.removeContacts { sample in
            let i = reported.firstIndex { $0.contact == sample.contact }
            switch sample.change {
            case .began:
                if let i { reported[i].point = sample.location } else { reported.append((sample.contact, sample.location)) }
                return false
            case .ended, .cancelled:
                if let i { reported.remove(at: i) }
                return false
            case .moved:
                guard let i else {
                    reported.append((sample.contact, sample.location))
                    return false
                }
                let last = reported[i].point
                let dx = sample.location.x - last.x, dy = sample.location.y - last.y
                if dx * dx + dy * dy <= hysteresis * hysteresis { return true }
                reported[i].point = sample.location
                return false
            }
        }
    }
}

/// `jitter: { hysteresis }`; `jitter: {}` takes the default.
public struct JitterFilterOptions: ContactFilterType, Equatable {
    /// The hysteresis when not given (display units).
    public static let defaultHysteresis = 2.0
    static let removalName: String? = nil
    static let key = ConfigKey("jitter", .mapping, "Do not report moves within hysteresis of the last reported point ({} takes the default).", keys: [
        ConfigKey("hysteresis", .number(0.1...100), default: LayoutLimits.text(defaultHysteresis), "The distance in display units."),
    ])

    public var hysteresis: Double
    public init(hysteresis: Double = defaultHysteresis) { self.hysteresis = hysteresis }

    static func read(_ value: YAMLNode, _ reader: SpecReader) -> Self? {
        guard let f = reader.fields(value, "'jitter'", known: key.keyNames) else { return nil }
        guard let h = f["hysteresis"] else { return Self() }
        return reader.bounded(h, "'hysteresis'", key["hysteresis"]!.numberRange!).map { Self(hysteresis: $0) }
    }

    var fact: JSONValue { .object([("hysteresis", .number(hysteresis))]) }

    func stage(rule: String, display: Size, among all: [any ContactFilterOptions]) -> any TouchFrameFilter {
        JitterFilter(hysteresis: hysteresis)
    }
}
