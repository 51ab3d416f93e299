/// Appends JSON to a byte buffer without Foundation: fast, and allocation-free once the
/// buffer has grown to its working size. The dry-run trace, plugin events and `hit` write
/// with it; ``JSONValue/serialized`` too.
///
/// Commas are placed automatically: inside an object or array, each key (or array element)
/// after the first gets one; values at the top level get none (JSON lines: the caller adds
/// the newline and may clear ``bytes`` between lines).
public struct JSONWriter {
    /// The JSON text written so far (UTF-8).
    public var bytes: [UInt8] = []
    /// Whether a value has been completed at the current nesting level.
    @usableFromInline var needsComma = false
    /// Objects and arrays open.
    @usableFromInline var depth = 0
    /// While ``combiningWrites(_:)`` runs: stack memory the writes gather in, appended to
    /// ``bytes`` in one piece when it fills up and at the end (nil otherwise).
    @usableFromInline var scratch: UnsafeMutablePointer<UInt8>? = nil
    /// Bytes waiting in ``scratch``.
    @usableFromInline var scratchCount = 0
    /// The size of ``scratch``: a plugin event's line fits, most with room to spare.
    @usableFromInline static let scratchCapacity = 1024

    public init(capacity: Int = 512) { bytes.reserveCapacity(capacity) }

