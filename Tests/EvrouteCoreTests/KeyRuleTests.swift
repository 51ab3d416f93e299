import Testing
import EvrouteChecks
@testable import EvrouteCore

/// UIKit's rule for keys: a press walks the chain as a press and is text only where the
/// keyboard's chain takes text; a press with Ctrl, Alt or Super held is a chord, never text;
/// chords in `on:` (`key:ctrl+KEY_W`); a forwarded modifier whose chord partner was kept is
/// released at its forwarder, and no forwarded key is left down.
@Suite("Keys by UIKit's rule, chords")
struct KeyRuleTests {
    /// `fw` forwards every key at the fallback; `t` takes text on the screen when `text` is set;
    /// `k` (exec) takes `keep` (chords or keys) on the screen.
    func layout(text: Bool, keep: [EventFilter] = []) throws -> Layout {
        var screenHandlers: [HandlerSpec] = []
        if text { screenHandlers.append(handler("t", .text)) }
        if !keep.isEmpty { screenHandlers.append(HandlerSpec(plugin: "k", on: keep, options: [:])) }
        return try compileForwarding(LayoutSpec(
            displays: [DisplaySpec(name: "main", size: Size(width: 1000, height: 1000))],
            plugins: [PluginSpec(name: "fw", type: .forward), PluginSpec(name: "t", type: .exec), PluginSpec(name: "k", type: .exec)],
            screens: [screen("home", region("root", 0, 0, 1000, 1000), handlers: screenHandlers)],
            fallbackHandlers: [handler("fw", .key)]))
    }

    func typist(_ r: Router) {
        var info = DeviceInfo(id: DeviceID(3), ruleName: "typist", name: "kb", kind: .keyboard, display: "main")
        info.typesText = true
        r.addDevice(info, time: .zero)
    }

    func press(_ r: Router, _ name: String, _ code: Int, _ phase: KeyPhase, at ms: Int64) -> Bool {
        r.handle(KeyInput(device: DeviceID(3), time: Timestamp(microseconds: ms * 1000), code: code, name: name, phase: phase))
    }

    func keys(_ t: Trace) -> [String] {
        t.entries.filter { $0.kind.hasPrefix("key:") }.map { "\($0.kind.dropFirst(4)) \($0.phase ?? "") \($0.handler ?? "-")" }
    }

    @Test func aTypingKeyWhoseTextNobodyTakesIsAKeyAndIsForwarded() throws {
        let (r, t) = makeRouter(try layout(text: false))
        typist(r)
        expectEqual(press(r, "KEY_B", 48, .down, at: 0), false)
        expectEqual(press(r, "KEY_B", 48, .up, at: 10), false)
        expectEqual(keys(t), ["KEY_B down fw", "KEY_B up fw"])
    }

    @Test func aTypingKeyIsTextWhereTheChainTakesTextAndIsThenNotForwarded() throws {
        let (r, t) = makeRouter(try layout(text: true))
        typist(r)
        expectEqual(press(r, "KEY_B", 48, .down, at: 0), true)
        expectEqual(press(r, "KEY_B", 48, .up, at: 10), false)
        expectEqual(keys(t), ["KEY_B down -", "KEY_B up -"])
    }

    @Test func aKeyPressedWithCtrlAltOrSuperIsAChordNeverText() throws {
        for (mod, code) in [("KEY_LEFTCTRL", 29), ("KEY_RIGHTCTRL", 97), ("KEY_LEFTALT", 56), ("KEY_RIGHTMETA", 126)] {
            let (r, t) = makeRouter(try layout(text: true))
            typist(r)
            _ = press(r, mod, code, .down, at: 0)
            expectEqual(press(r, "KEY_C", 46, .down, at: 10), false, "\(mod)")
            _ = press(r, "KEY_C", 46, .up, at: 20)
            _ = press(r, mod, code, .up, at: 30)
            expectEqual(keys(t), ["\(mod) down fw", "KEY_C down fw", "KEY_C up fw", "\(mod) up fw"])
        }
        // Shift is no chord: shift+C is text.
        let (r, _) = makeRouter(try layout(text: true))
        typist(r)
        _ = press(r, "KEY_LEFTSHIFT", 42, .down, at: 0)
        expectEqual(press(r, "KEY_C", 46, .down, at: 10), true)
    }

