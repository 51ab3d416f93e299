/// Appends JSON to a byte buffer without Foundation: fast, and allocation-free once the
/// buffer has grown to its working size.
struct JSONWriter {
    var bytes: [UInt8] = []
    private var needsComma = false

    init(capacity: Int = 512) { bytes.reserveCapacity(capacity) }

    mutating func beginObject() { bytes.append(UInt8(ascii: "{")); needsComma = false }
    mutating func endObject() { bytes.append(UInt8(ascii: "}")); needsComma = true }

    mutating func key(_ k: StaticString) {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        bytes.append(UInt8(ascii: "\""))
        k.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        needsComma = true
    }

    mutating func field(_ k: StaticString, _ s: String?) {
        key(k)
        guard let s else { null(); return }
        string(s)
    }

    mutating func field(_ k: StaticString, _ v: Int) {
        key(k)
        append(decimal: Int64(v))
    }

    mutating func field(_ k: StaticString, _ v: Double?) {
        key(k)
        guard let v else { null(); return }
        number(v)
    }

    mutating func field(_ k: StaticString, _ b: Bool) {
        key(k)
        raw(b ? "true" : "false")
    }

    /// Seconds with microsecond precision, trailing zeros trimmed (`1508.125`).
    mutating func field(_ k: StaticString, time t: Int64) {
        key(k)
        appendTime(t)
    }

    mutating func appendTime(_ t: Int64) {
        var us = t
        if us < 0 { bytes.append(UInt8(ascii: "-")); us = -us }
        append(decimal: us / 1_000_000)
        var frac = us % 1_000_000
        bytes.append(UInt8(ascii: "."))
        var digits = 6
        if frac == 0 { bytes.append(UInt8(ascii: "0")); return }
        while frac % 10 == 0 { frac /= 10; digits -= 1 }
        var buf: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (48, 48, 48, 48, 48, 48)
        withUnsafeMutableBytes(of: &buf) { p in
            var f = frac
            var i = digits - 1
            while i >= 0 { p[i] = UInt8(48 + f % 10); f /= 10; i -= 1 }
            bytes.append(contentsOf: p[0..<digits])
        }
    }

    mutating func null() { raw("null") }

    mutating func raw(_ s: StaticString) { s.withUTF8Buffer { bytes.append(contentsOf: $0) } }

    /// A number rounded to 1/1000: `96.0`, `412.5`, `12.333`.
    mutating func number(_ v: Double) {
        guard v.isFinite else { null(); return }
        let milli = Int64((v * 1000).rounded())
        var m = milli
        if m < 0 { bytes.append(UInt8(ascii: "-")); m = -m }
        append(decimal: m / 1000)
        bytes.append(UInt8(ascii: "."))
        var frac = m % 1000
        if frac == 0 { bytes.append(UInt8(ascii: "0")); return }
        var digits = 3
        while frac % 10 == 0 { frac /= 10; digits -= 1 }
        var div: Int64 = 1
        for _ in 1..<digits { div *= 10 }
        while div > 0 { bytes.append(UInt8(48 + (frac / div) % 10)); div /= 10 }
    }

    mutating func append(decimal v: Int64) {
        if v < 0 { bytes.append(UInt8(ascii: "-")); append(decimal: -v); return }
        if v < 10 { bytes.append(UInt8(48 + v)); return }
        var tmp: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                  UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &tmp) { p in
            var n = v, i = 20
            while n > 0 { i -= 1; p[i] = UInt8(48 + n % 10); n /= 10 }
            bytes.append(contentsOf: p[i..<20])
        }
    }

    /// A JSON string with the escapes RFC 8259 requires.
    mutating func string(_ s: String) {
        bytes.append(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { utf8 in
            for c in utf8 {
                switch c {
                case UInt8(ascii: "\""): bytes.append(92); bytes.append(c)
                case UInt8(ascii: "\\"): bytes.append(92); bytes.append(c)
                case 0x0A: bytes.append(92); bytes.append(UInt8(ascii: "n"))
                case 0x0D: bytes.append(92); bytes.append(UInt8(ascii: "r"))
                case 0x09: bytes.append(92); bytes.append(UInt8(ascii: "t"))
                case 0..<0x20:
                    let hex: [UInt8] = Array("0123456789abcdef".utf8)
                    bytes.append(contentsOf: [92, UInt8(ascii: "u"), 48, 48, hex[Int(c >> 4)], hex[Int(c & 15)]])
                default: bytes.append(c)
                }
            }
        }
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }
}
