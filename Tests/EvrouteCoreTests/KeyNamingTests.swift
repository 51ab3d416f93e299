import Testing
import EvrouteChecks
@testable import EvrouteCore

/// The compiler checks key names against the table it is handed (``KeyNaming``): the core holds
/// none. These use the tests' small table (``TestKeyNames``).
@Suite("Key names handed to the compiler")
struct KeyNamingTests {
    func errors(_ on: [EventFilter]) -> [String] {
        do {
            _ = try makeLayout([screen("home", region("root", 0, 0, 1000, 1000))], app: [HandlerSpec(plugin: "p", on: on, options: [:])])
            return []
        } catch let e as Diagnostics {
            return e.errors.map(\.message)
        } catch {
            return ["\(error)"]
        }
    }

    @Test func aNameOfTheTableIsAKeyAnotherIsAnErrorWithADidYouMean() {
        expectEqual(errors([.keyNamed("KEY_ENTER"), .keyNamed("BTN_LEFT"), .chord(.ctrl, "KEY_W")]), [])
        expectEqual(errors([.keyNamed("KEY_ENTR"), .chord(.ctrl, "KEY_QQ"), .keyNamed("KEY_VOLUMEUP")]), [
            "unknown key 'KEY_ENTR' in 'on' (not a key name of libevdev's table, e.g. KEY_ENTER, KEY_F12, BTN_LEFT); did you mean 'key:KEY_ENTER'?",
            "unknown key 'KEY_QQ' in chord 'key:ctrl+KEY_QQ' (not a key name of libevdev's table, e.g. KEY_W, KEY_F4); did you mean 'KEY_Q'?",
            // Not in this table: the compiler knows no name of its own.
            "unknown key 'KEY_VOLUMEUP' in 'on' (not a key name of libevdev's table, e.g. KEY_ENTER, KEY_F12, BTN_LEFT)",
        ])
    }

    @Test func anotherSpellingOfACodeNamesTheOneEventsCarry() {
        expectEqual(testKeyNames.canonicalName(of: "BTN_A"), "BTN_SOUTH")
        expect(testKeyNames.canonicalName(of: "BTN_SOUTH") == nil)
        expectEqual(errors([.keyNamed("BTN_A"), .chord(.ctrl, "BTN_A")]), [
            "key 'BTN_A' is named 'BTN_SOUTH' by libevdev (the name its events carry): write 'key:BTN_SOUTH'",
            "unknown key 'BTN_A' in chord 'key:ctrl+BTN_A' (not a key name of libevdev's table, e.g. KEY_W, KEY_F4); did you mean 'BTN_SOUTH'?",
        ])
    }

    @Test func aCodeWithoutANameIsSpelledByNumberUpToKeyMax() {
        expect(testKeyNames.isKnown("KEY_28"))
        expect(testKeyNames.isKnown("KEY_767"))
        expect(!testKeyNames.isKnown("KEY_768"))
        expect(!testKeyNames.isKnown("KEY_028"))
        expect(!testKeyNames.isKnown("KEY_-1"))
    }

    @Test func aChordReadsAgainstTheTableItIsHanded() {
        expectEqual((try? KeyChord.read("alt+KEY_HOME", keyNames: testKeyNames).get()), KeyChord(modifiers: .alt, key: "KEY_HOME"))
        expectEqual(KeyChord.read("alt+KEY_HOMEE", keyNames: testKeyNames).errorText, "unknown key 'KEY_HOMEE' in 'alt+KEY_HOMEE' (a key name of libevdev's table, e.g. KEY_F5); did you mean 'KEY_HOME'?")
        expectEqual(KeyChord.read("BTN_A", keyNames: testKeyNames).errorText, "unknown key 'BTN_A' in 'BTN_A' (a key name of libevdev's table, e.g. KEY_F5); libevdev names it 'BTN_SOUTH'")
    }

    /// A run-time change compiles the changed spec against the names the layout was compiled with.
    @Test func aLayoutChangeKeepsTheTable() throws {
        let layout = try makeLayout([screen("home", region("root", 0, 0, 1000, 1000, [region("a", 0, 0, 10, 10)]))],
                                    app: [handler("p", .keyNamed("KEY_ENTER"))])
        expect(layout.keyNames is TestKeyNames)
        let (r, _) = makeRouter(layout)
        try r.apply(.hide(region: "home/root/a"), time: .zero)
        expect(r.layout !== layout)
        expect(r.layout.keyNames is TestKeyNames)
    }
}

private extension Result<KeyChord, KeyChord.ChordError> {
    var errorText: String? { if case .failure(let e) = self { e.description } else { nil } }
}
