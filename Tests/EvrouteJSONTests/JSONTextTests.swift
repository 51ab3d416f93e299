import Testing
import EvrouteChecks
import EvrouteJSON

private func quoted(_ s: String) -> String { JSONText.quoted(s) }
private func thousandths(_ v: Double) -> String { JSONText.number(v, style: .thousandths) }
private func shortest(_ v: Double) -> String { JSONText.number(v, style: .shortest) }

@Suite("JSON text: the one escaper and number formatter")
struct JSONTextTests {
    // MARK: Escaping

    @Test func quotesBackslashAndTheNamedControlEscapes() {
        expectEqual(quoted(""), #""""#)
        expectEqual(quoted("plain text"), #""plain text""#)
        expectEqual(quoted(#"say "hi""#), #""say \"hi\"""#)
        expectEqual(quoted(#"C:\path\"#), #""C:\\path\\""#)
        expectEqual(quoted("a\nb\rc\td"), #""a\nb\rc\td""#)
        expectEqual(quoted("/"), #""/""#)   // never escaped
    }

    @Test func otherControlCharactersAreLowerCaseUnicodeEscapes() {
        expectEqual(quoted("\u{0}"), #""\u0000""#)
        expectEqual(quoted("\u{1}\u{1f}"), #""\u0001\u001f""#)
        // \b and \f are written as \u escapes, not their short forms.
        expectEqual(quoted("\u{8}\u{c}"), #""\u0008\u000c""#)
        expectEqual(quoted("\u{1b}[0m"), #""\u001b[0m""#)
        // DEL and the C1 range are not escaped.
        expectEqual(quoted("\u{7f}\u{80}"), "\"\u{7f}\u{80}\"")
        // Every control character below U+0020.
        for c in 0..<0x20 {
            let s = quoted(String(Unicode.Scalar(UInt8(c))))
            expect(s.hasPrefix("\"\\"), "\(c)")
            expect(s.utf8.allSatisfy { $0 >= 0x20 }, "\(c)")
        }
    }

    @Test func nonASCIIIsCopiedAsUTF8() {
        expectEqual(quoted("Ünïcødé ×"), "\"Ünïcødé ×\"")
        expectEqual(quoted("😀"), "\"😀\"")
        expectEqual(Array(quoted("😀").utf8), [0x22, 0xF0, 0x9F, 0x98, 0x80, 0x22])
        // Line and paragraph separators pass through (valid JSON).
        expectEqual(quoted("\u{2028}\u{2029}"), "\"\u{2028}\u{2029}\"")
    }

    @Test func escapesInTheMiddleOfLongRuns() {
        let long = String(repeating: "x", count: 1000)
        expectEqual(quoted(long + "\"" + long), "\"" + long + "\\\"" + long + "\"")
    }

    // MARK: Numbers: the trace's thousandths

    @Test func thousandthsAlwaysHaveAFraction() {
        expectEqual(thousandths(96), "96.0")
        expectEqual(thousandths(0), "0.0")
        expectEqual(thousandths(412.5), "412.5")
        expectEqual(thousandths(78.4375), "78.438")
        expectEqual(thousandths(12.3333333), "12.333")
        expectEqual(thousandths(1.05), "1.05")
        expectEqual(thousandths(0.001), "0.001")
        expectEqual(thousandths(-0.5), "-0.5")
        expectEqual(thousandths(-1280), "-1280.0")
    }

    @Test func thousandthsNegativeZeroAndTinyValues() {
        expectEqual(thousandths(-0.0), "0.0")
        expectEqual(thousandths(-0.0004), "0.0")
        expectEqual(thousandths(0.0004), "0.0")
        expectEqual(thousandths(-0.0006), "-0.001")
        expectEqual(thousandths(0.0006), "0.001")
    }

    @Test func thousandthsOfHugeValuesDoNotTrap() {
        expectEqual(thousandths(8e15), "8000000000000000.0")
        expectEqual(thousandths(9e15), "9000000000000000.0")
        expectEqual(thousandths(1e16), "1e+16")
        expectEqual(thousandths(-1e300), "-1e+300")
        expectEqual(thousandths(.greatestFiniteMagnitude), "1.7976931348623157e+308")
    }

    @Test func nonFiniteNumbersAreNull() {
        for style in [JSONNumberStyle.thousandths, .shortest] {
            expectEqual(JSONText.number(.nan, style: style), "null")
            expectEqual(JSONText.number(.infinity, style: style), "null")
            expectEqual(JSONText.number(-.infinity, style: style), "null")
        }
    }

    // MARK: Numbers: the control protocol's shortest form

    @Test func shortestWritesWholeNumbersAsIntegers() {
        expectEqual(shortest(96), "96")
        expectEqual(shortest(1280), "1280")
        expectEqual(shortest(-3), "-3")
        expectEqual(shortest(0), "0")
        expectEqual(shortest(-0.0), "0")
        expectEqual(shortest(8_999_999_999_999_998), "8999999999999998")
    }

    @Test func shortestWritesOtherNumbersInTheShortestRoundTripForm() {
        expectEqual(shortest(3.004), "3.004")
        expectEqual(shortest(0.0059), "0.0059")
        expectEqual(shortest(0.1), "0.1")
        expectEqual(shortest(412.3333333333333), "412.3333333333333")
        expectEqual(shortest(-2.5), "-2.5")
        expectEqual(shortest(1.5e-7), "1.5e-07")
        expectEqual(shortest(Double.leastNonzeroMagnitude), "5e-324")
        expectEqual(shortest(-2.2250738585072014e-308), "-2.2250738585072014e-308")   // the longest form: 24 bytes
        expectEqual(shortest(9e15), "9000000000000000.0")   // Swift's description up to 2^53
        expectEqual(shortest(1e16), "1e+16")
        expectEqual(shortest(-1e300), "-1e+300")
        for v in [0.1, 1.0 / 3, 2.0 / 3 * 1e-10, 123456.789, 1e21, -7.25e-200] {
            expectEqual(Double(shortest(v)), v)
        }
    }

    // MARK: Integers and fixed point

    @Test func integers() {
        func text(_ body: (inout [UInt8]) -> Void) -> String {
            var out: [UInt8] = []
            body(&out)
            return String(decoding: out, as: UTF8.self)
        }
        expectEqual(text { JSONText.appendInteger(Int64(0), to: &$0) }, "0")
        expectEqual(text { JSONText.appendInteger(Int64(7), to: &$0) }, "7")
        expectEqual(text { JSONText.appendInteger(Int64(-42), to: &$0) }, "-42")
        expectEqual(text { JSONText.appendInteger(Int64.max, to: &$0) }, "9223372036854775807")
        expectEqual(text { JSONText.appendInteger(Int64.min, to: &$0) }, "-9223372036854775808")
        expectEqual(text { JSONText.appendInteger(UInt64.max, to: &$0) }, "18446744073709551615")
        expectEqual(text { JSONText.appendFixed(1_508_125_000, decimals: 6, to: &$0) }, "1508.125")
        expectEqual(text { JSONText.appendFixed(100_000_000, decimals: 6, to: &$0) }, "100.0")
        expectEqual(text { JSONText.appendFixed(100_009_276, decimals: 6, to: &$0) }, "100.009276")
        expectEqual(text { JSONText.appendFixed(1, decimals: 6, to: &$0) }, "0.000001")
        expectEqual(text { JSONText.appendFixed(-1, decimals: 6, to: &$0) }, "-0.000001")
        expectEqual(text { JSONText.appendFixed(Int64.min, decimals: 3, to: &$0) }, "-9223372036854775.808")
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
            expectEqual(String(decoding: out, as: UTF8.self), String(v))
            for decimals in 1...18 {
                var fixed: [UInt8] = []
                JSONText.appendFixed(v, decimals: decimals, to: &fixed)
                expectEqual(String(decoding: fixed, as: UTF8.self), Self.reference(v, decimals: decimals), "\(v) \(decimals)")
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