    /// Runs `body` with this writer, its writes gathered in stack memory and appended to
    /// ``bytes`` in one append when the memory fills up and when `body` returns: the same
    /// bytes, for a fraction of the appends (a plugin event's line: one instead of ~16).
    /// Inside, write only through the writer's methods (``bytes`` lags behind until the end).
    @inlinable
    public mutating func combiningWrites(_ body: (inout JSONWriter) -> Void) {
        guard scratch == nil else { body(&self); return }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.scratchCapacity) { buffer in
            scratch = buffer.baseAddress!
            scratchCount = 0
            body(&self)
            flushScratch()
            scratch = nil
        }
    }

    /// ``combiningWrites(_:)`` with `companion` lent to `body` beside the writer (state kept
    /// with the writer, such as the text it writes from, e.g. a layout's names encoded once).
    @inlinable
    public mutating func combiningWrites<T>(with companion: inout T, _ body: (inout JSONWriter, inout T) -> Void) {
        guard scratch == nil else { body(&self, &companion); return }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.scratchCapacity) { buffer in
            scratch = buffer.baseAddress!
            scratchCount = 0
            body(&self, &companion)
            flushScratch()
            scratch = nil
        }
    }

    /// Appends what waits in ``scratch`` to ``bytes``.
    @usableFromInline
    mutating func flushScratch() {
        guard let p = scratch, scratchCount > 0 else { return }
        bytes.append(contentsOf: UnsafeBufferPointer(start: p, count: scratchCount))
        scratchCount = 0
    }

    // MARK: Output (every byte goes through these)

    /// One byte.
    @inlinable
    mutating func emit(_ b: UInt8) {
        guard let p = scratch else { bytes.append(b); return }
        if scratchCount == Self.scratchCapacity { flushScratch() }
        p[scratchCount] = b
        scratchCount += 1
    }

    /// Bytes as they are.
    @inlinable
    mutating func emit(_ u: UnsafeBufferPointer<UInt8>) {
        guard let p = scratch, u.count <= Self.scratchCapacity else {
            flushScratch()
            bytes.append(contentsOf: u)
            return
        }
        if scratchCount + u.count > Self.scratchCapacity { flushScratch() }
        if let from = u.baseAddress { (p + scratchCount).initialize(from: from, count: u.count) }
        scratchCount += u.count
    }

    /// At most `maximum` bytes that `write` puts at the pointer it gets (returning their count).
    @inlinable @inline(__always)
    mutating func emit(maximum: Int, _ write: (UnsafeMutablePointer<UInt8>) -> Int) {
        if let p = scratch, maximum <= Self.scratchCapacity {
            if scratchCount + maximum > Self.scratchCapacity { flushScratch() }
            scratchCount += write(p + scratchCount)
            return
        }
        emitOutsideScratch(maximum: maximum, write)
    }

    /// ``emit(maximum:_:)`` without the gathering memory (or too much for it).
    @inlinable @inline(never)
    mutating func emitOutsideScratch(maximum: Int, _ write: (UnsafeMutablePointer<UInt8>) -> Int) {
        flushScratch()
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: maximum) { buffer in
            let p = buffer.baseAddress!
            bytes.append(contentsOf: UnsafeBufferPointer(start: p, count: write(p)))
        }
    }

    /// A string, quoted and escaped (``JSONText/appendString(_:to:)``; gathered whole when it
    /// needs no escape).
    @inlinable
    mutating func emitString(_ s: String) {
        if scratch != nil {
            var plain = s
            let written = plain.withUTF8 { u -> Bool in
                guard u.count <= Self.scratchCapacity - 2, !ByteStore.needsEscape(u) else { return false }
                emit(maximum: u.count + 2) { ByteStore.writeQuoted(u, to: $0) }
                return true
            }
            if written { return }
            flushScratch()
        }
        JSONText.appendString(s, to: &bytes)
    }

    /// Clears everything written (keeping the capacity) and the nesting state.
    @inlinable
    public mutating func reset() {
        bytes.removeAll(keepingCapacity: true)
        scratchCount = 0
        needsComma = false
        depth = 0
    }

    /// Before a value: the comma that separates it from the previous element, if any.
    @inlinable
    mutating func separate() {
        if needsComma && depth > 0 { emit(UInt8(ascii: ",")) }
    }

    // MARK: Structure

    @inlinable @inline(__always)
    public mutating func beginObject() {
        separate()
        emit(UInt8(ascii: "{"))
        needsComma = false
        depth += 1
    }

    @inlinable @inline(__always)
    public mutating func endObject() {
        emit(UInt8(ascii: "}"))
        needsComma = true
        depth -= 1
    }

    @inlinable
    public mutating func beginArray() {
        separate()
        emit(UInt8(ascii: "["))
        needsComma = false
        depth += 1
    }

    @inlinable
    public mutating func endArray() {
        emit(UInt8(ascii: "]"))
        needsComma = true
        depth -= 1
    }

    /// An object key known at compile time, written as is: it must need no escape.
    @inlinable
    public mutating func key(_ k: StaticString) {
        if needsComma { emit(UInt8(ascii: ",")) }
        emit(UInt8(ascii: "\""))
        k.withUTF8Buffer { emit($0) }
        emit(UInt8(ascii: "\""))
        emit(UInt8(ascii: ":"))
        needsComma = false
    }

    /// An object key given as its JSON text after a comma, `,"name":`, as a table made once
    /// holds it: one append (the comma left out when none is due).
    @inlinable
    public mutating func key(commaQuoted k: [UInt8]) {
        let skip = needsComma ? 0 : 1
        k.withUnsafeBufferPointer { emit(UnsafeBufferPointer(rebasing: $0[skip...])) }
        needsComma = false
    }

    /// The key (as ``key(commaQuoted:)`` takes it) and the string `s` (``string(_:)``): in one
    /// append when `s` needs no escape and both fit 256 bytes, else key, then string.
    @inlinable
    public mutating func field(commaQuoted k: [UInt8], string s: String) {
        let keyCount = needsComma ? k.count : k.count - 1
        var plain = s
        let written = plain.withUTF8 { u -> Bool in
            guard keyCount + u.count + 2 <= 256, !ByteStore.needsEscape(u) else { return false }
            keyed(k, maxValue: u.count + 2) { ByteStore.writeQuoted(u, to: $0) }
            return true
        }
        if !written {
            key(commaQuoted: k)
            string(s)
        }
    }

    /// The key (as ``key(commaQuoted:)`` takes it) and a value of at most `maxValue` bytes that
    /// `write` puts at the pointer it gets (returning their count): both in one append.
    @inlinable
    mutating func keyed(_ k: [UInt8], maxValue: Int, _ write: (UnsafeMutablePointer<UInt8>) -> Int) {
        let skip = needsComma ? 0 : 1
        let keyCount = k.count - skip
        emit(maximum: keyCount + maxValue) { p in
            k.withUnsafeBufferPointer { p.initialize(from: $0.baseAddress! + skip, count: keyCount) }
            return keyCount + write(p + keyCount)
        }
        needsComma = true
    }

    /// The key (as ``key(commaQuoted:)`` takes it) and the integer `v`, in one append.
    @inlinable
    public mutating func field(commaQuoted k: [UInt8], integer v: Int64) {
        keyed(k, maxValue: JSONText.maximumIntegerLength) { ByteStore.writeInteger(v, to: $0) }
    }

    /// The key (as ``key(commaQuoted:)`` takes it) and the integer `v`, in one append.
    @inlinable
    public mutating func field(commaQuoted k: [UInt8], integer v: UInt64) {
        keyed(k, maxValue: JSONText.maximumIntegerLength) { ByteStore.writeInteger(v, to: $0) }
    }

    /// The key (as ``key(commaQuoted:)`` takes it) and the number `v` in `style` (the trace's
    /// `thousandths` unless told; nil: `null`), in one append.
    @inlinable
    public mutating func field(commaQuoted k: [UInt8], number v: Double?, style: JSONNumberStyle = .thousandths) {
        keyed(k, maxValue: JSONText.maximumNumberLength) { p in
            guard let v else { return ByteStore.writeNull(to: p) }
            return ByteStore.writeNumber(v, style: style, to: p)
        }
    }

    /// The key (as ``key(commaQuoted:)`` takes it) and seconds from `microseconds` as
    /// ``appendTime(_:)`` writes them, in one append.
    @inlinable
    public mutating func field(commaQuoted k: [UInt8], time microseconds: Int64) {
        keyed(k, maxValue: JSONText.maximumFixedLength) { ByteStore.writeMicroseconds(microseconds, to: $0) }
    }

    /// The key (as ``key(commaQuoted:)`` takes it) and `null`, in one append.
    @inlinable
    public mutating func field(commaQuotedNull k: [UInt8]) {
        keyed(k, maxValue: 4) { ByteStore.writeNull(to: $0) }
    }

    /// The members `write` writes, as their text after a comma (`,"region":"home/root"`): for
    /// ``write(fragment:)``, which writes them again in an object where they would have been
    /// written (the comma left out where none is due).
    public static func fragment(_ write: (inout JSONWriter) -> Void) -> [UInt8] {
        var w = JSONWriter(capacity: 64)
        w.depth = 1
        w.needsComma = true
        write(&w)
        return w.bytes
    }

    /// Members encoded by ``fragment(_:)``, in one append.
    @inlinable @inline(__always)
    public mutating func write(fragment f: [UInt8]) {
        guard !f.isEmpty else { return }
        key(commaQuoted: f)
        needsComma = true
    }

    /// The key `k` (known at compile time, no escape needed) and a value of at most `maxValue`
    /// bytes that `write` puts at the pointer it gets: one append, the comma first when one is
    /// due (no table of key texts to fetch).
    @inlinable @inline(__always)
    mutating func member(_ k: StaticString, maxValue: Int, _ write: (UnsafeMutablePointer<UInt8>) -> Int) {
        let n = k.utf8CodeUnitCount, key = k.utf8Start
        let comma = needsComma
        emit(maximum: n + 4 + maxValue) { p in
            var i = 0
            if comma { p[0] = UInt8(ascii: ","); i = 1 }
            p[i] = UInt8(ascii: "\"")
            for j in 0..<n { p[i &+ 1 &+ j] = key[j] }
            i &+= n &+ 1
            p[i] = UInt8(ascii: "\"")
            p[i &+ 1] = UInt8(ascii: ":")
            i &+= 2
            return i &+ write(p + i)
        }
        needsComma = true
    }

    /// `"k":v` (the comma first when one is due), in one append.
    @inlinable @inline(__always)
    public mutating func member(_ k: StaticString, integer v: Int64) {
        member(k, maxValue: JSONText.maximumIntegerLength) { ByteStore.writeInteger(v, to: $0) }
    }

    /// `"k":v` (the comma first when one is due), in one append.
    @inlinable @inline(__always)
    public mutating func member(_ k: StaticString, integer v: UInt64) {
        member(k, maxValue: JSONText.maximumIntegerLength) { ByteStore.writeInteger(v, to: $0) }
    }

    /// `"k":v` to 1/1000 (``JSONNumberStyle/thousandths``), `"k":null` for nil, in one append.
    @inlinable @inline(__always)
    public mutating func member(_ k: StaticString, thousandths v: Double?) {
        member(k, maxValue: JSONText.maximumNumberLength) { p in
            guard let v else { return ByteStore.writeNull(to: p) }
            // The common case in line; the rest as `writeNumber` writes it.
            guard abs(v) < JSONText.integralLimit else { return ByteStore.writeNumber(v, style: .thousandths, to: p) }
            return ByteStore.writeThousandths(ByteStore.roundedHalfAway(v * 1000), to: p)
        }
    }

    /// `"k":` and seconds from `microseconds` as ``appendTime(_:)`` writes them, in one append.
    @inlinable @inline(__always)
    public mutating func member(_ k: StaticString, time microseconds: Int64) {
        member(k, maxValue: JSONText.maximumFixedLength) { ByteStore.writeMicroseconds(microseconds, to: $0) }
    }

    /// `"k":"v"` for a string known at compile time that needs no escape, in one append.
    @inlinable @inline(__always)
    public mutating func member(_ k: StaticString, literal v: StaticString) {
        assert(!ByteStore.needsEscape(UnsafeBufferPointer(start: v.utf8Start, count: v.utf8CodeUnitCount)),
               "a literal that needs an escape")
        let n = v.utf8CodeUnitCount, s = v.utf8Start
        member(k, maxValue: n + 2) { p in
            p[0] = UInt8(ascii: "\"")
            for j in 0..<n { p[1 &+ j] = s[j] }
            p[n &+ 1] = UInt8(ascii: "\"")
            return n &+ 2
        }
    }

    /// `"k":null`, in one append.
    @inlinable @inline(__always)
    public mutating func member(_ k: StaticString, null: Void) {
        member(k, maxValue: 4) { ByteStore.writeNull(to: $0) }
    }

    /// `"k":"s"` (escaped), in one append when `s` needs no escape and both fit 256 bytes.
    @inlinable @inline(__always)
    public mutating func member(_ k: StaticString, string s: String) {
        var plain = s
        let written = plain.withUTF8 { u -> Bool in
            guard u.count <= 240, !ByteStore.needsEscape(u) else { return false }
            member(k, maxValue: u.count + 2) { ByteStore.writeQuoted(u, to: $0) }
            return true
        }
        if !written {
            key(k)
            string(s)
        }
    }

    /// `,"name":` for the object key `name` (no escape needed), for ``key(commaQuoted:)``.
    public static func commaQuoted(_ name: StaticString) -> [UInt8] {
        var k: [UInt8] = [UInt8(ascii: ","), UInt8(ascii: "\"")]
        name.withUTF8Buffer { k.append(contentsOf: $0) }
        k.append(UInt8(ascii: "\""))
        k.append(UInt8(ascii: ":"))
        return k
    }

    /// An object key, escaped.
    @inlinable
    public mutating func key(_ k: String) {
        if needsComma { emit(UInt8(ascii: ",")) }
        emitString(k)
        emit(UInt8(ascii: ":"))
        needsComma = false
    }

    // MARK: Values

    /// A string, escaped (``JSONText/appendString(_:to:)``).
    @inlinable
    public mutating func string(_ s: String) {
        separate()
        emitString(s)
        needsComma = true
    }

    /// A number in `style` (the trace's `thousandths` unless told).
    @inlinable
    public mutating func number(_ v: Double, style: JSONNumberStyle = .thousandths) {
        separate()
        emit(maximum: JSONText.maximumNumberLength) { ByteStore.writeNumber(v, style: style, to: $0) }
        needsComma = true
    }

    /// An integer.
    @inlinable
    public mutating func integer(_ v: Int64) {
        separate()
        emit(maximum: JSONText.maximumIntegerLength) { ByteStore.writeInteger(v, to: $0) }
        needsComma = true
    }

    /// An unsigned integer.
    @inlinable
    public mutating func integer(_ v: UInt64) {
        separate()
        emit(maximum: JSONText.maximumIntegerLength) { ByteStore.writeInteger(v, to: $0) }
        needsComma = true
    }

    /// An integer (the name the trace has always used).
    @inlinable
    public mutating func append(decimal v: Int64) { integer(v) }

    /// Seconds with microsecond precision from microseconds, trailing zeros trimmed: `1508.125`,
    /// `100.0`, `-0.000001`.
    @inlinable
    public mutating func appendTime(_ microseconds: Int64) {
        separate()
        emit(maximum: JSONText.maximumFixedLength) { ByteStore.writeFixed(microseconds, decimals: 6, to: $0) }
        needsComma = true
    }

    /// A newline after a top-level value (JSON lines).
    @inlinable @inline(__always)
    public mutating func endLine() {
        emit(UInt8(ascii: "\n"))
        needsComma = false
    }

    @inlinable
    public mutating func bool(_ b: Bool) { raw(b ? "true" : "false") }

    @inlinable
    public mutating func null() { raw("null") }

    /// A value written as given: it must be valid JSON (`true`, `null`, …).
    @inlinable
    public mutating func raw(_ s: StaticString) {
        separate()
        s.withUTF8Buffer { emit($0) }
        needsComma = true
    }

    /// A ``JSONValue``; its numbers in `style` (``JSONNumberStyle/shortest`` unless told, as
    /// the control protocol writes them).
    public mutating func value(_ v: JSONValue, style: JSONNumberStyle = .shortest) {
        switch v {
        case .null: null()
        case .bool(let b): bool(b)
        case .number(let d): number(d, style: style)
        case .string(let s): string(s)
        case .array(let items):
            beginArray()
            for item in items { value(item, style: style) }
            endArray()
        case .object(let members):
            beginObject()
            for (k, item) in members {
                key(k)
                value(item, style: style)
            }
            endObject()
        }
    }

    // MARK: Fields (key and value)

    /// `"k":"s"`, or `"k":null`.
    @inlinable
    public mutating func field(_ k: StaticString, _ s: String?) {
        key(k)
        guard let s else { null(); return }
        string(s)
    }

    @inlinable
    public mutating func field(_ k: StaticString, _ v: Int) {
        key(k)
        integer(Int64(v))
    }

    @inlinable
    public mutating func field(_ k: StaticString, _ v: UInt64) {
        key(k)
        integer(v)
    }

    /// `"k":12.333` (``JSONNumberStyle/thousandths``), or `"k":null`.
    @inlinable
    public mutating func field(_ k: StaticString, _ v: Double?) {
        key(k)
        guard let v else { null(); return }
        number(v)
    }

    @inlinable
    public mutating func field(_ k: StaticString, _ b: Bool) {
        key(k)
        bool(b)
    }

    /// Seconds with microsecond precision, trailing zeros trimmed (`1508.125`).
    @inlinable
    public mutating func field(_ k: StaticString, time t: Int64) {
        key(k)
        appendTime(t)
    }
}

