import EvrouteCore

/// `palm: { tool, size }`: a contact that reports MT_TOOL_PALM (with `tool`) or a touch major
/// of at least `size` is a palm. One that is a palm when it begins is never begun (dropped
/// whole); one that turns into a palm after it began is cancelled there, and its later samples
/// are dropped.
final class PalmFilter: TouchFrameFilter {
    static let toolPalm = 2   // MT_TOOL_PALM
    let spec: TouchFilterSpec.Palm
    let rule: String
    private var removed = RemovedContacts()

    init(_ spec: TouchFilterSpec.Palm, rule: String) {
        self.spec = spec
        self.rule = rule
    }

    func isPalm(_ sample: ContactSample) -> Bool {
        if spec.tool, sample.toolType == Self.toolPalm { return true }
        if let size = spec.size, let major = sample.majorRadius, major >= size { return true }
        return false
    }

    func filter(_ frame: inout TouchFrameInput, _ filtered: inout [FilteredContact]) {
        let (time, device) = (frame.time, frame.device)
        var index = 0
        while index < frame.contacts.count {
            let sample = frame.contacts[index]
            if removed.drops(sample) { frame.contacts.remove(at: index); continue }
            guard sample.change == .began || sample.change == .moved, isPalm(sample) else { index += 1; continue }
            removed.insert(sample.contact)
            filtered.append(FilteredContact(sample, time, device, rule: rule, filter: "palm"))
            if sample.change == .began {
                frame.contacts.remove(at: index)
            } else {
                frame.contacts[index].change = .cancelled
                index += 1
            }
        }
    }
}
