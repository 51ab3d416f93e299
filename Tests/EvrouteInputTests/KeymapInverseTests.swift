import EvrouteCore
@testable import EvrouteInput
import Glibc
import Testing
import EvrouteChecks

/// A keymap read backwards (for typing a line on the virtual keyboard): each character's key
/// and modifier keys, on real xkb keymaps; and typed forwards again through the same keymap,
/// the strokes give the line back.
@Suite("Keymap inverse")
struct KeymapInverseTests {
    static var xkbData: Bool { TextDecoderTests.xkbData }

    func inverse(_ layout: String) throws -> (KeymapInverse, Keymap) {
        let map = try TextDecoderTests.library.keymap(KeymapSpec(layout: layout))
        return (KeymapInverse(map), map)
    }

    @Test("us: letters, Shift, digits and symbols", .enabled(if: xkbData))
    func us() throws {
        let (inv, _) = try inverse("us")
        expectEqual(inv.stroke(for: "a"), .init(modifiers: [], key: 30))
        expectEqual(inv.stroke(for: "A"), .init(modifiers: [42], key: 30))
        expectEqual(inv.stroke(for: "@"), .init(modifiers: [42], key: 3))       // Shift+2
        expectEqual(inv.stroke(for: "1"), .init(modifiers: [], key: 2))
        expectEqual(inv.stroke(for: " "), .init(modifiers: [], key: 57))
        expectEqual(inv.stroke(for: "z"), .init(modifiers: [], key: 44))
        expectEqual(inv.stroke(for: "€"), .init(modifiers: [], key: 435))      // KEY_EURO: no main-block key types it
        let (strokes, untyped) = inv.strokes(for: "abüñ")
        expect(strokes.count == 2 && untyped == 2)
    }

    @Test("de: z and y swapped, AltGr for @ and €, umlauts", .enabled(if: xkbData))
    func de() throws {
        let (inv, _) = try inverse("de")
        expectEqual(inv.stroke(for: "z"), .init(modifiers: [], key: 21))        // KEY_Y
        expectEqual(inv.stroke(for: "y"), .init(modifiers: [], key: 44))        // KEY_Z
        expectEqual(inv.stroke(for: "@"), .init(modifiers: [100], key: 16))     // AltGr+Q
        expectEqual(inv.stroke(for: "€"), .init(modifiers: [100], key: 18))     // AltGr+E
        expectEqual(inv.stroke(for: "ü"), .init(modifiers: [], key: 26))
        expectEqual(inv.stroke(for: "Ä"), .init(modifiers: [42], key: 40))
        expectEqual(inv.strokes(for: "ñ").untyped, 1)
    }

    @Test("Typed forwards through the keymap, the strokes give the line back", .enabled(if: xkbData))
    func roundTrip() throws {
        for (layout, line) in [("us", "Hello, World! 42 #a_b"), ("de", "Grüße, Zoë? @ 3€ yz")] {
            let (inv, map) = try inverse(layout)
            let (strokes, untyped) = inv.strokes(for: line)
            let expectedUntyped = layout == "de" ? 1 : 0   // ë is a dead key's on de: no single key
            expectEqual(untyped, expectedUntyped, "\(layout)")
            let decoder = try #require(TextDecoder(keymap: map, composeTable: nil))
            var typed = ""
            var t: Int64 = 0
            func key(_ code: UInt16, _ phase: KeyPhase) -> TextOutput {
                t += 1000
                return decoder.feed(KeyInput(device: DeviceID(1), time: Timestamp(microseconds: t), code: Int(code),
                                             name: EventCodeNames.keyName(code), phase: phase))
            }
            for s in strokes {
                for m in s.modifiers { _ = key(m, .down) }
                if case .text(let x) = key(s.key, .down) { typed += x }
                _ = key(s.key, .up)
                for m in s.modifiers.reversed() { _ = key(m, .up) }
            }
            expectEqual(typed, line.replacingOccurrences(of: "ë", with: ""), "\(layout)")
        }
    }
}
