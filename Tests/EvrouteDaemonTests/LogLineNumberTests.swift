import Testing
import EvrouteChecks
@testable import EvrouteDaemon
import EvrouteCore
import EvrouteJSON
import EvrouteSystem
import EvrouteTestSupport

/// The log line's numbers, written by hand for speed (no libm rounding, whole seconds kept
/// from the line before), against the plain formulas they replace: `rounded()` to 1/1000 and
/// ``JSONText/writeFixed(_:decimals:to:)``.
@Suite struct LogLineNumberTests {
    /// The reference: the coordinate as it was written before (rounded, then fixed-point).
    static func referenceCoordinate(_ v: Double) -> String {
        var out: [UInt8] = []
        let units = Int64((v * 1000).rounded())
        if units % 1000 == 0 { JSONText.appendInteger(units / 1000, to: &out) } else { JSONText.appendFixed(units, decimals: 3, to: &out) }
        return String(decoding: out, as: UTF8.self)
    }

    static func coordinate(_ v: Double) -> String {
        var line = LogLine()
        LogPlugin.coordinate(v, into: &line)
        return String(decoding: line.bytes, as: UTF8.self)
    }

    @Test func coordinatesMatchTheRoundedFixedPointText() {
        let edges: [Double] = [0, -0.0, 0.0004, -0.0004, 0.0005, -0.0005, 0.0015, 0.4995, 0.5, -0.5, 1, -1, 999.9995,
                               -999.9995, 412.5, 96, 389.589, -389.589, 0.001, -0.001, 0.01, -0.25, 1279.999, 2.675,
                               1e12 + 0.125, -(1e12 + 0.125), 8.999e15, -8.999e15, 4503599627370.4995]
        for v in edges { expectEqual(Self.coordinate(v), Self.referenceCoordinate(v), "\(v)") }
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let scale = [1.0, 10, 1000, 1e6, 1e9][Int.random(in: 0..<5, using: &rng)]
            let v = Double.random(in: -scale...scale, using: &rng)
            expectEqual(Self.coordinate(v), Self.referenceCoordinate(v), "\(v)")
            // Exact halves and thousandths, where rounding decides.
            let half = (Double(Int.random(in: -2_000_000...2_000_000, using: &rng)) + 0.5) / 1000
            expectEqual(Self.coordinate(half), Self.referenceCoordinate(half), "\(half)")
        }
    }

    @Test func timesMatchTheFixedPointTextAcrossSeconds() {
        var seconds = SecondsText()
        let times: [Int64] = [0, 1, 10, 999_999, 1_000_000, 1_000_001, 1_500_000, 1_500_000, 1_999_990, 2_000_000,
                              1_369_413_358_008_095, 1_369_413_358_024_093, 1_369_413_359_000_000, 1_369_413_358_100_000,
                              -1, -1_500_000, 86_400_000_000, 86_400_000_001]
        for us in times {
            var line = LogLine()
            line.write(maximum: SecondsText.maximumLength) { text in
                text.withBytes(maximum: SecondsText.maximumLength) { seconds.write(Timestamp(microseconds: us), to: &$0) }
            }
            var expected: [UInt8] = []
            JSONText.appendFixed(us, decimals: 6, to: &expected)
            expectEqual(line.bytes, expected, "\(us)")
        }
    }
}
