import Testing
import EvrouteChecks
import EvrouteJSON

@Suite("JSON writer")
struct JSONWriterTests {
    private func text(_ w: JSONWriter) -> String { String(decoding: w.bytes, as: UTF8.self) }

    @Test func aTraceLineReadsAsTheTraceHasAlwaysWrittenIt() {
        var w = JSONWriter()
        w.beginObject()
        w.field("type", "touch")
        w.field("time", time: 100_009_276)
        w.field("device", nil as String?)
        w.field("touch", 1)
        w.field("x", 78.4375)
        w.field("y", 52.0)
        w.field("pressure", nil as Double?)
        w.field("tap", true)
        w.field("id", UInt64(42))
        w.endObject()
        expectEqual(text(w), #"{"type":"touch","time":100.009276,"device":null,"touch":1,"x":78.438,"y":52.0,"pressure":null,"tap":true,"id":42}"#)
    }

    @Test func commasInNestedObjectsAndArrays() {
        var w = JSONWriter()
        w.beginObject()
        w.field("region", "a/b")
        w.key("chain")
        w.beginArray()
        w.string("a/b")
        w.beginArray()
        w.endArray()
        w.beginObject()
        w.key("k")
        w.beginArray()
        w.integer(Int64(1))
        w.number(2.5)
        w.number(3, style: .shortest)
        w.null()
        w.bool(false)
        w.endArray()
        w.endObject()
        w.endArray()
        w.key("empty")
        w.beginObject()
        w.endObject()
        w.endObject()
        expectEqual(text(w), #"{"region":"a/b","chain":["a/b",[],{"k":[1,2.5,3,null,false]}],"empty":{}}"#)
    }

    @Test func topLevelValuesAreNotSeparated() {
        // JSON lines: the writer is reused line after line without a reset.
        var w = JSONWriter()
        for i in 0..<3 {
            w.bytes.removeAll(keepingCapacity: true)
            w.beginObject()
            w.field("n", i)
            w.endObject()
            expectEqual(text(w), "{\"n\":\(i)}")
        }
        w.reset()
        w.string("a")
        w.string("b")
        expectEqual(text(w), #""a""b""#)
    }

    @Test func keysGivenAsStringsAreEscaped() {
        var w = JSONWriter()
        w.beginObject()
        w.key("a\"b")
        w.integer(Int64(1))
        w.key("line\nbreak")
        w.integer(UInt64(2))
        w.endObject()
        expectEqual(text(w), #"{"a\"b":1,"line\nbreak":2}"#)
    }

    @Test func valuesAndTheirNumberStyle() {
        let v: JSONValue = .object([("w", .number(1280)), ("u", .number(3.004)), ("list", .array([.number(-0.0), .null]))])
        var w = JSONWriter()
        w.value(v)
        expectEqual(text(w), #"{"w":1280,"u":3.004,"list":[0,null]}"#)
        w.reset()
        w.value(v, style: .thousandths)
        expectEqual(text(w), #"{"w":1280.0,"u":3.004,"list":[0.0,null]}"#)
    }
}

/// The one-append key and string (`field(commaQuoted:string:)`) writes what a key then a string
/// write: for plain values, for values that need escapes, empty ones, non-ASCII, and values too
/// long for its stack buffer; first in an object and after another member.
@Suite("JSON writer: key and string in one append")
struct JSONWriterKeyAndStringTests {
    @Test(arguments: ["touch", "", "home/root/button", "a\"b", "back\\slash", "tab\tnew\nline", "\u{1}", "é→☃",
                      String(repeating: "x", count: 300)])
    func sameBytesAsKeyThenString(_ value: String) {
        let k = JSONWriter.commaQuoted("type")
        var fast = JSONWriter(), slow = JSONWriter()
        for w in [0, 1] {
            var writer = w == 0 ? fast : slow
            writer.beginObject()
            if w == 0 { writer.field(commaQuoted: k, string: value) } else { writer.key(commaQuoted: k); writer.string(value) }
            if w == 0 { writer.field(commaQuoted: k, string: value) } else { writer.key(commaQuoted: k); writer.string(value) }
            writer.field("n", 1)
            writer.endObject()
            if w == 0 { fast = writer } else { slow = writer }
        }
        expectEqual(fast.bytes, slow.bytes)
        expectEqual(String(decoding: slow.bytes, as: UTF8.self), "{\"type\":\(JSONText.quoted(value)),\"type\":\(JSONText.quoted(value)),\"n\":1}")
    }
}

/// The one-append key and value fields (`field(commaQuoted:integer:)`, `…number:`, `…time:`,
/// `field(commaQuotedNull:)`) write what a key then the value write: first in an object and after
/// another member, at the extremes of each value's length.
@Suite("JSON writer: key and value in one append")
struct JSONWriterKeyAndValueTests {
    static let k = JSONWriter.commaQuoted("v")

    /// Writes `{"v":…,"v":…}` with `fast` (the one-append form) or `slow` (key, then value).
    func both(_ fast: (inout JSONWriter) -> Void, _ slow: (inout JSONWriter) -> Void) -> (String, String) {
        var a = JSONWriter(), b = JSONWriter()
        a.beginObject(); fast(&a); fast(&a); a.endObject()
        b.beginObject(); b.key(commaQuoted: Self.k); slow(&b); b.key(commaQuoted: Self.k); slow(&b); b.endObject()
        return (String(decoding: a.bytes, as: UTF8.self), String(decoding: b.bytes, as: UTF8.self))
    }

    @Test(arguments: [Int64.min, -1, 0, 7, 10, 1_369_413_360, Int64.max])
    func integers(_ v: Int64) {
        let (fast, slow) = both({ $0.field(commaQuoted: Self.k, integer: v) }, { $0.integer(v) })
        expectEqual(fast, slow)
        expectEqual(fast, "{\"v\":\(v),\"v\":\(v)}")
        let u = v.magnitude
        let (ufast, uslow) = both({ $0.field(commaQuoted: Self.k, integer: u) }, { $0.integer(u) })
        expectEqual(ufast, uslow)
    }

    @Test(arguments: [0.0, -0.0, 563.3214, -0.0004, 1e300, -2.2250738585072014e-308, .nan, .infinity, 9e15])
    func numbers(_ v: Double) {
        for style in [JSONNumberStyle.thousandths, .shortest] {
            let (fast, slow) = both({ $0.field(commaQuoted: Self.k, number: v, style: style) }, { $0.number(v, style: style) })
            expectEqual(fast, slow)
        }
        let (nilFast, nilSlow) = both({ $0.field(commaQuoted: Self.k, number: nil) }, { $0.null() })
        expectEqual(nilFast, nilSlow)
        expectEqual(nilFast, #"{"v":null,"v":null}"#)
    }

    @Test(arguments: [Int64.min, -1, 0, 1_369_413_360_218_061, 100_000_000, Int64.max])
    func times(_ microseconds: Int64) {
        let (fast, slow) = both({ $0.field(commaQuoted: Self.k, time: microseconds) }, { $0.appendTime(microseconds) })
        expectEqual(fast, slow)
    }

    @Test func null() {
        let (fast, slow) = both({ $0.field(commaQuotedNull: Self.k) }, { $0.null() })
        expectEqual(fast, slow)
        expectEqual(fast, #"{"v":null,"v":null}"#)
    }
}

/// Writes gathered in stack memory (`combiningWrites`) come out as the same bytes as writes
/// appended one by one: short and long strings (beyond the gathering memory), escapes, numbers,
/// nesting, a line longer than the memory (flushed part-way), after bytes already there.
@Suite("JSON writer: combined writes")
struct JSONWriterCombinedTests {
    static func write(_ w: inout JSONWriter, _ values: [String]) {
        w.beginObject()
        for (i, v) in values.enumerated() {
            w.field(commaQuoted: JSONWriter.commaQuoted("s"), string: v)
            w.key("k\(i)\u{1}")
            w.beginArray()
            w.string(v)
            w.number(Double(i) / 3)
            w.number(.nan)
            w.integer(Int64(-i))
            w.integer(UInt64(i))
            w.appendTime(Int64(i) * 1_000_123)
            w.bool(i % 2 == 0)
            w.null()
            w.endArray()
            w.field(commaQuoted: JSONWriter.commaQuoted("n"), number: Double(i), style: .shortest)
            w.field(commaQuotedNull: JSONWriter.commaQuoted("z"))
        }
        w.endObject()
        w.endLine()
    }

    @Test(arguments: [
        ["touch", "home/root/grid/b"],
        ["a\"b", "back\\slash", "tab\tnew\nline", "é→☃", ""],
        [String(repeating: "x", count: 1022), String(repeating: "y", count: 1023), String(repeating: "z", count: 3000)],
        (0..<60).map { "region-\($0)" },   // one line of ~4 KiB: the memory fills and is flushed part-way
    ])
    func sameBytes(_ values: [String]) {
        var plain = JSONWriter(), combined = JSONWriter()
        plain.bytes.append(contentsOf: Array("before\n".utf8))
        combined.bytes.append(contentsOf: Array("before\n".utf8))
        Self.write(&plain, values)
        combined.combiningWrites { Self.write(&$0, values) }
        expect(combined.bytes.count > 7)
        expectEqual(String(decoding: combined.bytes, as: UTF8.self), String(decoding: plain.bytes, as: UTF8.self))
        // The text is JSON that reads back.
        let line = Array(plain.bytes.dropFirst(7).dropLast())
        expect((try? JSONValue.parse(utf8: line)) != nil)
    }
}

@Suite("JSON writer: members keyed by a literal")
struct JSONWriterMemberTests {
    /// A number to 1/1000 and a time from microseconds, through the members' own formatters,
    /// are the bytes of the general fixed-point formatter of the value rounded as `rounded()`
    /// does (halves away from zero), negative values, halves and large values included.
    @Test func numbersAndTimesAreTheFixedPointFormattersText() {
        var values: [Double] = [0, -0.0, 1, -1, 0.5, -0.5, 0.0005, -0.0005, 0.0015, 2.5e-4, 12.3456, 12.3455, 99.9995,
                                -99.9995, 1280, 799.999, 0.001, 0.01, 0.1, 0.12, 123456.789, -123456.7895,
                                8.999999e15, -8.999999e15, 4503599627370.4995, 1.0000000000000002]
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<2000 {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            let units = Double(Int64(bitPattern: seed >> 20) % 4_000_000) / 2   // halves of thousandths, too
            values.append(units / 1000)
            values.append(Double(bitPattern: (seed >> 12) | 0x3FF0_0000_0000_0000) * Double(seed % 3000))
        }
        for v in values {
            var member = JSONWriter()
            member.member("x", thousandths: v)
            var reference: [UInt8] = Array(#""x":"#.utf8)
            JSONText.appendFixed(Int64((v * 1000).rounded()), decimals: 3, to: &reference)
            expectEqual(member.bytes, reference, "\(v)")
            var number = JSONWriter()
            number.number(v)
            expectEqual(number.bytes, Array(reference.dropFirst(4)), "\(v)")
        }
        var nothing = JSONWriter()
        nothing.member("x", thousandths: nil)
        nothing.member("y", thousandths: .nan)
        expectEqual(String(decoding: nothing.bytes, as: UTF8.self), #""x":null,"y":null"#)
        let times: [Int64] = [0, 1, 10, 999_999, 1_000_000, 1_500_000, 1_500_010, 1_508_125_000, 1_508_000_100,
                              3_600_000_000_001, -1, -1_500_000, -1_000, Int64.max, Int64.min + 1]
        for us in times {
            var member = JSONWriter()
            member.member("time", time: us)
            var reference: [UInt8] = Array(#""time":"#.utf8)
            JSONText.appendFixed(us, decimals: 6, to: &reference)
            expectEqual(member.bytes, reference, "\(us)")
        }
    }

    /// Members are their key's and value's text, with the comma where one is due.
    @Test func membersAreKeyThenValue() {
        var w = JSONWriter()
        w.beginObject()
        w.member("type", literal: "touch")
        w.member("touch", integer: Int64(-3))
        w.member("id", integer: UInt64.max)
        w.member("region", string: "home/root")
        w.member("quoted", string: "a\"b")
        w.member("handler", null: ())
        w.endObject()
        expectEqual(String(decoding: w.bytes, as: UTF8.self), #"{"type":"touch","touch":-3,"id":18446744073709551615,"region":"home/root","quoted":"a\"b","handler":null}"#)
    }
}
