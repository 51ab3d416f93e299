extension Router {
    struct TouchKey: Hashable {
        var device: DeviceID
        var contact: Int

        /// One word to hash instead of two (device and contact numbers are small).
        func hash(into hasher: inout Hasher) {
            hasher.combine(UInt64(truncatingIfNeeded: device.rawValue) &<< 32 ^ UInt64(truncatingIfNeeded: contact))
        }
    }

    struct RegionKey: Hashable {
        var layout: ObjectIdentifier
        var region: Int
    }

    struct ExclusiveState {
        var owner: RegionKey?
        var touches = 0
    }

    struct TapMemory {
        var location: Point
        var time: Timestamp
        var count: Int
    }

    /// A touch the router follows, with what its phases reuse.
    struct LiveTouch {
        var touch: Touch
        /// The info of its device as the router's devices have it, kept here so that a move
        /// needs no second lookup (``Router/addDevice(_:time:)`` refreshes it).
        var device: DeviceInfo?
        /// Its state among its recognizers, when it is not blocked and its region (or an
        /// ancestor) has any; the same object as in ``GestureTracking/touches``.
        var gesture: GestureTouch?
    }
}

/// The router's touches: the active ones, those a forwarder took, the contacts a layout change
/// orphaned, and what decides whether a new touch may bind (per-region counts for
/// `multitouch: false`, per-display exclusive owners) and its tap count (per-display tap memory).
///
/// Invariants: a region's count is the number of its active unblocked touches (absent at 0); a
/// display's exclusive count is the number of its active unblocked touches in some region, and
/// its owner is set only while that count is positive; touch ids are handed out increasing.
struct TouchState {
    typealias TouchKey = Router.TouchKey
    typealias RegionKey = Router.RegionKey

    /// Active touches: the one lookup a moved sample costs (none while its contact is
    /// remembered, see ``TouchTable``).
    var table = TouchTable(capacity: 32)
    /// Touches a forwarding handler took (``HandlerBinding/forwards``), by touch id: every later
    /// phase goes to that handler, and to nobody else (the delayed phases of a recognizer's
    /// touches too: they are copies, so the binding is kept here, not in the touch).
    var forwarded: [Int: Router.Taker] = [:]
    var regionCounts: [RegionKey: Int] = [:]
    var exclusive: [Router.ExclusiveState]
    var lastTap: [Router.TapMemory?]
    var nextID = 1
    /// Contacts whose touch a layout change cancelled while the finger stayed down: their
    /// moves are ignored until it lifts (a cancelled touch does not come back as a new one).
    var orphaned: Set<TouchKey> = []

    init(displays: Int) {
        exclusive = Array(repeating: Router.ExclusiveState(), count: displays)
        lastTap = Array(repeating: nil, count: displays)
        regionCounts.reserveCapacity(32)
    }

    /// Whether a new touch on `display` may bind to `region` (of the current layout), and if
    /// so, counts it: blocked by another region's exclusive owner, by an exclusive region while
    /// the display has other touches, or by a region without multitouch that has one already.
    mutating func admit(_ region: RegionKey, display: Int, exclusive isExclusive: Bool, multitouch: Bool) -> TouchBlock? {
        let ex = exclusive[display]
        if let owner = ex.owner, owner != region { return .exclusive }
        if isExclusive, ex.touches > 0, ex.owner != region { return .exclusive }
        if !multitouch, regionCounts[region, default: 0] > 0 { return .multitouch }
        regionCounts[region, default: 0] += 1
        exclusive[display].touches += 1
        if isExclusive { exclusive[display].owner = region }
        return nil
    }

    /// An admitted touch ended: its region (nil: gone from the current layout) and display
    /// (nil: gone) count it no more.
    mutating func release(_ region: RegionKey?, display: Int?) {
        if let region, let n = regionCounts[region] { regionCounts[region] = n > 1 ? n - 1 : nil }
        if let d = display {
            exclusive[d].touches = max(0, exclusive[d].touches - 1)
            if exclusive[d].touches == 0 { exclusive[d].owner = nil }
        }
    }

    /// The tap count of a touch beginning at `location` on `display`: one more than the last
    /// tap's when it is near enough, soon enough, else 1.
    func tapCount(display: Int, at location: Point, time: Timestamp, policy: TapPolicy) -> Int {
        if let last = lastTap[display], time - last.time <= policy.multiTapInterval,
           last.location.distance(to: location) <= policy.multiTapDistance {
            return last.count + 1
        }
        return 1
    }

    /// The next touch id.
    mutating func takeID() -> Int {
        defer { nextID += 1 }
        return nextID
    }
}
