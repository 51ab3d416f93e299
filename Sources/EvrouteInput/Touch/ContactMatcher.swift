/// Gives protocol-A contacts (anonymous, re-sent in full every frame) an identity across frames.
///
/// Each frame's contacts are matched to the contacts down in the previous frame: by
/// `ABS_MT_TRACKING_ID` when every contact carries one, otherwise greedily by nearest distance
/// (the closest remaining pair first). Unmatched old contacts ended, unmatched new ones began,
/// matched ones moved when their values changed. Positions are smoothed by the axis fuzz the
/// way the kernel does for slotted devices (protocol A values bypass the kernel's filter).
/// Works in reused buffers: no allocation once the buffers have grown.
struct ContactMatcher {
    /// Contacts considered per frame; more are dropped.
    static let maximumContacts = 32

    struct Live {
        /// The decoder's contact number; 0 until `assignContact` names a new contact.
        var contact: Int
        var values: RawContact
    }

    enum ChangeKind { case began, moved, ended }

    struct Change {
        var kind: ChangeKind
        var contact: Int
        var values: RawContact
        /// For `began`: where the contact is in `live`, to give it its number.
        var liveIndex: Int
    }

    private(set) var fuzzX: Int32
    private(set) var fuzzY: Int32
    /// The contacts down after the last `match`.
    var live: [Live] = []
    /// What the last `match` changed: ended ones first, then the frame's contacts in report order.
    private(set) var changes: [Change] = []
    private var nextLive: [Live] = []
    private var liveTaken: [Bool] = []
    private var assignment: [Int] = []

    init(fuzz: Int32 = 0, fuzzY: Int32? = nil) {
        fuzzX = fuzz
        self.fuzzY = fuzzY ?? fuzz
        live.reserveCapacity(Self.maximumContacts)
        changes.reserveCapacity(Self.maximumContacts * 2)
        nextLive.reserveCapacity(Self.maximumContacts)
        liveTaken.reserveCapacity(Self.maximumContacts)
        assignment.reserveCapacity(Self.maximumContacts)
    }

    mutating func assignContact(_ contact: Int, toLiveAt index: Int) {
        live[index].contact = contact
    }

    mutating func match(_ reported: [RawContact], byTrackingID: Bool) {
        changes.removeAll(keepingCapacity: true)
        liveTaken.removeAll(keepingCapacity: true)
        liveTaken.append(contentsOf: repeatElement(false, count: live.count))
        assignment.removeAll(keepingCapacity: true)
        assignment.append(contentsOf: repeatElement(-1, count: reported.count))

        if byTrackingID {
            for j in reported.indices {
                for i in live.indices where !liveTaken[i] && live[i].values.trackingID == reported[j].trackingID {
                    liveTaken[i] = true
                    assignment[j] = i
                    break
                }
            }
        } else {
            let pairs = min(live.count, reported.count)
            for _ in 0..<pairs {
                var best = (i: -1, j: -1, distance: UInt64.max)
                for i in live.indices where !liveTaken[i] {
                    for j in reported.indices where assignment[j] < 0 {
                        let distance = Self.squaredDistance(x0: live[i].values.x, y0: live[i].values.y,
                                                            x1: reported[j].x, y1: reported[j].y)
                        // The first pair is taken even at the largest distance.
                        if best.i < 0 || distance < best.distance { best = (i, j, distance) }
                    }
                }
                guard best.i >= 0 else { break }
                liveTaken[best.i] = true
                assignment[best.j] = best.i
            }
        }

        for i in live.indices where !liveTaken[i] {
            changes.append(Change(kind: .ended, contact: live[i].contact, values: live[i].values, liveIndex: -1))
        }
        nextLive.removeAll(keepingCapacity: true)
        for j in reported.indices {
            let i = assignment[j]
            if i >= 0 {
                let old = live[i].values
                var values = reported[j]
                values.x = Self.defuzz(old.x, values.x, fuzzX)
                values.y = Self.defuzz(old.y, values.y, fuzzY)
                nextLive.append(Live(contact: live[i].contact, values: values))
                if values != old {
                    changes.append(Change(kind: .moved, contact: live[i].contact, values: values, liveIndex: nextLive.count - 1))
                }
            } else {
                nextLive.append(Live(contact: 0, values: reported[j]))
                changes.append(Change(kind: .began, contact: 0, values: reported[j], liveIndex: nextLive.count - 1))
            }
        }
        swap(&live, &nextLive)
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
