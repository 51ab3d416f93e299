/// Turns protocol-A frames (anonymous contacts, re-sent in full every frame) into slot frames, as
/// mtdev does: each reported contact is matched to a contact down in the previous frame and
/// continues in its slot, or takes a free slot; a contact no report continues is lifted.
///
/// Matching is by `ABS_MT_TRACKING_ID` when every contact carries one, otherwise greedily by
/// nearest distance (the closest remaining pair first). Positions are smoothed by the axis fuzz
/// the way the kernel does for slotted devices (protocol A values bypass the kernel's filter).
/// Fixed-size storage: nothing is allocated.
struct ContactMatcher {
    /// Contacts considered per frame; more are dropped.
    static let maximumContacts = 32
    /// The slots contacts are put in: a frame's new contacts take slots that were free before
    /// it, so there is room for a full frame lifting and a full frame landing at once.
    typealias Slots = InlineArray<64, SlotState>

    private(set) var fuzzX: Int32
    private(set) var fuzzY: Int32
    /// The frame's contacts so far, in report order.
    private var reported = InlineArray<32, RawContact>(repeating: RawContact())
    private(set) var reportedCount = 0
    private var allReportedHaveIDs = true
    /// The slots of the contacts down, in the order the last frame reported them.
    private var live = InlineArray<32, UInt8>(repeating: 0)
    private(set) var liveCount = 0
    /// Per slot: the device's tracking ID of the contact in it (a slot's own tracking ID is its index).
    private var deviceIDs = InlineArray<64, Int32>(repeating: -1)
    /// The slots the last `match` changed, in the order to finish them: lifted contacts (in the
    /// order they were down), then the frame's changed contacts in report order.
    private var changed = InlineArray<64, UInt8>(repeating: 0)
    private(set) var changedCount = 0
    /// Slots no contact is in (bit per slot).
    private var freeSlots: UInt64 = .max

    init(fuzz: Int32 = 0, fuzzY: Int32? = nil) {
        fuzzX = fuzz
        self.fuzzY = fuzzY ?? fuzz
        assert(reported.count == Self.maximumContacts && live.count == Self.maximumContacts
               && Slots.count == 2 * Self.maximumContacts && deviceIDs.count == Slots.count && changed.count == Slots.count)
    }

    var isFull: Bool { reportedCount == Self.maximumContacts }

    /// Adds a contact to the frame (at most ``maximumContacts``: check ``isFull``).
    mutating func report(_ contact: RawContact, hasTrackingID: Bool) {
        reported[reportedCount] = contact
        reportedCount += 1
        if !hasTrackingID { allReportedHaveIDs = false }
    }

    /// The `index`th slot ``match(into:)`` changed.
    func changedSlot(_ index: Int) -> Int { Int(changed[index]) }

    /// Writes the frame's contacts into `slots` and starts the next frame: a lifted contact's slot
    /// gets tracking ID -1, a new contact a free slot (its tracking ID the slot's index), a
    /// continued one its values (positions smoothed) if they changed. Finishing the
    /// ``changedSlot(_:)``s in order then reports the frame.
    mutating func match(into slots: inout Slots) {
        let count = reportedCount, liveCount = liveCount
        var liveTaken: UInt64 = 0
        // Per reported contact: the index in `live` of the contact it continues, or -1.
        var assignment = InlineArray<32, Int8>(repeating: -1)
        if allReportedHaveIDs && count > 0 {
            for j in 0..<count {
                for i in 0..<liveCount where liveTaken & 1 << UInt64(i) == 0 && deviceIDs[Int(live[i])] == reported[j].trackingID {
                    liveTaken |= 1 << UInt64(i)
                    assignment[j] = Int8(i)
                    break
                }
            }
        } else {
            for _ in 0..<min(liveCount, count) {
                var best = (i: -1, j: -1, distance: UInt64.max)
                for i in 0..<liveCount where liveTaken & 1 << UInt64(i) == 0 {
                    let old = slots[Int(live[i])].committed
                    for j in 0..<count where assignment[j] < 0 {
                        let distance = Self.squaredDistance(x0: old.x, y0: old.y, x1: reported[j].x, y1: reported[j].y)
                        // The first pair is taken even at the largest distance.
                        if best.i < 0 || distance < best.distance { best = (i, j, distance) }
                    }
                }
                guard best.i >= 0 else { break }
                liveTaken |= 1 << UInt64(best.i)
                assignment[best.j] = Int8(best.i)
            }
        }

        changedCount = 0
        var lifted: UInt64 = 0
        for i in 0..<liveCount where liveTaken & 1 << UInt64(i) == 0 {
            let slot = Int(live[i])
            slots[slot].pending.trackingID = -1
            slots[slot].interrupted = true
            lifted |= 1 << UInt64(slot)
            changed[changedCount] = UInt8(slot)
            changedCount += 1
        }
        // New contacts take slots free before this frame, so a lifted slot is not reused in it.
        var free = freeSlots
        var next = InlineArray<32, UInt8>(repeating: 0)
        for j in 0..<count {
            var values = reported[j]
            let deviceID = values.trackingID
            let slot: Int
            if assignment[j] >= 0 {
                slot = Int(live[Int(assignment[j])])
                let old = slots[slot].committed
                values.x = Self.defuzz(old.x, values.x, fuzzX)
                values.y = Self.defuzz(old.y, values.y, fuzzY)
                values.trackingID = Int32(slot)
                guard values != old || deviceID != deviceIDs[slot] else {
                    next[j] = UInt8(slot)
                    continue
                }
                slots[slot].pending = values
                slots[slot].changed = true
            } else {
                slot = free.trailingZeroBitCount
                free &= free - 1
                values.trackingID = Int32(slot)
                slots[slot].pending = values
                slots[slot].interrupted = true
            }
            deviceIDs[slot] = deviceID
            next[j] = UInt8(slot)
            changed[changedCount] = UInt8(slot)
            changedCount += 1
        }
        freeSlots = free | lifted
        live = next
        self.liveCount = count
        reportedCount = 0
        allReportedHaveIDs = true
    }

    /// Forgets every contact (after they were cancelled) and the frame so far: all slots are free.
    mutating func removeAll() {
        liveCount = 0
        reportedCount = 0
        allReportedHaveIDs = true
        changedCount = 0
        freeSlots = .max
    }

    /// The slot of the `index`th contact down, in the order last reported.
    func liveSlot(_ index: Int) -> Int { Int(live[index]) }

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
