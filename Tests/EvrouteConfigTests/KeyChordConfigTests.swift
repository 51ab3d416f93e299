import EvrouteConfig
import EvrouteTestSupport
import EvrouteCore
import Testing
import EvrouteChecks

/// Chords in `on:` (`key:ctrl+KEY_W`) and where `check` says a grabbed keyboard's keys are lost.
@Suite("Chords in layouts; where a grabbed keyboard's keys go")
struct KeyChordConfigTests {
    func warnings(_ yaml: String) throws -> [String] {
        let (_, layout) = try ConfigLoader.compile(yaml: yaml, file: "test.yaml")
        return ConfigLoader.warnings(of: layout, file: "test.yaml").map { "\($0.line):\($0.column ?? 0): \($0.severity): \($0.message)" }
    }

    func kiosk(keyboard: String = "", fallback: String, app: String = "") -> String {
        """
        displays: [{ name: main, size: [1280, 800] }]
        devices:
          - { name: keys, match: { kind: keyboard }, grab: true\(keyboard) }
        plugins: [{ name: desktop, type: forward }]
        screens:
          - name: home
            root: { name: root, frame: [0, 0, 1280, 800] }
        application: { handlers: [\(app)] }
        fallback: { handlers: [\(fallback)] }
        """
    }

    @Test func aGrabbedKeyboardWithDefaultTextAndAForwarderOfKeysLosesNothing() throws {
        try expectEqual(try warnings(kiosk(fallback: "{ plugin: desktop, on: [key] }")), [])
    }

    @Test func aGrabbedKeyboardWhoseOnlyKeysAreNamedSaysTheOthersAreLost() throws {
        let w = try warnings(kiosk(fallback: #"{ plugin: log, on: ["key:ctrl+KEY_W", text] }"#))
        expectEqual(w, ["3:46: warning: device rule 'keys' grabs its devices (grab: true), but the handlers on display 'main' take only key:ctrl+KEY_W, text of their keys: every other key (and a typing key where no handler takes text) reaches nothing, and the grab keeps it from everything else; take 'key' somewhere on their chain (a forward handler at the fallback passes them on)"], "\(w)")
    }

    @Test func aChordIsCompiledAndItsBadPartsAreErrorsAtThePlace() throws {
        let good = kiosk(fallback: "{ plugin: desktop, on: [key] }", app: #"{ plugin: log, on: ["key:ctrl+shift+KEY_W", "key:alt+KEY_F4"] }"#)
        let (_, layout) = try ConfigLoader.compile(yaml: good, file: "test.yaml")
        expect(layout.handlers.contains { $0.filters == [.chord([.ctrl, .shift], "KEY_W"), .chord(.alt, "KEY_F4")] })
        for (chord, message) in [
            ("ctl+KEY_W", "unknown modifier 'ctl' in chord 'key:ctl+KEY_W' (modifiers: ctrl, alt, shift, super, joined by '+' before the key, e.g. key:ctrl+KEY_W); did you mean 'ctrl'?"),
            ("ctrl+KEY_QQ", "unknown key 'KEY_QQ' in chord 'key:ctrl+KEY_QQ'"),
            ("ctrl+ctrl+KEY_W", "modifier 'ctrl' is named twice in chord 'key:ctrl+ctrl+KEY_W'"),
        ] {
            let yaml = kiosk(fallback: "{ plugin: desktop, on: [key] }", app: "{ plugin: log, on: [\"key:\(chord)\"] }")
            #expect {
                _ = try ConfigLoader.compile(yaml: yaml, file: "test.yaml")
            } throws: { error in
                "\(error)".contains("test.yaml:8:") && "\(error)".contains(message)
            }
        }
    }
}