// MARK: The byte writer

/// Text bytes written into room reserved for them (`OutputSpan<UInt8>.withBytes(maximum:_:)`
/// checks the room once): numbers (``JSONText``'s formatter), literals, prepared bytes. The
/// one writer of bytes through memory: the log's lines, the JSON writer's gathered writes and
/// ``JSONText``'s appends all write through it, with these typed appends. Each append stays
/// within the room its reservation counted (checked in debug builds).
public struct ByteWriter {
    @usableFromInline let start: UnsafeMutablePointer<UInt8>
    @usableFromInline let room: Int
    @usableFromInline var written = 0

    @inlinable @inline(__always)
    init(start: UnsafeMutablePointer<UInt8>, room: Int) {
        self.start = start
        self.room = room
    }

    /// The bytes written.
    @inlinable
    public var count: Int { written }

    /// Lets `write` put at most `maximum` bytes at the end; it returns how many it wrote.
    @inlinable @inline(__always)
    mutating func store(maximum: Int, _ write: (UnsafeMutablePointer<UInt8>) -> Int) {
        assert(written + maximum <= room, "a byte writer's room too small")
        written &+= write(start + written)
    }

    @inlinable @inline(__always)
    public mutating func append(_ byte: UInt8) {
        assert(written < room, "a byte writer's room too small")
        start[written] = byte
        written &+= 1
    }

