import EvrouteCore
@testable import EvrouteInput
import Glibc
import Testing
import EvrouteChecks

/// Keys → text through libxkbcommon: layouts, modifiers, dead keys and compose,
/// what counts as text, and a scanner's lines.
@Suite("Text from keys")
struct TextDecoderTests {
    /// One per test: tests run in parallel, a library belongs to one loop.
    static var library: KeymapLibrary { KeymapLibrary(environment: { _ in nil }) }
    static var xkbData: Bool { access(KeymapLibrary.dataRoot + "/rules/evdev", R_OK) == 0 }
    static var composeData: Bool { access("/usr/share/X11/locale/compose.dir", R_OK) == 0 }

    /// Types `keys` (`+` before a name: held until the end; `name` alone: pressed and released)
    /// and returns what each press typed.
    static func type(_ keys: [String], keymap: KeymapSpec = .default, compose: Bool = true) throws -> [TextOutput] {
        let library = Self.library
        let map = try library.keymap(keymap)
        let decoder = try #require(TextDecoder(keymap: map, composeTable: compose ? library.compose() : nil))
        var out: [TextOutput] = []
        var held: [KeyInput] = []
        var t: Int64 = 0
        for k in keys {
            let hold = k.hasPrefix("+")
            let name = hold ? String(k.dropFirst()) : k
            let code = try #require(EventCodeNames.code(named: name, type: EventType.key), "\(name)")
            t += 1000
            let down = KeyInput(device: DeviceID(1), time: Timestamp(microseconds: t), code: Int(code), name: name, phase: .down)
            out.append(decoder.feed(down))
            var up = down
            up.phase = .up
            if hold { held.append(up) } else { _ = decoder.feed(up) }
        }
        for up in held.reversed() { _ = decoder.feed(up) }
        return out
    }

    static func text(_ outputs: [TextOutput]) -> String {
        outputs.map { if case .text(let s) = $0 { s } else { "" } }.joined()
    }

    @Test("us: letters, digits, Shift and Caps Lock", .enabled(if: xkbData))
    func usLayout() throws {
        try expectEqual(Self.text(try Self.type(["KEY_H", "KEY_I", "KEY_1", "KEY_SPACE", "KEY_MINUS"])), "hi1 -")
        try expectEqual(Self.text(try Self.type(["+KEY_LEFTSHIFT", "KEY_H", "KEY_1", "KEY_SLASH"])), "H!?")
        try expectEqual(Self.text(try Self.type(["KEY_CAPSLOCK", "KEY_A", "KEY_B", "KEY_CAPSLOCK", "KEY_C"])), "ABc")
    }

    @Test("de: KEY_Y types z, KEY_Z types y, AltGr+Q types @", .enabled(if: xkbData))
    func germanLayout() throws {
        let de = KeymapSpec(layout: "de")
        try expectEqual(try Self.type(["KEY_Y"], keymap: de), [.text("z")])
        try expectEqual(try Self.type(["KEY_Z"], keymap: de), [.text("y")])
        try expectEqual(Self.text(try Self.type(["+KEY_RIGHTALT", "KEY_Q"], keymap: de)), "@")
        try expectEqual(Self.text(try Self.type(["KEY_SEMICOLON", "KEY_APOSTROPHE", "KEY_LEFTBRACE"], keymap: de)), "öäü")
        try expectEqual(Self.text(try Self.type(["+KEY_LEFTSHIFT", "KEY_SEMICOLON"], keymap: de)), "Ö")
    }

    @Test("Dead keys: de's ´ then e is é; with nodeadkeys ´ types itself", .enabled(if: xkbData && composeData))
    func deadKeys() throws {
        let de = KeymapSpec(layout: "de")
        let outputs = try Self.type(["KEY_EQUAL", "KEY_E"], keymap: de)
        expectEqual(outputs, [.none, .text("é")])
        // ^ then a space: the circumflex itself.
        try expectEqual(Self.text(try Self.type(["KEY_GRAVE", "KEY_SPACE"], keymap: de)), "^")
        let plain = try Self.type(["KEY_EQUAL", "KEY_E"], keymap: KeymapSpec(layout: "de", variant: "nodeadkeys"))
        expectEqual(plain, [.text("´"), .text("e")])
        // Without a compose table a dead key types nothing, and the next key types itself.
        try expectEqual(try Self.type(["KEY_EQUAL", "KEY_E"], keymap: de, compose: false), [.none, .text("e")])
    }

    @Test("Compose sequences (compose:ralt): Compose ' e is é, Compose o c is ©", .enabled(if: xkbData && composeData))
    func composeSequences() throws {
        let us = KeymapSpec(layout: "us", options: ["compose:ralt"])
        try expectEqual(Self.text(try Self.type(["KEY_RIGHTALT", "KEY_APOSTROPHE", "KEY_E"], keymap: us)), "é")
        try expectEqual(Self.text(try Self.type(["KEY_RIGHTALT", "KEY_O", "KEY_C", "KEY_X"], keymap: us)), "©x")
    }

    @Test("Enter ends a line; Tab, Backspace, Escape and Ctrl+C type nothing", .enabled(if: xkbData))
    func controlKeys() throws {
        try expectEqual(try Self.type(["KEY_ENTER", "KEY_KPENTER"]), [.lineEnd, .lineEnd])
        try expect(try Self.type(["KEY_TAB", "KEY_BACKSPACE", "KEY_ESC", "KEY_DELETE", "KEY_F1", "KEY_VOLUMEUP", "KEY_PLAYPAUSE"])
                .allSatisfy { $0 == .none })
        try expectEqual(try Self.type(["+KEY_LEFTCTRL", "KEY_C"]), [.none, .none])
    }

