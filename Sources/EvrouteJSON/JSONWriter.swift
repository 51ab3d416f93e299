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
    @inlinable
    mutating func emit(maximum: Int, _ write: (UnsafeMutablePointer<UInt8>) -> Int) {
        if let p = scratch, maximum <= Self.scratchCapacity {
            if scratchCount + maximum > Self.scratchCapacity { flushScratch() }
            scratchCount += write(p + scratchCount)
            return
        }
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
                guard u.count <= Self.scratchCapacity - 2, !JSONText.needsEscape(u) else { return false }
                emit(maximum: u.count + 2) { JSONText.writeQuoted(u, to: $0) }
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

    @inlinable
    public mutating func beginObject() {
        separate()
        emit(UInt8(ascii: "{"))
        needsComma = false
        depth += 1
    }

    @inlinable
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
            guard keyCount + u.count + 2 <= 256, !JSONText.needsEscape(u) else { return false }
            keyed(k, maxValue: u.count + 2) { JSONText.writeQuoted(u, to: $0) }
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
        keyed(k, maxValue: JSONText.maximumIntegerLength) { JSONText.writeInteger(v, to: $0) }
    }

    /// The key (as ``key(commaQuoted:)`` takes it) and the integer `v`, in one append.
    @inlinable
    public mutating func field(commaQuoted k: [UInt8], integer v: UInt64) {
        keyed(k, maxValue: JSONText.maximumIntegerLength) { JSONText.writeInteger(v, to: $0) }
    }

    /// The key (as ``key(commaQuoted:)`` takes it) and the number `v` in `style` (the trace's
    /// `thousandths` unless told; nil: `null`), in one append.
    @inlinable
    public mutating func field(commaQuoted k: [UInt8], number v: Double?, style: JSONNumberStyle = .thousandths) {
        keyed(k, maxValue: JSONText.maximumNumberLength) { p in
            guard let v else { return JSONText.writeNull(to: p) }
            return JSONText.writeNumber(v, style: style, to: p)
        }
    }

    /// The key (as ``key(commaQuoted:)`` takes it) and seconds from `microseconds` as
    /// ``appendTime(_:)`` writes them, in one append.
    @inlinable
    public mutating func field(commaQuoted k: [UInt8], time microseconds: Int64) {
        keyed(k, maxValue: JSONText.maximumFixedLength) { JSONText.writeFixed(microseconds, decimals: 6, to: $0) }
    }

    /// The key (as ``key(commaQuoted:)`` takes it) and `null`, in one append.
    @inlinable
    public mutating func field(commaQuotedNull k: [UInt8]) {
        keyed(k, maxValue: 4) { JSONText.writeNull(to: $0) }
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
        emit(maximum: JSONText.maximumNumberLength) { JSONText.writeNumber(v, style: style, to: $0) }
        needsComma = true
    }

    /// An integer.
    @inlinable
    public mutating func integer(_ v: Int64) {
        separate()
        emit(maximum: JSONText.maximumIntegerLength) { JSONText.writeInteger(v, to: $0) }
        needsComma = true
    }

    /// An unsigned integer.
    @inlinable
    public mutating func integer(_ v: UInt64) {
        separate()
        emit(maximum: JSONText.maximumIntegerLength) { JSONText.writeInteger(v, to: $0) }
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
        emit(maximum: JSONText.maximumFixedLength) { JSONText.writeFixed(microseconds, decimals: 6, to: $0) }
        needsComma = true
    }

    /// A newline after a top-level value (JSON lines).
    @inlinable
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
