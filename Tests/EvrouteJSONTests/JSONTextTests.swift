import Testing
import EvrouteJSON

private func quoted(_ s: String) -> String { JSONText.quoted(s) }
private func thousandths(_ v: Double) -> String { JSONText.number(v, style: .thousandths) }
private func shortest(_ v: Double) -> String { JSONText.number(v, style: .shortest) }

@Suite("JSON text: the one escaper and number formatter")
struct JSONTextTests {
    // MARK: Escaping

    @Test func quotesBackslashAndTheNamedControlEscapes() {
        #expect(quoted("") == #""""#)
        #expect(quoted("plain text") == #""plain text""#)
        #expect(quoted(#"say "hi""#) == #""say \"hi\"""#)
        #expect(quoted(#"C:\path\"#) == #""C:\\path\\""#)
        #expect(quoted("a\nb\rc\td") == #""a\nb\rc\td""#)
        #expect(quoted("/") == #""/""#)   // never escaped
    }

    @Test func otherControlCharactersAreLowerCaseUnicodeEscapes() {
        #expect(quoted("\u{0}") == #""\u0000""#)
        #expect(quoted("\u{1}\u{1f}") == #""\u0001\u001f""#)
        // \b and \f are written as \u escapes, not their short forms.
        #expect(quoted("\u{8}\u{c}") == #""\u0008\u000c""#)
        #expect(quoted("\u{1b}[0m") == #""\u001b[0m""#)
        // DEL and the C1 range are not escaped.
        #expect(quoted("\u{7f}\u{80}") == "\"\u{7f}\u{80}\"")
        // Every control character below U+0020.
        for c in 0..<0x20 {
            let s = quoted(String(Unicode.Scalar(UInt8(c))))
            #expect(s.hasPrefix("\"\\"), "\(c)")
            #expect(s.utf8.allSatisfy { $0 >= 0x20 }, "\(c)")
        }
    }

    @Test func nonASCIIIsCopiedAsUTF8() {
        #expect(quoted("Ünïcødé ×") == "\"Ünïcødé ×\"")
        #expect(quoted("😀") == "\"😀\"")
        #expect(Array(quoted("😀").utf8) == [0x22, 0xF0, 0x9F, 0x98, 0x80, 0x22])
        // Line and paragraph separators pass through (valid JSON).
        #expect(quoted("\u{2028}\u{2029}") == "\"\u{2028}\u{2029}\"")
    }

    @Test func escapesInTheMiddleOfLongRuns() {
        let long = String(repeating: "x", count: 1000)
        #expect(quoted(long + "\"" + long) == "\"" + long + "\\\"" + long + "\"")
    }

    // MARK: Numbers: the trace's thousandths

    @Test func thousandthsAlwaysHaveAFraction() {
        #expect(thousandths(96) == "96.0")
        #expect(thousandths(0) == "0.0")
        #expect(thousandths(412.5) == "412.5")
        #expect(thousandths(78.4375) == "78.438")
        #expect(thousandths(12.3333333) == "12.333")
        #expect(thousandths(1.05) == "1.05")
        #expect(thousandths(0.001) == "0.001")
        #expect(thousandths(-0.5) == "-0.5")
        #expect(thousandths(-1280) == "-1280.0")
    }

    @Test func thousandthsNegativeZeroAndTinyValues() {
        #expect(thousandths(-0.0) == "0.0")
        #expect(thousandths(-0.0004) == "0.0")
        #expect(thousandths(0.0004) == "0.0")
        #expect(thousandths(-0.0006) == "-0.001")
        #expect(thousandths(0.0006) == "0.001")
    }

    @Test func thousandthsOfHugeValuesDoNotTrap() {
        #expect(thousandths(8e15) == "8000000000000000.0")
        #expect(thousandths(9e15) == "9000000000000000.0")
        #expect(thousandths(1e16) == "1e+16")
        #expect(thousandths(-1e300) == "-1e+300")
        #expect(thousandths(.greatestFiniteMagnitude) == "1.7976931348623157e+308")
    }

    @Test func nonFiniteNumbersAreNull() {
        for style in [JSONNumberStyle.thousandths, .shortest] {
            #expect(JSONText.number(.nan, style: style) == "null")
            #expect(JSONText.number(.infinity, style: style) == "null")
            #expect(JSONText.number(-.infinity, style: style) == "null")
        }
    }

    // MARK: Numbers: the control protocol's shortest form

    @Test func shortestWritesWholeNumbersAsIntegers() {
        #expect(shortest(96) == "96")
        #expect(shortest(1280) == "1280")
        #expect(shortest(-3) == "-3")
        #expect(shortest(0) == "0")
        #expect(shortest(-0.0) == "0")
        #expect(shortest(8_999_999_999_999_998) == "8999999999999998")
    }

