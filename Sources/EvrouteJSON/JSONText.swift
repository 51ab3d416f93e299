/// How a `Double` is written. The dry-run trace and the control protocol have always printed
/// numbers differently, and both are contracts, so the one number formatter has two styles.
/// Both write non-finite values as `null`.
public enum JSONNumberStyle: Sendable {
    /// Rounded to 1/1000, always with a fraction: `96.0`, `412.5`, `12.333`, `-0.001`. What
    /// rounds to zero is `0.0` (no sign, also for `-0.0`). Magnitudes of 9e15 and above, where
    /// 1/1000 is below a `Double`'s resolution, are written as ``shortest`` writes them. The
    /// trace and plugin events.
    case thousandths
    /// Whole numbers below 9e15 as integers (`96`, `-3`, `0` also for `-0.0`), anything else in
    /// the shortest form that reads back as the same `Double` (`0.1`, `412.33333333333331`
    /// → `412.3333333333333`, `1e+16`). The control protocol (``JSONValue``).
    case shortest
}

/// The one JSON string escaper and the one number formatter, appending UTF-8 to a byte
/// buffer. ``JSONWriter`` and ``JSONValue`` write through these; so does anything else that
/// prints a number the way the trace or the control protocol does.
public enum JSONText {
    /// Whole numbers at or above this magnitude are not written as integers: beyond it a
    /// `Double` cannot tell neighbouring integers apart reliably, and `Int64` of 1000 times it
    /// would overflow.
    public static let integralLimit: Double = 9e15

    // MARK: Strings

    /// Appends `s` as a JSON string, quotes included, with the escapes RFC 8259 requires and
    /// no others: `\"`, `\\`, `\n`, `\r`, `\t`, and `\u00XX` (lower-case hex) for the other
    /// control characters below U+0020 (`\b` and `\f` too). Everything else, DEL and non-ASCII
    /// included, is copied as UTF-8. (A Swift `String` holds no lone surrogates, so none can
    /// reach the output.)
    @inlinable
    public static func appendString(_ s: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { appendEscaped($0, to: &out) }
        out.append(UInt8(ascii: "\""))
    }

