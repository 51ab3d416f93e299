import Testing
import EvrouteChecks
@testable import EvrouteCore

@Suite("Keys, first responder and actions")
struct KeysAndActionsTests {
    func layout() throws -> Layout {
        try makeLayout([screen("home", region("root", 0, 0, 1000, 1000, [
            region("search", 0, 0, 500, 100, [region("icon", 0, 0, 50, 50)],
                   handlers: [handler("p", .keyNamed("KEY_ENTER")), handler("q", .action("submit"))]) { $0.focusable = true },
            region("list", 0, 100, 1000, 900, handlers: [handler("q", .action("scroll"))]),
        ]), handlers: [handler("p", .key)])], app: [handler("q", .action("open-admin"))], fallback: [handler("log", .any)])
    }

    @Test func keysGoToTheScreenWithoutFirstResponder() throws {
        let (r, trace) = makeRouter(try layout())
        r.key("KEY_A", 30, .down, at: 0)
        r.key("KEY_A", 30, .repeat, at: 10)
        r.key("KEY_A", 30, .up, at: 20)
        expectEqual(trace.entries.map(\.handledBy), ["screen:home", "screen:home", "screen:home"])
        expectEqual(trace.entries.map(\.phase), ["down", "repeat", "up"])
    }

    @Test func focusableRegionBecomesFirstResponderWhenATouchEndsOnIt() throws {
        let (r, trace) = makeRouter(try layout())
        r.touch(0, .began, 10, 10, at: 0)        // on the icon inside the search field
        r.touch(0, .ended, 10, 10, at: 50)
        expectEqual(trace.entries.last, Trace.Entry(kind: "focus", region: "home/root/search"))
        r.key("KEY_ENTER", 28, .down, at: 100)
        expectEqual(trace.entries.last?.handledBy, "home/root/search")
        expectEqual(trace.entries.last?.region, "home/root/search")
        r.key("KEY_B", 48, .down, at: 110)
        expectEqual(trace.entries.last?.handledBy, "screen:home")
    }

    @Test func touchThatEndsOutsideTheFocusableRegionDoesNotFocus() throws {
        let (r, trace) = makeRouter(try layout())
        r.touch(0, .began, 10, 10, at: 0)
        r.touch(0, .ended, 700, 700, at: 50)
        expect(!trace.entries.contains { $0.kind == "focus" })
    }

    @Test func upWithoutDownIsDroppedAndUnplugCancelsHeldKeys() throws {
        let (r, trace) = makeRouter(try layout())
        r.key("KEY_A", 30, .up, at: 0)
        r.key("KEY_A", 30, .repeat, at: 5)
        expect(trace.entries.isEmpty)
        r.key("KEY_Q", 16, .down, at: 10)
        r.removeDevice(DeviceID(2), time: Timestamp(microseconds: 20_000))
        expectEqual(trace.entries.map(\.phase), ["down", "cancelled"])
        expectEqual(trace.entries.map(\.kind), ["key:KEY_Q", "key:KEY_Q"])
    }

    /// Several keys held at an unplug are cancelled in key-code order, the same on every run
    /// (they were once cancelled in a dictionary's order, which changes from run to run).
    @Test(arguments: 0..<8) func unplugCancelsHeldKeysInKeyCodeOrder(run: Int) throws {
        let (r, trace) = makeRouter(try layout())
        let keys = [("KEY_Z", 44), ("KEY_LEFTCTRL", 29), ("KEY_C", 46), ("KEY_A", 30), ("KEY_ENTER", 28)]
        for (i, key) in keys.enumerated() { r.key(key.0, key.1, .down, at: Int64(i)) }
        r.removeDevice(DeviceID(2), time: Timestamp(microseconds: 20_000))
        let cancelled = trace.entries.filter { $0.phase == "cancelled" }.map(\.kind)
        expectEqual(cancelled, ["key:KEY_ENTER", "key:KEY_LEFTCTRL", "key:KEY_A", "key:KEY_Z", "key:KEY_C"])
    }

    @Test func keyStaysWithTheResponderItWentDownOn() throws {
        let (r, trace) = makeRouter(try layout())
        r.key("KEY_ENTER", 28, .down, at: 0)     // no first responder: the screen
        r.touch(0, .began, 10, 10, at: 10); r.touch(0, .ended, 10, 10, at: 20)  // focus moves
        r.key("KEY_ENTER", 28, .up, at: 30)
        let keys = trace.entries.filter { $0.kind == "key:KEY_ENTER" }
        expectEqual(keys.map(\.handledBy), ["screen:home", "screen:home"])
    }

    @Test func actionsWalkFromTheFirstResponderToTheFirstDeclaringHandler() throws {
        let l = try layout()
        let (r, trace) = makeRouter(l)
        r.sendAction("submit")                   // no first responder: screen → … nobody declares it there
        expect(trace.entries.last?.handledBy == nil)   // `any` does not take actions
        r.setFirstResponder(l.region(path: "home/root/search/icon"))
        r.sendAction("submit")
        expectEqual(trace.entries.last?.handledBy, "home/root/search")
        r.sendAction("open-admin")
        expectEqual(trace.entries.last?.handledBy, "application")
        r.sendAction("scroll", fromRegion: l.region(path: "home/root/list"))
        expectEqual(trace.entries.last?.handledBy, "home/root/list")
    }

    @Test func builtInHandlersActOnRouting() throws {
        let l = try makeLayout([
            screen("home", region("root", 0, 0, 1000, 1000, [
                region("corner", 0, 0, 100, 100, handlers: [handler("action", .tap, options: ["action": .string("open-admin")])]),
            ]), handlers: [handler("present", .action("open-admin"), options: ["screen": .string("admin")])]),
            screen("admin", region("panel", 0, 0, 1000, 1000, [
                region("close", 900, 0, 100, 100, handlers: [handler("dismiss", .tap)]),
            ])),
        ], fallback: [handler("log", .any)])
        let (r, trace) = makeRouter(l)
        r.touch(0, .began, 10, 10, at: 0); r.touch(0, .ended, 10, 10, at: 50)
        expect(trace.entries.contains { $0.kind == "action:open-admin" && $0.handledBy == "screen:home" })
        expectEqual(trace.entries.last, Trace.Entry(kind: "present", region: "admin"))
        r.touch(0, .began, 950, 50, at: 1000)
        expectEqual(trace.touchEntries.last?.region, "admin/panel/close")
        r.touch(0, .ended, 950, 50, at: 1050)
        expectEqual(trace.entries.last, Trace.Entry(kind: "dismiss", region: "admin"))
        r.touch(0, .began, 950, 50, at: 2000)
        expectEqual(trace.touchEntries.last?.region, "home/root")
    }
}
