/// Turns protocol-A frames (anonymous contacts, re-sent in full every frame) into slot frames, as
/// mtdev does: each reported contact is matched to a contact down in the previous frame and
/// continues in its slot, or takes a free slot; a contact no report continues is lifted.
///
/// Matching is by `ABS_MT_TRACKING_ID` when every contact carries one, otherwise greedily by
/// nearest distance (the closest remaining pair first). Positions are smoothed by the axis fuzz
/// the way the kernel does for slotted devices (protocol A values bypass the kernel's filter).
/// Works in reused buffers: no allocation once they have grown.
struct ContactMatcher {
    /// Contacts considered per frame; more are dropped.
    static let maximumContacts = 32
    /// A frame's new contacts take slots that were free before it: room for a full frame
    /// lifting and a full frame landing at once.
    static let slotCount = 2 * maximumContacts

    struct Live {
        var slot: Int
        /// As last reported (positions smoothed), with the device's tracking ID.
        var values: RawContact
    }

    private(set) var fuzzX: Int32
    private(set) var fuzzY: Int32
    /// The contacts down after the last `match`, in that frame's report order.
    private(set) var live: [Live] = []
    /// The slots of the contacts the last `match` lifted, in their former order.
    private(set) var lifted: [Int] = []
    private var nextLive: [Live] = []
    /// Per reported contact: the index in `live` of the contact it continues, or -1.
    private var assignment: [Int] = []
    /// Slots no contact is in (bit per slot).
    private var freeSlots: UInt64 = .max

    init(fuzz: Int32 = 0, fuzzY: Int32? = nil) {
        fuzzX = fuzz
        self.fuzzY = fuzzY ?? fuzz
        live.reserveCapacity(Self.maximumContacts)
        lifted.reserveCapacity(Self.maximumContacts)
        nextLive.reserveCapacity(Self.maximumContacts)
        assignment.reserveCapacity(Self.maximumContacts)
    }

    /// Writes one frame's reported contacts (at most ``maximumContacts``) into `slots` (of
    /// ``slotCount``): a lifted contact's slot gets tracking ID -1, a new contact a free slot
    /// with the slot's index as its tracking ID, a continued one its values (positions
    /// smoothed) if they changed. Finishing ``lifted``, then ``live``'s slots reports the frame:
    /// ended ones first, then the frame's contacts in report order.
    mutating func match(_ reported: [RawContact], byTrackingID: Bool, into slots: inout [SlotState]) {
        var liveTaken: UInt64 = 0
        assignment.removeAll(keepingCapacity: true)
        assignment.append(contentsOf: repeatElement(-1, count: reported.count))

        if byTrackingID {
            for j in reported.indices {
                for i in live.indices where liveTaken & 1 << UInt64(i) == 0 && live[i].values.trackingID == reported[j].trackingID {
                    liveTaken |= 1 << UInt64(i)
                    assignment[j] = i
                    break
                }
            }
        } else {
            let pairs = min(live.count, reported.count)
            for _ in 0..<pairs {
                var best = (i: -1, j: -1, distance: UInt64.max)
                for i in live.indices where liveTaken & 1 << UInt64(i) == 0 {
                    for j in reported.indices where assignment[j] < 0 {
                        let distance = Self.squaredDistance(x0: live[i].values.x, y0: live[i].values.y,
                                                            x1: reported[j].x, y1: reported[j].y)
                        // The first pair is taken even at the largest distance.
                        if best.i < 0 || distance < best.distance { best = (i, j, distance) }
                    }
                }
                guard best.i >= 0 else { break }
                liveTaken |= 1 << UInt64(best.i)
                assignment[best.j] = best.i
            }
        }

        lifted.removeAll(keepingCapacity: true)
        for i in live.indices where liveTaken & 1 << UInt64(i) == 0 {
            let slot = live[i].slot
            slots[slot].pending.trackingID = -1
            slots[slot].interrupted = true
            lifted.append(slot)
        }
        nextLive.removeAll(keepingCapacity: true)
        // New contacts take slots free before this frame, so a lifted slot is not reused in it.
        var free = freeSlots
        for j in reported.indices {
            let i = assignment[j]
            if i >= 0 {
                let old = live[i]
                var values = reported[j]
                values.x = Self.defuzz(old.values.x, values.x, fuzzX)
                values.y = Self.defuzz(old.values.y, values.y, fuzzY)
                nextLive.append(Live(slot: old.slot, values: values))
                if values != old.values {
                    values.trackingID = Int32(old.slot)
                    slots[old.slot].pending = values
                    slots[old.slot].changed = true
                }
            } else {
                let slot = free.trailingZeroBitCount
                free &= free - 1
                nextLive.append(Live(slot: slot, values: reported[j]))
                var values = reported[j]
                values.trackingID = Int32(slot)
                slots[slot].pending = values
                slots[slot].interrupted = true
            }
        }
        for slot in lifted { free |= 1 << UInt64(slot) }
        freeSlots = free
        swap(&live, &nextLive)
    }

    /// Forgets every contact (after they were cancelled): all slots are free.
    mutating func removeAll() {
        live.removeAll(keepingCapacity: true)
        lifted.removeAll(keepingCapacity: true)
        freeSlots = .max
    }

    /// The squared distance between two device points, for any Int32 coordinates: each
    /// axis difference (at most 2^32 − 1) squared fits a UInt64, their sum saturates at
    /// `UInt64.max` (two contacts that far apart compare equal, which only decides ties).
    @inline(__always)
    static func squaredDistance(x0: Int32, y0: Int32, x1: Int32, y1: Int32) -> UInt64 {
        let dx = (Int64(x0) - Int64(x1)).magnitude, dy = (Int64(y0) - Int64(y1)).magnitude
        let (sum, overflow) = (dx * dx).addingReportingOverflow(dy * dy)
        return overflow ? .max : sum
    }

    /// The kernel's `input_defuzz_abs_event`: small changes are damped, tiny ones dropped.
    static func defuzz(_ old: Int32, _ value: Int32, _ fuzz: Int32) -> Int32 {
        guard fuzz > 0 else { return value }
        let old = Int64(old), value64 = Int64(value), fuzz = Int64(fuzz)
        if value64 > old - fuzz / 2 && value64 < old + fuzz / 2 { return Int32(old) }
        if value64 > old - fuzz && value64 < old + fuzz { return Int32((old * 3 + value64) / 4) }
        if value64 > old - fuzz * 2 && value64 < old + fuzz * 2 { return Int32((old + value64) / 2) }
        return value
    }
}
