/// The router's active touches by device and contact: a dictionary, with a memo of where the
/// last contacts looked up are.
///
/// Every sample of a moving finger looks its touch up, and hashing the key (SipHash, through
/// `Hasher`) costs more than the rest of the lookup. A dictionary index stays valid until an
/// entry is added or removed, so the table remembers, per contact (its low bits), the key and
/// index it last found, stamped with the table's generation, which every insertion and removal
/// bumps: a contact found again before the table changes costs a comparison. Up to sixteen
/// fingers of a frame whose contact numbers differ in their low four bits all hit (contact
/// numbers are given out in turn, so a hand's fingers do; with four entries, the ten fingers
/// of a recorded 22-inch screen missed more often than they hit). A table of keys searched in
/// turn, tried instead, saved as much on the live path but was slower per move in the moved
/// benchmark, for no reason found in its code (docs/performance.md).
struct TouchTable {
    typealias Index = Dictionary<Router.TouchKey, Router.LiveTouch>.Index

    private(set) var dictionary: [Router.TouchKey: Router.LiveTouch] = [:]

    private struct Memo {
        var key: Router.TouchKey
        var index: Index
        var generation: UInt64
    }

    /// Direct-mapped by the contact's low bits.
    private var memo: [Memo?] = Array(repeating: nil, count: TouchTable.memoSize)
    private static let memoSize = 16
    /// Bumped by every insertion and removal (indices before it may be stale).
    private var generation: UInt64 = 0

    init(capacity: Int) { dictionary.reserveCapacity(capacity) }

    var isEmpty: Bool { dictionary.isEmpty }
    var count: Int { dictionary.count }
    var keys: Dictionary<Router.TouchKey, Router.LiveTouch>.Keys { dictionary.keys }
    var values: Dictionary<Router.TouchKey, Router.LiveTouch>.Values { dictionary.values }
    var indices: Dictionary<Router.TouchKey, Router.LiveTouch>.Indices { dictionary.indices }

    /// The key at `i`.
    func key(at i: Index) -> Router.TouchKey { dictionary.keys[i] }

    /// The touch of `key`, if active.
    subscript(key: Router.TouchKey) -> Router.LiveTouch? { dictionary[key] }

    /// The entry at `i` (an index from ``index(forKey:)`` or ``indices``, before any
    /// insertion or removal), read or changed in place.
    subscript(i: Index) -> Router.LiveTouch {
        get { dictionary.values[i] }
        _modify { yield &dictionary.values[i] }
    }

    /// Applies a moved sample to the touch at `i` in place (``Touch/apply(_:time:)``) and, when
    /// it moved, returns what its event needs — without copying the entry out whole first.
    @inline(__always)
    mutating func move(at i: Index, _ sample: ContactSample, time: Timestamp)
        -> (touch: Touch, device: DeviceInfo?, gesture: GestureTouch?)? {
        TouchTable.move(&dictionary.values[i], sample, time: time)
    }

    @inline(__always)
    private static func move(_ live: inout Router.LiveTouch, _ sample: ContactSample, time: Timestamp)
        -> (touch: Touch, device: DeviceInfo?, gesture: GestureTouch?)? {
        guard live.touch.apply(sample, time: time) else { return nil }
        return (live.touch, live.device, live.gesture)
    }

    /// Where `key`'s touch is: from the memo when the table has not changed since `key` was
    /// last found, else by hashing (and remembered).
    @inline(__always)
    mutating func index(forKey key: Router.TouchKey) -> Index? {
        let slot = key.contact & (TouchTable.memoSize - 1)
        if let m = memo[slot], m.generation == generation, m.key == key { return m.index }
        guard let i = dictionary.index(forKey: key) else { return nil }
        memo[slot] = Memo(key: key, index: i, generation: generation)
        return i
    }

    /// Adds (or replaces) `key`'s touch.
    mutating func insert(_ live: Router.LiveTouch, forKey key: Router.TouchKey) {
        generation &+= 1
        dictionary[key] = live
    }

    /// Removes `key`'s touch and returns it.
    mutating func removeValue(forKey key: Router.TouchKey) -> Router.LiveTouch? {
        generation &+= 1
        return dictionary.removeValue(forKey: key)
    }

    /// The entries, oldest touch first.
    func sortedByTouchID() -> [(key: Router.TouchKey, value: Router.LiveTouch)] {
        dictionary.sorted { $0.value.touch.id < $1.value.touch.id }
    }
}
