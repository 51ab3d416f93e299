import EvrouteConfig
import EvrouteCore
import EvrouteInput
import Testing
import EvrouteChecks
import EvrouteTestSupport

/// The key names a config may use are the linked libevdev's (``LibevdevKeyNames``, registered by
/// the binary and the test support): every name it gives an `EV_KEY` code is accepted, another
/// spelling it reads is sent to the name events carry, and a near miss gets a did-you-mean.
@Suite("Key names")
struct KeyNamesTableTests {
    /// What libevdev names each code `0...KEY_MAX`, asked directly.
    static let libevdev: [(code: UInt16, name: String)] = (0...KeyNames.maxCode).compactMap { code in
        EventCodeNames.codeName(type: EventType.key, code: UInt16(code)).map { (UInt16(code), $0) }
    }

    @Test func theProviderIsLibevdevs() {
        let names = LibevdevKeyNames.shared
        expectEqual(names.allNames, Self.libevdev.map(\.name))
        expect(Self.libevdev.count > 500, "libevdev names hundreds of keys and buttons: \(Self.libevdev.count)")
        for (code, name) in Self.libevdev {
            expectEqual(names.name(of: code), name)
            expectEqual(names.code(named: name), code)
        }
        expect(names.code(named: "KEY_NOT_A_KEY") == nil)
        useLibevdevKeyNames()
        expectEqual(KeyNames.provider.allNames, names.allNames)
    }

    @Test func everyNameLibevdevGivesIsAcceptedAsAKeyAndInAChord() throws {
        let on = Self.libevdev.map { "\"key:\($0.name)\", \"key:ctrl+\($0.name)\"" }.joined(separator: ", ")
        let yaml = """
            displays: [{ name: main, size: [800, 480] }]
            screens:
              - name: home
                root: { name: root, frame: [0, 0, 800, 480] }
            application:
              handlers:
                - { plugin: log, on: [\(on)] }
            """
        let (_, layout) = try ConfigLoader.compile(yaml: yaml, file: "keys.yaml")
        expectEqual(layout.handlers.count, 1)
        for (_, name) in Self.libevdev {
            expectEqual((try? KeyChord.read("alt+\(name)").get()), KeyChord(modifiers: .alt, key: name))
        }
    }

    /// Every message `evroute check` gives for a key name it does not take, as written.
    static func errors(_ on: String, press: [String] = []) -> [String] {
        let yaml = """
            displays: [{ name: main, size: [800, 480] }]
            plugins: [{ name: desktop, type: forward }]
            screens:
              - name: home
                root: { name: root, frame: [0, 0, 800, 480] }
            application:
              handlers:
                - { plugin: log, on: [\(on)] }
            """ + press.map { "\n    - { plugin: desktop, on: [idle], press: \"\($0)\" }" }.joined()
        do {
            _ = try ConfigLoader.compile(yaml: yaml, file: "keys.yaml")
            return []
        } catch {
            return error.errors.map { $0.message }
        }
    }

    @Test func aNearMissGetsADidYouMean() {
        expectEqual(Self.errors(#"key:KEY_ENTR, key:BTN_LEFTT, key:KEY_VOLUMEUPP, "key:ctrl+KEY_QQ", key:KEY_768, key:KEY_CNT"#,
                            press: ["alt+KEY_HOMEE"]), [
            "unknown key 'KEY_ENTR' in 'on' (not a key name of libevdev's table, e.g. KEY_ENTER, KEY_F12, BTN_LEFT); did you mean 'key:KEY_ENTER'?",
            "unknown key 'BTN_LEFTT' in 'on' (not a key name of libevdev's table, e.g. KEY_ENTER, KEY_F12, BTN_LEFT); did you mean 'key:BTN_LEFT'?",
            "unknown key 'KEY_VOLUMEUPP' in 'on' (not a key name of libevdev's table, e.g. KEY_ENTER, KEY_F12, BTN_LEFT); did you mean 'key:KEY_VOLUMEUP'?",
            "unknown key 'KEY_QQ' in chord 'key:ctrl+KEY_QQ' (not a key name of libevdev's table, e.g. KEY_W, KEY_F4); did you mean 'KEY_Q'?",
            "unknown key 'KEY_768' in 'on' (not a key name of libevdev's table, e.g. KEY_ENTER, KEY_F12, BTN_LEFT); did you mean 'key:KEY_F6'?",
            "unknown key 'KEY_CNT' in 'on' (not a key name of libevdev's table, e.g. KEY_ENTER, KEY_F12, BTN_LEFT); did you mean 'key:KEY_CUT'?",
            "'press' of a 'forward' handler: unknown key 'KEY_HOMEE' in 'alt+KEY_HOMEE' (a key name of libevdev's table, e.g. KEY_F5); did you mean 'KEY_HOME'?",
        ])
    }

    /// libevdev reads another spelling of a few codes (`BTN_A` for `BTN_SOUTH`): events never
    /// carry it, so it is an error naming the one they do carry. Names libevdev does not read
    /// (the kernel header's `BTN_MOUSE`, `KEY_SCREENLOCK`) are unknown keys.
    @Test func anotherSpellingNamesTheOneEventsCarry() {
        for (alias, canonical) in [("BTN_A", "BTN_SOUTH"), ("BTN_B", "BTN_EAST"), ("BTN_X", "BTN_NORTH"), ("BTN_Y", "BTN_WEST")] {
            expectEqual(LibevdevKeyNames.shared.canonicalName(of: alias), canonical)
            expectEqual(EventCodeNames.code(named: alias, type: EventType.key), EventCodeNames.code(named: canonical, type: EventType.key))
        }
        expectEqual(Self.errors(#""key:BTN_A", "key:ctrl+BTN_A", key:BTN_MOUSE, key:KEY_SCREENLOCK"#,
                            press: ["BTN_A", "KEY_MIN_INTERESTING"]), [
            "key 'BTN_A' is named 'BTN_SOUTH' by libevdev (the name its events carry): write 'key:BTN_SOUTH'",
            "unknown key 'BTN_A' in chord 'key:ctrl+BTN_A' (not a key name of libevdev's table, e.g. KEY_W, KEY_F4); did you mean 'BTN_SOUTH'?",
            "unknown key 'BTN_MOUSE' in 'on' (not a key name of libevdev's table, e.g. KEY_ENTER, KEY_F12, BTN_LEFT); did you mean 'key:BTN_MODE'?",
            "unknown key 'KEY_SCREENLOCK' in 'on' (not a key name of libevdev's table, e.g. KEY_ENTER, KEY_F12, BTN_LEFT)",
            "'press' of a 'forward' handler: unknown key 'BTN_A' in 'BTN_A' (a key name of libevdev's table, e.g. KEY_F5); libevdev names it 'BTN_SOUTH'",
            "'press' of a 'forward' handler: unknown key 'KEY_MIN_INTERESTING' in 'KEY_MIN_INTERESTING' (a key name of libevdev's table, e.g. KEY_F5)",
        ])
    }

    /// A code libevdev has no name for is spelled `KEY_<code>` (as the log writes it), up to `KEY_MAX`.
    @Test func anUnnamedCodeIsSpelledByNumber() {
        expectEqual(Self.errors("key:KEY_28, key:KEY_767"), [])
    }
}
