import EvrouteConfig
import EvrouteCore
@testable import EvrouteDaemon
import EvrouteTestSupport
import Testing
import EvrouteChecks

/// `forward`'s `press:`: a key or chord typed on the virtual keyboard when an action, gesture,
/// idle or active event reaches the handler; the same chord syntax as `on: ["key:…"]`.
@Suite("forward: press a key on events that are not keys")
struct ForwardPressTests {
    func yaml(_ handler: String) -> String {
        """
        displays: [{ name: main, size: [800, 480] }]
        plugins: [{ name: desktop, type: forward }]
        screens:
          - name: home
            root: { name: root, frame: [0, 0, 800, 480] }
        application:
          handlers:
            - \(handler)
        """
    }

    func compile(_ handler: String) throws(Diagnostics) -> Layout {
        try ConfigLoader.compile(yaml: yaml(handler), file: "k.yaml").layout
    }

    @Test func pressOnAnActionOrIdleCompilesToItsCodes() throws {
        let l = try compile(#"{ plugin: desktop, on: ["action:reload-page", idle], press: "alt+KEY_HOME" }"#)
        let h = try #require(l.handlers.firstIndex { $0.plugin == "desktop" })
        let own = try #require(l.handlerOptions[h] as? ForwardHandlerOptions)
        expectEqual(own.press, KeyChord(modifiers: .alt, key: "KEY_HOME"))
        expect(own.pressCodes?.modifiers == [56] && own.pressCodes?.key == 102)
        let frames = ForwardOutputs.pressFrames(own.pressCodes!).map { "\($0.code):\($0.value)" }
        expectEqual(frames, ["56:1", "102:1", "102:0", "56:0"])
        let two = ForwardOutputs.pressFrames((modifiers: [29, 42], key: 17)).map { "\($0.code):\($0.value)" }
        expectEqual(two, ["29:1", "42:1", "17:1", "17:0", "42:0", "29:0"])
    }

    @Test func withoutPressAForwarderRefusesActions() {
        #expect {
            _ = try compile(#"{ plugin: desktop, on: ["action:reload-page"] }"#)
        } throws: { e in "\(e)".contains("k.yaml:8:") && "\(e)".contains("forwards touches and keys only") && "\(e)".contains("press") }
    }

    @Test func aBadChordIsAnErrorAtItsValueWithDidYouMean() {
        for (press, message) in [("ctl+KEY_F5", "did you mean 'ctrl'?"), ("KEY_F55", "unknown key 'KEY_F55'"),
                                 ("alt+alt+KEY_HOME", "named twice")] {
            #expect {
                _ = try compile("{ plugin: desktop, on: [idle], press: \"\(press)\" }")
            } throws: { e in "\(e)".contains("k.yaml:8:") && "\(e)".contains(message) }
        }
        #expect {
            _ = try compile(#"{ plugin: desktop, on: [touch, idle], press: KEY_F5 }"#)
        } throws: { e in "\(e)".contains("handler of its own") }
    }

    @Test func typeTextLetsAForwarderTakeText() throws {
        let l = try compile(#"{ plugin: desktop, on: [text], type-text: true }"#)
        let h = try #require(l.handlers.firstIndex { $0.plugin == "desktop" })
        expectEqual((l.handlerOptions[h] as? ForwardHandlerOptions)?.typeText, true)
        #expect {
            _ = try compile(#"{ plugin: desktop, on: [text] }"#)
        } throws: { e in "\(e)".contains("type-text: true") }
        #expect {
            _ = try compile(#"{ plugin: desktop, on: [text], type-text: yes-please }"#)
        } throws: { e in "\(e)".contains("'type-text' of a 'forward' handler must be true or false") }
    }

    @Test func mapWritesTheMappedKeyInPlaceOfTheKey() throws {
        let l = try compile(#"{ plugin: desktop, on: [key], map: { KEY_CAPSLOCK: KEY_ESC, KEY_RIGHTCTRL: KEY_COMPOSE } }"#)
        let h = try #require(l.handlers.firstIndex { $0.plugin == "desktop" })
        let own = try #require(l.handlerOptions[h] as? ForwardHandlerOptions)
        expectEqual(own.keyMap, [58: 1, 97: 127])
        let caps = KeyInput(device: DeviceID(1), time: .zero, code: 58, name: "KEY_CAPSLOCK", phase: .down)
        expect(own.mapped(caps).code == 1 && own.mapped(caps).name == "KEY_ESC" && own.mapped(caps).phase == .down)
        let a = KeyInput(device: DeviceID(1), time: .zero, code: 30, name: "KEY_A", phase: .up)
        expect(own.mapped(a).code == 30 && own.mapped(a).name == "KEY_A")
    }

    @Test func aBadMapIsAnErrorAtItsValueWithDidYouMean() {
        for (map, message) in [("{ KEY_CAPSLOK: KEY_ESC }", "did you mean 'KEY_CAPSLOCK'?"),
                               ("{ KEY_CAPSLOCK: KEY_ESCAPE }", "unknown key 'KEY_ESCAPE'"),
                               ("{ KEY_CAPSLOCK: \"ctrl+KEY_ESC\" }", "maps one key to one key"),
                               ("[KEY_CAPSLOCK]", "must map key names to key names")] {
            #expect {
                _ = try compile("{ plugin: desktop, on: [key], map: \(map) }")
            } throws: { e in "\(e)".contains("k.yaml:8:") && "\(e)".contains(message) }
        }
    }
}
