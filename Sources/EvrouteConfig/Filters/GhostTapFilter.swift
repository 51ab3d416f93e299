import EvrouteCore
import EvrouteInput
import EvrouteJSON

/// `ghost-taps: { max-duration-ms }`: a new contact is held back for up to `max-duration-ms`
/// (event time). One that lifts before is a ghost tap and is dropped whole (never begun); one
/// that outlives it is delivered, at the first frame at or past the bound, with its held
/// samples in order (its `began` first). A contact cancelled while held is dropped too.
struct GhostTapFilter: TouchFrameFilter {
    private let fixed: FixedSettings<(maxDuration: Timestamp.Duration, rule: String)>
    /// The contacts held back, each with its samples so far (the first is its `began`).
    private var held: [(contact: Int, since: Timestamp, samples: [ContactSample])] = []
    var maxDuration: Timestamp.Duration { fixed.value.maxDuration }
    var rule: String { fixed.value.rule }

    init(maxDurationMs: Int, rule: String) {
        fixed = FixedSettings((.milliseconds(Int64(maxDurationMs)), rule))
    }

    mutating func filter(_ frame: inout TouchFrameInput, _ filtered: inout [FilteredContact]) {
        let (time, device) = (frame.time, frame.device)
        if held.isEmpty, !frame.contacts.contains(where: { $0.change == .began }) { return }
        var out: [ContactSample] = []
        out.reserveCapacity(frame.contacts.count)
        for sample in frame.contacts {
            if sample.change == .began {
                held.append((sample.contact, frame.time, [sample]))
                continue
            }
            guard let i = held.firstIndex(where: { $0.contact == sample.contact }) else {
                out.append(sample)
                continue
            }
            if sample.change == .ended || sample.change == .cancelled {
                if frame.time - held[i].since < maxDuration {
                    // A ghost tap: it never began.
                    filtered.append(FilteredContact(sample, time, device, rule: rule, filter: GhostTapFilterOptions.name))
                } else {
                    out.append(contentsOf: held[i].samples)
                    out.append(sample)
                }
                held.remove(at: i)
            } else {
                held[i].samples.append(sample)
            }
        }
        release(&out, at: frame.time)
        frame.contacts = out
    }

    var hasDeadline: Bool { true }

    /// The first held contact's bound.
    var deadline: Timestamp? {
        guard let first = held.min(by: { $0.since < $1.since }) else { return nil }
        return first.since + maxDuration
    }

    /// A contact held still (no frame from the panel) is delivered when its bound runs out.
    mutating func expire(_ frame: inout TouchFrameInput, _ filtered: inout [FilteredContact]) {
        release(&frame.contacts, at: frame.time)
    }

    /// Contacts held long enough go out, with what was held, in order.
    private mutating func release(_ out: inout [ContactSample], at time: Timestamp) {
        var i = 0
        while i < held.count {
            if time - held[i].since >= maxDuration {
                out.append(contentsOf: held[i].samples)
                held.remove(at: i)
            } else {
                i += 1
            }
        }
    }
}

/// `ghost-taps: { max-duration-ms }`; `ghost-taps: {}` takes the default bound.
public struct GhostTapFilterOptions: ContactFilterType, Equatable {
    /// The bound when `max-duration-ms` is not given (milliseconds): below the shortest real
    /// tap measured in the shared recordings (docs/config.md, "Noisy panels").
    public static let defaultMaxDurationMs = 20
    static let name = "ghost-tap"
    static let removalName: String? = name
    static let key = ConfigKey("ghost-taps", .mapping, "Drop contacts that lift within max-duration-ms of touching down ({} takes the default).", keys: [
        ConfigKey("max-duration-ms", .integer(1...1000), default: String(defaultMaxDurationMs), "The longest contact dropped, in milliseconds."),
    ])

    public var maxDurationMs: Int
    public init(maxDurationMs: Int = defaultMaxDurationMs) { self.maxDurationMs = maxDurationMs }

    static func read(_ value: YAMLNode, _ reader: SpecReader) -> Self? {
        guard let f = reader.fields(value, "'ghost-taps'", known: key.keyNames) else { return nil }
        guard let m = f["max-duration-ms"] else { return Self() }
        guard let ms = reader.integer(m, "'max-duration-ms'") else { return Self() }
        let range = key["max-duration-ms"]!.integerRange!
        guard range.contains(ms) else {
            reader.error(m, .invalidValue, "'max-duration-ms' must be a whole number of milliseconds from \(range.lowerBound) to \(range.upperBound), found \(ms)")
            return nil
        }
        return Self(maxDurationMs: ms)
    }

    var fact: JSONValue { .object([("max-duration-ms", .int(maxDurationMs))]) }

    func stage(rule: String, display: Size, among all: [any ContactFilterOptions]) -> any TouchFrameFilter {
        GhostTapFilter(maxDurationMs: maxDurationMs, rule: rule)
    }
}