    /// Appends a literal of the program's own, byte by byte (a few bytes: a `memcpy` call costs
    /// more than the copy).
    @inlinable @inline(__always)
    public mutating func append(_ literal: StaticString) {
        let n = literal.utf8CodeUnitCount, s = literal.utf8Start
        store(maximum: n) { p in
            for i in 0..<n { p[i] = s[i] }
            return n
        }
    }

    /// Appends `v` in decimal (at most ``JSONText/maximumIntegerLength`` bytes).
    @inlinable @inline(__always)
    public mutating func append(integer v: Int64) {
        store(maximum: JSONText.maximumIntegerLength) { ByteStore.writeInteger(v, to: $0) }
    }

    /// Appends `v` in decimal (at most ``JSONText/maximumIntegerLength`` bytes).
    @inlinable @inline(__always)
    public mutating func append(integer v: UInt64) {
        store(maximum: JSONText.maximumIntegerLength) { ByteStore.writeInteger(v, to: $0) }
    }

    /// Appends the last `count` decimal digits of `v`, leading zeros included.
    @inlinable @inline(__always)
    public mutating func append(digits v: UInt64, count: Int) {
        store(maximum: count) { p in
            ByteStore.writeDigits(v, count: count, endingAt: p + count)
            return count
        }
    }