    /// Appends UTF-8 `bytes` escaped as in ``appendString(_:to:)``, without quotes. Runs that
    /// need no escape are copied in one piece.
    @inlinable
    public static func appendEscaped(_ bytes: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        var runStart = 0
        var i = 0
        while i < bytes.count {
            let c = bytes[i]
            if c >= 0x20 && c != UInt8(ascii: "\"") && c != UInt8(ascii: "\\") { i += 1; continue }
            if runStart < i { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<i])) }
            out.append(UInt8(ascii: "\\"))
            switch c {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): out.append(c)
            case 0x0A: out.append(UInt8(ascii: "n"))
            case 0x0D: out.append(UInt8(ascii: "r"))
            case 0x09: out.append(UInt8(ascii: "t"))
            default:
                out.append(UInt8(ascii: "u"))
                out.append(UInt8(ascii: "0"))
                out.append(UInt8(ascii: "0"))
                out.append(hexDigit(c >> 4))
                out.append(hexDigit(c & 0x0F))
            }
            i += 1
            runStart = i
        }
        if runStart < bytes.count { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...])) }
    }

    /// Whether `bytes` hold a byte ``appendEscaped(_:to:)`` escapes (a control character, `"`
    /// or `\\`): when not, the string's JSON is its bytes between quotes.
    @inlinable
    public static func needsEscape(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        for c in bytes where c < 0x20 || c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") { return true }
        return false
    }

    /// Writes `bytes` between quotes at `p`, as they are (they must need no escape:
    /// ``needsEscape(_:)``); returns the length, `bytes.count + 2`.
    @inlinable
    public static func writeQuoted(_ bytes: UnsafeBufferPointer<UInt8>, to p: UnsafeMutablePointer<UInt8>) -> Int {
        p[0] = UInt8(ascii: "\"")
        if let from = bytes.baseAddress { (p + 1).initialize(from: from, count: bytes.count) }
        p[bytes.count + 1] = UInt8(ascii: "\"")
        return bytes.count + 2
    }

    @inlinable
    static func hexDigit(_ v: UInt8) -> UInt8 { v < 10 ? 0x30 + v : 0x61 + v - 10 }

    // MARK: Numbers

    /// Appends `v` in `style` (non-finite: `null`).
    @inlinable
    public static func appendNumber(_ v: Double, style: JSONNumberStyle, to out: inout [UInt8]) {
        withStackBuffer(maximumNumberLength, { writeNumber(v, style: style, to: $0) }) { out.append(contentsOf: $0) }
    }

    /// The most bytes ``writeNumber(_:style:to:)`` writes (the longest shortest form of a
    /// `Double`, `-2.2250738585072014e-308`, is 24).
    public static let maximumNumberLength = 40

    /// Writes `v` in `style` (non-finite: `null`) at `p`; returns the length (at most
    /// ``maximumNumberLength``).
    @inlinable
    public static func writeNumber(_ v: Double, style: JSONNumberStyle, to p: UnsafeMutablePointer<UInt8>) -> Int {
        guard v.isFinite else { return writeNull(to: p) }
        if abs(v) < integralLimit {
            switch style {
            case .thousandths:
                return writeFixed(Int64((v * 1000).rounded()), decimals: 3, to: p)
            case .shortest:
                if v.rounded() == v { return writeInteger(Int64(v), to: p) }
            }
        }
        // The shortest round-trip form (Swift's `description`): `0.1`, `1e+16`, `5e-324`.
        var length = 0
        for c in v.description.utf8 where length < maximumNumberLength { p[length] = c; length += 1 }
        return length
    }

    /// Writes `null` at `p`; returns 4.
    @inlinable
    public static func writeNull(to p: UnsafeMutablePointer<UInt8>) -> Int {
        p[0] = UInt8(ascii: "n"); p[1] = UInt8(ascii: "u"); p[2] = UInt8(ascii: "l"); p[3] = UInt8(ascii: "l")
        return 4
    }

    /// Appends `v` in decimal (`Int64.min` too).
    @inlinable
    public static func appendInteger(_ v: Int64, to out: inout [UInt8]) {
        withStackBuffer(maximumIntegerLength, { writeInteger(v, to: $0) }) { out.append(contentsOf: $0) }
    }

    /// Appends `v` in decimal.
    @inlinable
    public static func appendInteger(_ v: UInt64, to out: inout [UInt8]) {
        if v < 10 { out.append(UInt8(truncatingIfNeeded: 0x30 + v)); return }
        withStackBuffer(maximumIntegerLength, { writeInteger(v, to: $0) }) { out.append(contentsOf: $0) }
    }

    /// Appends a fixed-point decimal: `units` of 10^-`decimals` (1...18), trailing zeros of the
    /// fraction trimmed but at least one digit kept: `(1508125000, 6)` → `1508.125`,
    /// `(96000, 3)` → `96.0`, `(-1, 3)` → `-0.001`.
    @inlinable
    public static func appendFixed(_ units: Int64, decimals: Int, to out: inout [UInt8]) {
        withStackBuffer(maximumFixedLength, { writeFixed(units, decimals: decimals, to: $0) }) { out.append(contentsOf: $0) }
    }

    // MARK: Numbers into memory (the formatter itself; the appends above and writers that
    // keep their own buffers, like the log's, go through these)

    /// The most bytes ``writeInteger(_:to:)-(Int64,_)`` and ``writeInteger(_:to:)-(UInt64,_)`` write.
    public static let maximumIntegerLength = 20
    /// The most bytes ``writeFixed(_:decimals:to:)`` writes.
    public static let maximumFixedLength = 40

    /// Writes `v` in decimal at `p`; returns the length (at most ``maximumIntegerLength``).
    /// (Always inlined, with the unsigned form: the log's line writes two or three per event.)
    @inlinable @inline(__always)
    public static func writeInteger(_ v: Int64, to p: UnsafeMutablePointer<UInt8>) -> Int {
        guard v < 0 else { return writeInteger(v.magnitude, to: p) }
        p[0] = UInt8(ascii: "-")
        return 1 + writeInteger(v.magnitude, to: p + 1)
    }

    /// Writes `v` in decimal at `p`; returns the length (at most ``maximumIntegerLength``).
    @inlinable @inline(__always)
    public static func writeInteger(_ v: UInt64, to p: UnsafeMutablePointer<UInt8>) -> Int {
        if v < 10 { p[0] = UInt8(truncatingIfNeeded: 0x30 + v); return 1 }
        var length = 2
        var limit: UInt64 = 100
        while length < 20 && v >= limit { length += 1; limit = limit &* 10 }
        writeDigits(v, count: length, endingAt: p + length)
        return length
    }

    /// Writes a fixed-point decimal (as ``appendFixed(_:decimals:to:)`` appends it) at `p`;
    /// returns the length (at most ``maximumFixedLength``).
    @inlinable
    public static func writeFixed(_ units: Int64, decimals: Int, to p: UnsafeMutablePointer<UInt8>) -> Int {
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

    /// Writes the last `count` decimal digits of `v` (leading zeros included) so that they end
    /// just before `end`, two digits per division.
    @inlinable @inline(__always)
    public static func writeDigits(_ v: UInt64, count: Int, endingAt end: UnsafeMutablePointer<UInt8>) {
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

    /// Runs `write` on `capacity` bytes of stack and `use` on what it wrote.
    @inlinable
    static func withStackBuffer(_ capacity: Int, _ write: (UnsafeMutablePointer<UInt8>) -> Int,
                                _ use: (UnsafeBufferPointer<UInt8>) -> Void) {
        // 48 bytes: more than any of the maximum lengths.
        var tmp: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &tmp) { raw in
            let p = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
            use(UnsafeBufferPointer(start: p, count: write(p)))
        }
    }

    /// `v` in `style`, as text (for log lines, environment variables and tables that show
    /// numbers the way the JSON does).
    public static func number(_ v: Double, style: JSONNumberStyle) -> String {
        var out: [UInt8] = []
        appendNumber(v, style: style, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// `s` as a JSON string, quotes included.
    public static func quoted(_ s: String) -> String {
        var out: [UInt8] = []
        appendString(s, to: &out)
        return String(decoding: out, as: UTF8.self)
    }
}
