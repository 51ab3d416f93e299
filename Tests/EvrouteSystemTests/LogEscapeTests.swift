import Testing
import EvrouteChecks
@testable import EvrouteSystem

/// Bytes from peers reach the log escaped (``LogLine/append(peer:)``): control characters and
/// invalid UTF-8 as visible escapes, printable UTF-8 as it is.
@Suite("Log: peer bytes escaped")
struct LogEscapeTests {
    @Test func printableUTF8IsKept() {
        expectEqual(Log.escaped("plain text: é, 日本, 🙂, \u{A0}nbsp"), "plain text: é, 日本, 🙂, \u{A0}nbsp")
    }

    @Test func controlsAreEscaped() {
        expectEqual(Log.escaped("\u{1b}[2J\rforged\u{7}\0\t\n\u{7f}end"), "\\x1b[2J\\rforged\\x07\\0\\t\\n\\x7fend")
        expectEqual(Log.escaped("a\\x1b"), "a\\\\x1b", "a backslash is escaped: a peer cannot write an escape that looks made")
        expectEqual(Log.escaped("csi \u{9b}31m"), "csi \\xc2\\x9b31m", "C1 controls (CSI) too")
    }

    @Test func invalidUTF8IsEscapedByteByByte() {
        let bytes: [UInt8] = [0x41, 0xFF, 0x80, 0xC0, 0x80, 0xED, 0xA0, 0x80, 0xF4, 0x90, 0x80, 0x80, 0xE2, 0x82]
        expectEqual(Log.escaped(bytes), "A\\xff\\x80\\xc0\\x80\\xed\\xa0\\x80\\xf4\\x90\\x80\\x80\\xe2\\x82")
        expectEqual(Log.escaped(Array("€ ok".utf8)[...]), "€ ok")
    }
}
