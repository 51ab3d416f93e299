import Testing
import EvrouteChecks
@testable import EvrouteDaemon
import EvrouteCore
import EvrouteJSON
import EvrouteSystem

/// The touch line's parts written without a loop: the phase's name as words, small numbers a
/// digit at a time, held to the plain text they replace.
@Suite struct LogLineWordsTests {
    @Test func aPhasesWordsSpellASpaceAndItsName() {
        for phase in [TouchPhase.began, .moved, .stationary, .ended, .cancelled] {
            let (words, count) = LogPlugin.phaseWords(phase)
            var bytes: [UInt8] = []
            for word in [words.0, words.1, words.2] {
                for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: UInt64(littleEndian: word) >> UInt64(shift))) }
            }
            let expected = [UInt8(ascii: " ")] + LogPlugin.phaseName(phase).withUTF8Buffer { Array($0) }
            expectEqual(Array(bytes[..<count]), expected, "\(phase)")
            expect(bytes[count...].allSatisfy { $0 == 0 }, "\(phase)")
        }
    }

    @Test func smallNumbersAreWrittenInDecimal() {
        for v in Array(0..<1_100) + [1_999, 2_000, 9_099, 9_990, 9_999] {
            var line = LogLine()
            line.write(maximum: 8) { text in text.withBytes(maximum: 8) { LogPlugin.writeSmall(v, to: &$0) } }
            expectEqual(String(decoding: line.bytes, as: UTF8.self), String(v), "\(v)")
        }
    }
}
