import EvrouteCore
import EvrouteInput
import EvrouteJSON

/// `stuck-after-s`: a contact that has not moved farther than the jitter hysteresis for this
/// long (dirt on an IR frame, a contact that never lifts) is cancelled, on the event clock even
/// when no frame comes (the session's deadline); what the device says of it afterwards is dropped.
struct StuckFilter: TouchFrameFilter {
    private struct Down {
        var contact: Int
        /// Where it was when it last moved past the hysteresis, and when.
        var anchor: Point
        var since: Timestamp
        var last: Point
    }
    private let fixed: FixedSettings<(after: Timestamp.Duration, hysteresis: Double, rule: String)>
    private var down: [Down] = []
    private var removed = RemovedContacts()
    var after: Timestamp.Duration { fixed.value.after }
    var hysteresis: Double { fixed.value.hysteresis }
    var rule: String { fixed.value.rule }

    init(after seconds: Double, hysteresis: Double, rule: String) {
        fixed = FixedSettings((.seconds(seconds), hysteresis, rule))
    }

    var hasDeadline: Bool { true }

    var deadline: Timestamp? {
        var next: Timestamp?
        for d in down where next.map({ d.since + after < $0 }) ?? true { next = d.since + after }
        return next
    }

    mutating func filter(_ frame: inout TouchFrameInput, _ filtered: inout [FilteredContact]) {
        var cancels: [ContactSample] = []
        cancelStuck(at: frame.time, frame.device, into: &cancels, &filtered)
        let (time, hysteresis) = (frame.time, self.hysteresis)
        frame.removeContacts { sample in
            if removed.drops(sample) { return true }
            switch sample.change {
            case .began:
                down.removeAll { $0.contact == sample.contact }
                down.append(Down(contact: sample.contact, anchor: sample.location, since: time, last: sample.location))
            case .moved:
                if let i = down.firstIndex(where: { $0.contact == sample.contact }) {
                    let dx = sample.location.x - down[i].anchor.x, dy = sample.location.y - down[i].anchor.y
                    if dx * dx + dy * dy > hysteresis * hysteresis {
                        down[i].anchor = sample.location
                        down[i].since = time
                    }
                    down[i].last = sample.location
                } else {
                    down.append(Down(contact: sample.contact, anchor: sample.location, since: time, last: sample.location))
                }
            case .ended, .cancelled:
                if let i = down.firstIndex(where: { $0.contact == sample.contact }) { down.remove(at: i) }
            }
            return false
        }
        // What it cancels comes before the frame's own samples.
        if !cancels.isEmpty { frame.contacts.insert(contentsOf: cancels, at: 0) }
    }

    mutating func expire(_ frame: inout TouchFrameInput, _ filtered: inout [FilteredContact]) {
        cancelStuck(at: frame.time, frame.device, into: &frame.contacts, &filtered)
    }

    private mutating func cancelStuck(at time: Timestamp, _ device: DeviceID, into out: inout [ContactSample],
                                      _ filtered: inout [FilteredContact]) {
        let (after, rule) = (self.after, self.rule)
        guard !down.isEmpty, down.contains(where: { $0.since + after <= time }) else { return }
        down.removeAll { d in
            guard d.since + after <= time else { return false }
            out.append(ContactSample(contact: d.contact, change: .cancelled, location: d.last))
            filtered.append(FilteredContact(time: time, deviceID: device, device: rule, filter: StuckFilterOptions.name, location: d.last))
            removed.insert(d.contact)
            return true
        }
    }
}

/// `stuck-after-s: SECONDS`; a contact counts as still while within the jitter filter's
/// hysteresis (its default when no jitter filter is configured).
public struct StuckFilterOptions: ContactFilterType, Equatable {
    static let name = "stuck"
    static let removalName: String? = name
    static let key = ConfigKey("stuck-after-s", .number(1...86_400), "Cancel a contact that has not moved past the jitter hysteresis for this many seconds.")

    public var seconds: Double
    public init(seconds: Double) { self.seconds = seconds }

    static func read(_ value: YAMLNode, _ reader: SpecReader) -> Self? {
        reader.bounded(value, "'stuck-after-s'", key.numberRange!).map { Self(seconds: $0) }
    }

    var fact: JSONValue { .number(seconds) }

    func stage(rule: String, display: Size, among all: [any ContactFilterOptions]) -> any TouchFrameFilter {
        let jitter = all.lazy.compactMap { $0 as? JitterFilterOptions }.first
        return StuckFilter(after: seconds, hysteresis: jitter?.hysteresis ?? JitterFilterOptions.defaultHysteresis, rule: rule)
    }
}