    @Test func aChordTakesItsKeyWithExactlyItsModifiersHeld() throws {
        let (r, t) = makeRouter(try layout(text: false, keep: [.chord(.ctrl, "KEY_W")]))
        typist(r)
        _ = press(r, "KEY_W", 17, .down, at: 0)            // no ctrl: forwarded
        _ = press(r, "KEY_W", 17, .up, at: 5)
        _ = press(r, "KEY_RIGHTCTRL", 97, .down, at: 10)
        _ = press(r, "KEY_LEFTSHIFT", 42, .down, at: 20)
        _ = press(r, "KEY_W", 17, .down, at: 30)           // ctrl+shift: not ctrl+KEY_W
        _ = press(r, "KEY_W", 17, .up, at: 40)
        _ = press(r, "KEY_LEFTSHIFT", 42, .up, at: 50)
        _ = press(r, "KEY_W", 17, .down, at: 60)           // ctrl alone: kept by k
        _ = press(r, "KEY_W", 17, .repeat, at: 65)
        _ = press(r, "KEY_RIGHTCTRL", 97, .up, at: 70)     // already released at fw: not routed
        _ = press(r, "KEY_W", 17, .up, at: 80)             // follows its down to k
        expectEqual(keys(t), ["KEY_W down fw", "KEY_W up fw",
                            "KEY_RIGHTCTRL down fw", "KEY_LEFTSHIFT down fw", "KEY_W down fw", "KEY_W up fw", "KEY_LEFTSHIFT up fw",
                            "KEY_W down k", "KEY_RIGHTCTRL up fw", "KEY_W repeat k", "KEY_W up k"])
    }

    @Test func aModifierReleasedForAKeptChordGoesDownAgainForAForwardedOne() throws {
        let (r, t) = makeRouter(try layout(text: false, keep: [.chord(.ctrl, "KEY_W")]))
        typist(r)
        _ = press(r, "KEY_LEFTCTRL", 29, .down, at: 0)
        _ = press(r, "KEY_W", 17, .down, at: 10)           // kept: Ctrl released at fw
        _ = press(r, "KEY_W", 17, .up, at: 20)
        _ = press(r, "KEY_C", 46, .down, at: 30)           // forwarded: Ctrl down again first
        _ = press(r, "KEY_C", 46, .up, at: 40)
        _ = press(r, "KEY_LEFTCTRL", 29, .up, at: 50)      // forwarded down: its up goes
        expectEqual(keys(t), ["KEY_LEFTCTRL down fw", "KEY_W down k", "KEY_LEFTCTRL up fw", "KEY_W up k",
                            "KEY_LEFTCTRL down fw", "KEY_C down fw", "KEY_C up fw", "KEY_LEFTCTRL up fw"])
    }

    @Test func noForwardedKeyIsLeftDownAtUnplugOrStop() throws {
        for end in ["unplug", "stop"] {
            let (r, t) = makeRouter(try layout(text: false, keep: [.chord(.ctrl, "KEY_C")]))
            typist(r)
            _ = press(r, "KEY_LEFTCTRL", 29, .down, at: 0)
            _ = press(r, "KEY_C", 46, .down, at: 10)       // kept: ctrl is released at fw
            _ = press(r, "KEY_LEFTALT", 56, .down, at: 20)
            let at = Timestamp(microseconds: 30_000)
            if end == "unplug" { r.removeDevice(DeviceID(3), time: at) } else { r.cancelAll(time: at) }
            var down: [String: Int] = [:]
            for e in t.entries where e.kind.hasPrefix("key:") && e.handler == "fw" {
                down[e.kind, default: 0] += e.phase == "down" ? 1 : -1
            }
            expect(down.values.allSatisfy { $0 == 0 }, "\(end): \(keys(t))")
            // Ctrl is released at fw when C is kept, goes down again with the forwarded Alt
            // (still held), and is let go at the end with Alt.
            expectEqual(keys(t).filter { $0.hasPrefix("KEY_LEFTCTRL") }, ["KEY_LEFTCTRL down fw", "KEY_LEFTCTRL up fw",
                                                                       "KEY_LEFTCTRL down fw", "KEY_LEFTCTRL cancelled fw"], "\(end)")
            expectEqual(keys(t).filter { $0.hasPrefix("KEY_LEFTALT") }, ["KEY_LEFTALT down fw", "KEY_LEFTALT cancelled fw"], "\(end)")
        }
    }

    @Test func chordsParse() {
        expectEqual(EventFilter(parsing: "key:ctrl+KEY_W"), .chord(.ctrl, "KEY_W"))
        expectEqual(EventFilter(parsing: "key:ctrl+shift+KEY_W"), .chord([.ctrl, .shift], "KEY_W"))
        expectEqual(EventFilter(parsing: "key:shift+ctrl+KEY_W")?.description, "key:ctrl+shift+KEY_W")
        expectEqual(EventFilter(parsing: "key:KEY_W"), .keyNamed("KEY_W"))
        expectEqual(EventFilter(parsing: "key:ctl+KEY_W"), .keyNamed("ctl+KEY_W"))
        expectEqual(KeyChord.problem(in: "ctl+KEY_W"), .unknownModifier("ctl"))
        expectEqual(KeyChord.problem(in: "ctrl+ctrl+KEY_W"), .repeatedModifier("ctrl"))
        expectEqual(KeyChord.problem(in: "ctrl+"), .missingKey)
        expectEqual(KeyChord(parsing: "alt+KEY_HOME"), KeyChord(modifiers: .alt, key: "KEY_HOME"))
    }
}
