/// The router's active touches by device and contact: two parallel arrays in the order the
/// touches began, searched from where the last search ended.
///
/// Every sample of a moving finger looks its touch up. There are few touches at a time (a
/// hand's fingers per screen), a frame reports its contacts in the same order every time, and
/// hashing a key (SipHash, through `Hasher`) cost more than comparing it with every key of
/// the table: a lookup compares the key after the last one found first, so the fingers of a
/// steady frame cost one comparison each, and the worst case is one pass over ``count`` keys.
struct TouchTable {
    /// A position in the table, valid until the next insertion or removal.
    typealias Index = Int

    /// The keys, searched (kept apart from the touches: a search reads only these).
    private(set) var keys: [Router.TouchKey] = []
    /// The touches, at their keys' positions.
    private(set) var values: [Router.LiveTouch] = []
    /// Where the next search starts: after the last key found.
    private var hint = 0

    init(capacity: Int) {
        keys.reserveCapacity(capacity)
        values.reserveCapacity(capacity)
    }

    var isEmpty: Bool { keys.isEmpty }
    var count: Int { keys.count }
    var indices: Range<Index> { keys.indices }

    /// The key at `i`.
    func key(at i: Index) -> Router.TouchKey { keys[i] }

    /// The touch of `key`, if active.
    subscript(key: Router.TouchKey) -> Router.LiveTouch? {
        guard let i = find(key) else { return nil }
        return values[i]
    }

    /// The entry at `i` (an index from ``index(forKey:)`` or ``indices``, before any
    /// insertion or removal), read or changed in place.
    subscript(i: Index) -> Router.LiveTouch {
        get { values[i] }
        _modify { yield &values[i] }
    }

    /// Applies a moved sample to the touch at `i` in place (``Touch/apply(_:time:)``) and, when
    /// it moved, returns what its event needs — without copying the entry out whole first.
    @inline(__always)
    mutating func move(at i: Index, _ sample: ContactSample, time: Timestamp)
        -> (touch: Touch, device: DeviceInfo?, gesture: GestureTouch?)? {
        TouchTable.move(&values[i], sample, time: time)
    }

    @inline(__always)
    private static func move(_ live: inout Router.LiveTouch, _ sample: ContactSample, time: Timestamp)
        -> (touch: Touch, device: DeviceInfo?, gesture: GestureTouch?)? {
        guard live.touch.apply(sample, time: time) else { return nil }
        return (live.touch, live.device, live.gesture)
    }

    /// Where `key`'s touch is (and the next search starts after it).
    @inline(__always)
    mutating func index(forKey key: Router.TouchKey) -> Index? {
        guard let i = find(key) else { return nil }
        hint = i + 1
        return i
    }

    /// The position of `key`: the keys from ``hint`` to the end, then those before it.
    private func find(_ key: Router.TouchKey) -> Index? {
        keys.withUnsafeBufferPointer { k in
            let n = k.count, start = hint < n ? hint : 0
            var i = start
            while i < n {
                if k[i] == key { return i }
                i += 1
            }
            i = 0
            while i < start {
                if k[i] == key { return i }
                i += 1
            }
            return nil
        }
    }

    /// Adds (or replaces) `key`'s touch.
    mutating func insert(_ live: Router.LiveTouch, forKey key: Router.TouchKey) {
        if let i = find(key) {
            values[i] = live
        } else {
            keys.append(key)
            values.append(live)
        }
    }

    /// Removes `key`'s touch and returns it (the others keep their order).
    mutating func removeValue(forKey key: Router.TouchKey) -> Router.LiveTouch? {
        guard let i = find(key) else { return nil }
        keys.remove(at: i)
        if hint > i { hint -= 1 }
        return values.remove(at: i)
    }

    /// The entries, oldest touch first.
    func sortedByTouchID() -> [(key: Router.TouchKey, value: Router.LiveTouch)] {
        zip(keys, values).map { (key: $0, value: $1) }.sorted { $0.value.touch.id < $1.value.touch.id }
    }
}