    /// Appends a fixed-point decimal as ``JSONText/appendFixed(_:decimals:to:)`` does (at most
    /// ``JSONText/maximumFixedLength`` bytes).
    @inlinable
    public mutating func append(fixed units: Int64, decimals: Int) {
        store(maximum: JSONText.maximumFixedLength) { ByteStore.writeFixed(units, decimals: decimals, to: $0) }
    }

    /// Appends `v` in `style` (non-finite: `null`; at most ``JSONText/maximumNumberLength`` bytes).
    @inlinable
    public mutating func append(number v: Double, style: JSONNumberStyle) {
        store(maximum: JSONText.maximumNumberLength) { ByteStore.writeNumber(v, style: style, to: $0) }
    }

    /// Appends `null`.
    @inlinable
    public mutating func appendNull() {
        store(maximum: 4) { ByteStore.writeNull(to: $0) }
    }

    /// Appends `bytes` as they are.
    @inlinable
    public mutating func append(bytes: Span<UInt8>) {
        bytes.withUnsafeBufferPointer { source in
            store(maximum: source.count) { p in
                if let from = source.baseAddress { p.update(from: from, count: source.count) }
                return source.count
            }
        }
    }

    /// Appends `bytes` between quotes, as they are (they must need no escape:
    /// ``JSONText/needsEscape(_:)``).
    @inlinable
    public mutating func append(quoted bytes: Span<UInt8>) {
        bytes.withUnsafeBufferPointer { source in
            store(maximum: source.count + 2) { ByteStore.writeQuoted(source, to: $0) }
        }
    }

