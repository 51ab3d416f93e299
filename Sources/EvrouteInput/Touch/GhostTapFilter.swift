import EvrouteCore

/// `ghost-taps: { max-duration-ms }`: a new contact is held back for up to `max-duration-ms`
/// (event time). One that lifts before is a ghost tap and is dropped whole (never begun); one
/// that outlives it is delivered, at the first frame at or past the bound, with its held
/// samples in order (its `began` first). A contact cancelled while held is dropped too.
final class GhostTapFilter: TouchFrameFilter {
    let maxDuration: Timestamp.Duration
    let rule: String
    /// The contacts held back, each with its samples so far (the first is its `began`).
    private var held: [(contact: Int, since: Timestamp, samples: [ContactSample])] = []

    init(maxDurationMs: Int, rule: String) {
        self.maxDuration = .milliseconds(Int64(maxDurationMs))
        self.rule = rule
    }

    func filter(_ frame: inout TouchFrameInput, _ filtered: inout [FilteredContact]) {
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
                    filtered.append(FilteredContact(sample, time, device, rule: rule, filter: "ghost-tap"))
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

    /// The first held contact's bound.
    var deadline: Timestamp? {
        guard let first = held.min(by: { $0.since < $1.since }) else { return nil }
        return first.since + maxDuration
    }

    /// A contact held still (no frame from the panel) is delivered when its bound runs out.
    func expire(_ frame: inout TouchFrameInput, _ filtered: inout [FilteredContact]) {
        release(&frame.contacts, at: frame.time)
    }

    /// Contacts held long enough go out, with what was held, in order.
    private func release(_ out: inout [ContactSample], at time: Timestamp) {
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