    @Test func shortestWritesOtherNumbersInTheShortestRoundTripForm() {
        #expect(shortest(3.004) == "3.004")
        #expect(shortest(0.0059) == "0.0059")
        #expect(shortest(0.1) == "0.1")
        #expect(shortest(412.3333333333333) == "412.3333333333333")
        #expect(shortest(-2.5) == "-2.5")
        #expect(shortest(1.5e-7) == "1.5e-07")
        #expect(shortest(Double.leastNonzeroMagnitude) == "5e-324")
        #expect(shortest(-2.2250738585072014e-308) == "-2.2250738585072014e-308")   // the longest form: 24 bytes
        #expect(shortest(9e15) == "9000000000000000.0")   // Swift's description up to 2^53
        #expect(shortest(1e16) == "1e+16")
        #expect(shortest(-1e300) == "-1e+300")
        for v in [0.1, 1.0 / 3, 2.0 / 3 * 1e-10, 123456.789, 1e21, -7.25e-200] {
            #expect(Double(shortest(v)) == v)
        }
    }

    // MARK: Integers and fixed point

    @Test func integers() {
        func text(_ body: (inout [UInt8]) -> Void) -> String {
            var out: [UInt8] = []
            body(&out)
            return String(decoding: out, as: UTF8.self)
        }
        #expect(text { JSONText.appendInteger(Int64(0), to: &$0) } == "0")
        #expect(text { JSONText.appendInteger(Int64(7), to: &$0) } == "7")
        #expect(text { JSONText.appendInteger(Int64(-42), to: &$0) } == "-42")
        #expect(text { JSONText.appendInteger(Int64.max, to: &$0) } == "9223372036854775807")
        #expect(text { JSONText.appendInteger(Int64.min, to: &$0) } == "-9223372036854775808")
        #expect(text { JSONText.appendInteger(UInt64.max, to: &$0) } == "18446744073709551615")
        #expect(text { JSONText.appendFixed(1_508_125_000, decimals: 6, to: &$0) } == "1508.125")
        #expect(text { JSONText.appendFixed(100_000_000, decimals: 6, to: &$0) } == "100.0")
        #expect(text { JSONText.appendFixed(100_009_276, decimals: 6, to: &$0) } == "100.009276")
        #expect(text { JSONText.appendFixed(1, decimals: 6, to: &$0) } == "0.000001")
        #expect(text { JSONText.appendFixed(-1, decimals: 6, to: &$0) } == "-0.000001")
        #expect(text { JSONText.appendFixed(Int64.min, decimals: 3, to: &$0) } == "-9223372036854775.808")
    }

    /// The formatter writes two digits per division: every digit count, both signs and every
    /// number of decimals against Swift's own integer description (an independent reference).
    @Test func integersAndFixedPointAgreeWithSwiftsDescription() {
        var values: [Int64] = [0, 1, -1, 9, 10, 99, 100, 101, 999, 1000, Int64.max, Int64.min, Int64.max - 1]
        var x: UInt64 = 0x9E37_79B9_7F4A_7C15
        var power: Int64 = 1
        for _ in 0..<18 {
            power *= 10
            values += [power - 1, power, power + 1, -(power - 1), -power]
        }
        for _ in 0..<2000 {
            x = x &* 6364136223846793005 &+ 1442695040888963407
            let v = Int64(bitPattern: x) >> Int64(x % 60)
            values.append(v)
        }
        for v in values {
            var out: [UInt8] = []
            JSONText.appendInteger(v, to: &out)
            #expect(String(decoding: out, as: UTF8.self) == String(v))
            for decimals in 1...18 {
                var fixed: [UInt8] = []
                JSONText.appendFixed(v, decimals: decimals, to: &fixed)
                #expect(String(decoding: fixed, as: UTF8.self) == Self.reference(v, decimals: decimals), "\(v) \(decimals)")
            }
        }
    }

    /// `units` × 10^-`decimals` from the integer's digits: the point moved, trailing zeros trimmed.
    static func reference(_ units: Int64, decimals: Int) -> String {
        var digits = String(units.magnitude)
        if digits.count <= decimals { digits = String(repeating: "0", count: decimals - digits.count + 1) + digits }
        var whole = String(digits.dropLast(decimals))
        var fraction = String(digits.suffix(decimals))
        while fraction.count > 1, fraction.hasSuffix("0") { fraction.removeLast() }
        if whole.isEmpty { whole = "0" }
        return (units < 0 ? "-" : "") + whole + "." + fraction
    }
}