    /// Appends the first `count` bytes of `words` (at most their 24) by storing all three
    /// words: the room must hold 24 bytes (no `memcpy` call for a few bytes kept as words).
    @inlinable @inline(__always)
    public mutating func append(words: (UInt64, UInt64, UInt64), count: Int) {
        store(maximum: 24) { p in
            let raw = UnsafeMutableRawPointer(p)
            raw.storeBytes(of: words.0, toByteOffset: 0, as: UInt64.self)
            raw.storeBytes(of: words.1, toByteOffset: 8, as: UInt64.self)
            raw.storeBytes(of: words.2, toByteOffset: 16, as: UInt64.self)
            return count
        }
    }

    /// Appends the first `count` bytes of `words` a word at a time: up to 7 bytes after them are
    /// stored too, so the room must hold all of `words` (a few dozen bytes: a `memcpy` call
    /// costs more than the copy).
    @inlinable @inline(__always)
    public mutating func append(words: [UInt64], count: Int) {
        precondition(count <= words.count &* 8, "more bytes than words")
        words.withUnsafeBufferPointer { source in
            store(maximum: source.count &* 8) { p in
                let to = UnsafeMutableRawPointer(p)
                var i = 0
                while i < source.count {
                    to.storeBytes(of: source[i], toByteOffset: i &* 8, as: UInt64.self)
                    i &+= 1
                }
                return count
            }
        }
    }
}

extension OutputSpan where Element == UInt8 {
    /// Lets `write` append at most `maximum` bytes through a ``ByteWriter`` (the room checked
    /// once, here: stops the program when it is short).
    @inlinable @inline(__always)
    public mutating func withBytes(maximum: Int, _ write: (inout ByteWriter) -> Void) {
        withUnsafeMutableBufferPointer { buffer, count in
            precondition(buffer.count - count >= maximum, "a text reservation too small")
            var w = ByteWriter(start: buffer.baseAddress! + count, room: maximum)
            write(&w)
            count += w.written
        }
    }

    /// Appends `v` in decimal (at most ``JSONText/maximumIntegerLength`` bytes).
    @inlinable
    public mutating func append(integer v: Int64) { withBytes(maximum: JSONText.maximumIntegerLength) { $0.append(integer: v) } }

    /// Appends `v` in decimal (at most ``JSONText/maximumIntegerLength`` bytes).
    @inlinable
    public mutating func append(integer v: UInt64) { withBytes(maximum: JSONText.maximumIntegerLength) { $0.append(integer: v) } }

    /// Appends a fixed-point decimal (``JSONText/appendFixed(_:decimals:to:)``).
    @inlinable
    public mutating func append(fixed units: Int64, decimals: Int) {
        withBytes(maximum: JSONText.maximumFixedLength) { $0.append(fixed: units, decimals: decimals) }
    }

