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
        appendEscaped(s.utf8.span, to: &out)
        out.append(UInt8(ascii: "\""))
    }

    /// Appends UTF-8 `bytes` escaped as in ``appendString(_:to:)``, without quotes. Runs that
    /// need no escape are copied in one piece.
    @inlinable
    public static func appendEscaped(_ bytes: Span<UInt8>, to out: inout [UInt8]) {
        var runStart = 0
        var i = 0
        while i < bytes.count {
            let c = bytes[i]
            if c >= 0x20 && c != UInt8(ascii: "\"") && c != UInt8(ascii: "\\") { i += 1; continue }
            if runStart < i { out.append(span: bytes.extracting(runStart..<i)) }
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
        if runStart < bytes.count { out.append(span: bytes.extracting(runStart..<bytes.count)) }
    }

    /// Whether `bytes` hold a byte ``appendEscaped(_:to:)`` escapes (a control character, `"`
    /// or `\\`): when not, the string's JSON is its bytes between quotes.
    @inlinable
    public static func needsEscape(_ bytes: Span<UInt8>) -> Bool {
        var i = 0
        while i < bytes.count {
            let c = bytes[i]
            if c < 0x20 || c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") { return true }
            i += 1
        }
        return false
    }

    @inlinable
    static func hexDigit(_ v: UInt8) -> UInt8 { v < 10 ? 0x30 + v : 0x61 + v - 10 }

    // MARK: Numbers (their bytes written by the byte writer, ``JSONWriter``'s file:
    // `OutputSpan<UInt8>.append(integer:)` and the rest)

    /// Appends `v` in `style` (non-finite: `null`).
    @inlinable
    public static func appendNumber(_ v: Double, style: JSONNumberStyle, to out: inout [UInt8]) {
        out.append(addingCapacity: maximumNumberLength) { $0.append(number: v, style: style) }
    }

    /// The most bytes `OutputSpan<UInt8>.append(number:style:)` writes (the longest shortest
    /// form of a `Double`, `-2.2250738585072014e-308`, is 24).
    public static let maximumNumberLength = 40

    /// Appends `v` in decimal (`Int64.min` too).
    @inlinable
    public static func appendInteger(_ v: Int64, to out: inout [UInt8]) {
        out.append(addingCapacity: maximumIntegerLength) { $0.append(integer: v) }
    }

    /// Appends `v` in decimal.
    @inlinable
    public static func appendInteger(_ v: UInt64, to out: inout [UInt8]) {
        if v < 10 { out.append(UInt8(truncatingIfNeeded: 0x30 + v)); return }
        out.append(addingCapacity: maximumIntegerLength) { $0.append(integer: v) }
    }

    /// Appends a fixed-point decimal: `units` of 10^-`decimals` (1...18), trailing zeros of the
    /// fraction trimmed but at least one digit kept: `(1508125000, 6)` → `1508.125`,
    /// `(96000, 3)` → `96.0`, `(-1, 3)` → `-0.001`.
    @inlinable
    public static func appendFixed(_ units: Int64, decimals: Int, to out: inout [UInt8]) {
        out.append(addingCapacity: maximumFixedLength) { $0.append(fixed: units, decimals: decimals) }
    }

    /// The most bytes `OutputSpan<UInt8>.append(integer:)` writes.
    public static let maximumIntegerLength = 20
    /// The most bytes `OutputSpan<UInt8>.append(fixed:decimals:)` writes.
    public static let maximumFixedLength = 40

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
