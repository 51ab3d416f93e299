import EvrouteCore

/// `ignore: [[x, y, w, h], …]`: a contact that begins in one of the rectangles (a bezel, a
/// corner that taps by itself) is dropped whole; one that begins elsewhere and moves in is kept.
final class IgnoreFilter: TouchFrameFilter {
    let areas: [Rect]
    let rule: String
    private var removed = RemovedContacts()

    init(_ areas: [Rect], rule: String) {
        self.areas = areas
        self.rule = rule
    }

    func filter(_ frame: inout TouchFrameInput, _ filtered: inout [FilteredContact]) {
        let (time, device) = (frame.time, frame.device)
        var kept: [ContactSample] = []
        kept.reserveCapacity(frame.contacts.count)
        for sample in frame.contacts {
            if removed.drops(sample) { continue }
            if sample.change == .began, areas.contains(where: { $0.contains(sample.location) }) {
                removed.insert(sample.contact)
                filtered.append(FilteredContact(sample, time, device, rule: rule, filter: "ignore"))
                continue
            }
            kept.append(sample)
        }
        frame.contacts = kept
    }
}