    /// Appends `v` in `style` (non-finite: `null`).
    @inlinable
    public mutating func append(number v: Double, style: JSONNumberStyle) {
        withBytes(maximum: JSONText.maximumNumberLength) { $0.append(number: v, style: style) }
    }
}

extension Array where Element == UInt8 {
    /// Appends the bytes of `span`.
    @inlinable
    public mutating func append(span: Span<UInt8>) {
        span.withUnsafeBufferPointer { append(contentsOf: $0) }
    }
}

extension JSONText {
    /// A number's text in words: the bytes of `v` in decimal and then `suffix`, and how many
    /// there are (at most 21 of the 24), for ``ByteWriter/append(words:count:)-(UInt64,UInt64,UInt64),_``.
    public static func decimalWords(_ v: Int64, then suffix: UInt8) -> (words: (UInt64, UInt64, UInt64), count: Int) {
        var words: (UInt64, UInt64, UInt64) = (0, 0, 0)
        let count = withUnsafeMutableBytes(of: &words) { raw in
            let t = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
            let n = ByteStore.writeInteger(v, to: t)
            t[n] = suffix
            return n + 1
        }
        return (words, count)
    }
}

/// The formatter's bytes stored through pointers (the byte writer's inside: nothing else
/// writes bytes this way). Each returns the length written.
@usableFromInline
enum ByteStore {
    /// ``JSONText/needsEscape(_:)`` of memory lent for the call.
    @inlinable
    static func needsEscape(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        for c in bytes where c < 0x20 || c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") { return true }
        return false
    }

    /// Writes `bytes` between quotes (``JSONText/needsEscape(_:)`` must be false).
    @inlinable
    static func writeQuoted(_ bytes: UnsafeBufferPointer<UInt8>, to p: UnsafeMutablePointer<UInt8>) -> Int {
        p[0] = UInt8(ascii: "\"")
        if let from = bytes.baseAddress { (p + 1).initialize(from: from, count: bytes.count) }
        p[bytes.count + 1] = UInt8(ascii: "\"")
        return bytes.count + 2
    }

    /// `v` in `style` (non-finite: `null`; at most ``JSONText/maximumNumberLength``).
    @inlinable
    static func writeNumber(_ v: Double, style: JSONNumberStyle, to p: UnsafeMutablePointer<UInt8>) -> Int {
        guard v.isFinite else { return writeNull(to: p) }
        if abs(v) < JSONText.integralLimit {
            switch style {
            case .thousandths:
                return writeThousandths(roundedHalfAway(v * 1000), to: p)
            case .shortest:
                if v.rounded() == v { return writeInteger(Int64(v), to: p) }
            }
        }
        // The shortest round-trip form (Swift's `description`): `0.1`, `1e+16`, `5e-324`.
        var length = 0
        for c in v.description.utf8 where length < JSONText.maximumNumberLength { p[length] = c; length += 1 }
        return length
    }

    @inlinable
    static func writeNull(to p: UnsafeMutablePointer<UInt8>) -> Int {
        p[0] = UInt8(ascii: "n"); p[1] = UInt8(ascii: "u"); p[2] = UInt8(ascii: "l"); p[3] = UInt8(ascii: "l")
        return 4
    }

    /// `v` in decimal (at most ``JSONText/maximumIntegerLength``). (Always inlined, with the
    /// unsigned form: the log's line writes two or three per event.)
    @inlinable @inline(__always)
    static func writeInteger(_ v: Int64, to p: UnsafeMutablePointer<UInt8>) -> Int {
        guard v < 0 else { return writeInteger(v.magnitude, to: p) }
        p[0] = UInt8(ascii: "-")
        return 1 + writeInteger(v.magnitude, to: p + 1)
    }

    @inlinable @inline(__always)
    static func writeInteger(_ v: UInt64, to p: UnsafeMutablePointer<UInt8>) -> Int {
        if v < 10 { p[0] = UInt8(truncatingIfNeeded: 0x30 + v); return 1 }
        var length = 2
        var limit: UInt64 = 100
        while length < 20 && v >= limit { length += 1; limit = limit &* 10 }
        writeDigits(v, count: length, endingAt: p + length)
        return length
    }