    @Test("A key pressed with Ctrl, Alt or Super (either side) types nothing; AltGr still types", .enabled(if: xkbData))
    func chordsTypeNothing() throws {
        for mod in ["KEY_LEFTCTRL", "KEY_RIGHTCTRL", "KEY_LEFTALT", "KEY_RIGHTALT", "KEY_LEFTMETA", "KEY_RIGHTMETA"] {
            try expectEqual(try Self.type(["+\(mod)", "KEY_C", "+KEY_LEFTSHIFT", "KEY_D"]), [.none, .none, .none, .none], "\(mod)")
        }
        try expectEqual(try Self.type(["+KEY_LEFTSHIFT", "KEY_C"]), [.none, .text("C")])
        try expectEqual(Self.text(try Self.type(["+KEY_RIGHTALT", "KEY_Q"], keymap: KeymapSpec(layout: "de"))), "@")
    }

    @Test("Repeats type again; modifiers do not repeat", .enabled(if: xkbData))
    func repeats() throws {
        let map = try Self.library.keymap(.default)
        let decoder = try #require(TextDecoder(keymap: map, composeTable: nil))
        func key(_ code: Int, _ phase: KeyPhase) -> KeyInput {
            KeyInput(device: DeviceID(1), time: .zero, code: code, name: EventCodeNames.keyName(UInt16(code)), phase: phase)
        }
        expectEqual(decoder.feed(key(30, .down)), .text("a"))
        expectEqual(decoder.feed(key(30, .repeat)), .text("a"))
        expectEqual(decoder.feed(key(30, .up)), .none)
        expectEqual(decoder.feed(key(42, .down)), .none)
        expectEqual(decoder.feed(key(42, .repeat)), .none)
        expectEqual(decoder.feed(key(30, .down)), .text("A"))
    }

    @Test("Keypad digits need Num Lock", .enabled(if: xkbData))
    func keypad() throws {
        try expectEqual(Self.text(try Self.type(["KEY_KP1"])), "")
        try expectEqual(Self.text(try Self.type(["KEY_NUMLOCK", "KEY_KP1", "KEY_KP2", "KEY_KPPLUS"])), "12+")
    }

    @Test("An unknown layout does not compile, and says so", .enabled(if: xkbData))
    func unknownLayout() {
        let library = Self.library
        #expect(throws: KeymapError.self) { try library.keymap(KeymapSpec(layout: "no-such-layout")) }
        do {
            _ = try library.keymap(KeymapSpec(layout: "no-such-layout"))
        } catch {
            expect(error.description.contains("keymap no-such-layout could not be compiled"))
        }
    }

    @Test("The compose table's locale: LC_ALL, LC_CTYPE, LANG, then C.UTF-8")
    func composeLocales() {
        func locales(_ env: [String: String]) -> [String] { KeymapLibrary.composeLocales(environment: { env[$0] }) }
        expectEqual(locales([:]), ["C.UTF-8"])
        expectEqual(locales(["LANG": "C"]), ["C.UTF-8"])
        expectEqual(locales(["LANG": "POSIX"]), ["C.UTF-8"])
        expectEqual(locales(["LANG": "de_DE.UTF-8"]), ["de_DE.UTF-8", "C.UTF-8"])
        expectEqual(locales(["LANG": "de_DE.UTF-8", "LC_CTYPE": "fr_FR.UTF-8"]), ["fr_FR.UTF-8", "C.UTF-8"])
        expectEqual(locales(["LANG": "de_DE.UTF-8", "LC_CTYPE": "fr_FR.UTF-8", "LC_ALL": "C"]), ["C.UTF-8"])
        expectEqual(locales(["LANG": "", "LC_CTYPE": "", "LC_ALL": ""]), ["C.UTF-8"])
    }

    @Test("A locale without a compose table falls back to C.UTF-8's", .enabled(if: xkbData && composeData))
    func composeFallback() {
        let library = KeymapLibrary(environment: { $0 == "LANG" ? "xx_NOWHERE.UTF-8" : nil })
        expect(library.compose() != nil)
        expectEqual(library.composeLocale, "C.UTF-8")
    }

    @Test("A line: text collects until Enter (or the silence runs out); an empty line is nothing")
    func lines() {
        var c = LineCollector(timeout: .milliseconds(300))
        let t0 = Timestamp(microseconds: 1_000_000)
        expect(c.feed(.text("4"), at: t0) == nil)
        expect(c.feed(.none, at: t0) == nil)
        expect(c.feed(.text("2"), at: t0 + .milliseconds(5)) == nil)
        expectEqual(c.deadline, t0 + .milliseconds(305))
        expectEqual(c.feed(.lineEnd, at: t0 + .milliseconds(10)), "42")
        expect(c.deadline == nil)
        expect(c.feed(.lineEnd, at: t0 + .milliseconds(20)) == nil)
        var forever = LineCollector(timeout: nil)
        expect(forever.feed(.text("x"), at: t0) == nil)
        expect(forever.deadline == nil)
        expectEqual(forever.take(), "x")
        expect(forever.take() == nil)
    }
}
