import EvrouteCore

/// `pressure: { min }`: a contact that begins lighter than `min` (raw device units) is dropped
/// whole (a panel's faint phantom contacts). A contact with no pressure reported is kept.
final class PressureFilter: TouchFrameFilter {
    let min: Double
    let rule: String
    private var removed = RemovedContacts()

    init(min: Double, rule: String) {
        self.min = min
        self.rule = rule
    }

    func filter(_ frame: inout TouchFrameInput, _ filtered: inout [FilteredContact]) {
        let (time, device) = (frame.time, frame.device)
        frame.contacts.removeAll { sample in
            if removed.drops(sample) { return true }
            guard sample.change == .began, let p = sample.pressure, p < min else { return false }
            removed.insert(sample.contact)
            filtered.append(FilteredContact(sample, time, device, rule: rule, filter: "pressure"))
            return true
        }
    }
}