    /// A fixed-point decimal (``JSONText/appendFixed(_:decimals:to:)``; at most
    /// ``JSONText/maximumFixedLength``).
    @inlinable
    static func writeFixed(_ units: Int64, decimals: Int, to p: UnsafeMutablePointer<UInt8>) -> Int {
        precondition((1...18).contains(decimals), "1...18 decimals")
        var scale: UInt64 = 1
        for _ in 0..<decimals { scale = scale &* 10 }
        let m = units.magnitude
        var length = 0
        if units < 0 { p[0] = UInt8(ascii: "-"); length = 1 }
        length += writeInteger(m / scale, to: p + length)
        p[length] = UInt8(ascii: ".")
        length += 1
        var fraction = m % scale
        if fraction == 0 { p[length] = UInt8(ascii: "0"); return length + 1 }
        var digits = decimals
        while fraction % 10 == 0 { fraction /= 10; digits -= 1 }
        writeDigits(fraction, count: digits, endingAt: p + length + digits)
        return length + digits
    }

    /// `x` rounded to the nearest integer, halves away from zero (`x.rounded()`, without the
    /// library call): `x` less than 2⁶³ in magnitude. `x - Double(t)` is exact (the fraction of
    /// a double), so the halves are compared exactly.
    @inlinable @inline(__always)
    static func roundedHalfAway(_ x: Double) -> Int64 {
        let t = Int64(x)
        let d = x - Double(t)
        if d >= 0.5 { return t &+ 1 }
        if d <= -0.5 { return t &- 1 }
        return t
    }

    /// The sign and the whole part of `units / scale`, then the decimal point: the length up to
    /// the point (the point not counted) and the fraction's units. Inlined, so `scale` is a
    /// constant where it is called.
    @inlinable @inline(__always)
    static func writeWholeAndPoint(_ units: Int64, scale: UInt64, to p: UnsafeMutablePointer<UInt8>) -> (length: Int, fraction: UInt64) {
        let m = units.magnitude
        var length = 0
        if units < 0 { p[0] = UInt8(ascii: "-"); length = 1 }
        length &+= writeInteger(m / scale, to: p + length)
        p[length] = UInt8(ascii: ".")
        return (length, m % scale)
    }

    /// ``writeFixed(_:decimals:to:)`` with 3 decimals, the divisions by constants.
    @inlinable @inline(__always)
    static func writeThousandths(_ units: Int64, to p: UnsafeMutablePointer<UInt8>) -> Int {
        let (length, f) = writeWholeAndPoint(units, scale: 1000, to: p)
        if f % 10 != 0 {
            writeDigits(f, count: 3, endingAt: p + length + 4)
            return length &+ 4
        }
        if f % 100 != 0 {
            writeDigits(f / 10, count: 2, endingAt: p + length + 3)
            return length &+ 3
        }
        p[length &+ 1] = UInt8(truncatingIfNeeded: 0x30 &+ f / 100)
        return length &+ 2
    }

    /// ``writeFixed(_:decimals:to:)`` with 6 decimals (a time in seconds from microseconds), the
    /// divisions by constants.
    @inlinable @inline(__always)
    static func writeMicroseconds(_ units: Int64, to p: UnsafeMutablePointer<UInt8>) -> Int {
        var (length, fraction) = writeWholeAndPoint(units, scale: 1_000_000, to: p)
        length &+= 1
        if fraction == 0 { p[length] = UInt8(ascii: "0"); return length &+ 1 }
        var digits = 6
        if fraction % 1000 == 0 { fraction /= 1000; digits = 3 }
        while fraction % 10 == 0 { fraction /= 10; digits &-= 1 }
        writeDigits(fraction, count: digits, endingAt: p + length + digits)
        return length &+ digits
    }

    /// The last `count` decimal digits of `v` (leading zeros included), ending just before
    /// `end`, two digits per division.
    @inlinable @inline(__always)
    static func writeDigits(_ v: UInt64, count: Int, endingAt end: UnsafeMutablePointer<UInt8>) {
        let pairs = digitPairs.utf8Start
        var n = v
        var p = end
        var left = count
        while left >= 2 {
            let r = Int(truncatingIfNeeded: n % 100)
            n /= 100
            p -= 2
            p[0] = pairs[2 &* r]
            p[1] = pairs[2 &* r &+ 1]
            left -= 2
        }
        if left == 1 { (p - 1).pointee = UInt8(truncatingIfNeeded: 0x30 + n % 10) }
    }

    /// "00", "01", … "99" in a row: the two digits of each value below 100.
    @usableFromInline
    static let digitPairs: StaticString = "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"
}
