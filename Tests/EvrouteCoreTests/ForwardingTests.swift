import Testing
import EvrouteChecks
@testable import EvrouteCore

/// A touch whose began a forwarding handler takes belongs to it for its whole life;
/// one it did not take never reaches it; keys the same, down to up.
@Suite("Forwarding handlers take whole touches and keys")
struct ForwardingTests {
    /// Root (forwarded: `fw`) 1000×1000; `panel` [0, 0, 500, 1000] keeps its touches (`p`);
    /// `moves` [500, 500, 500, 500] takes only moved phases (`q`); keys: `p` on KEY_A at the
    /// screen, every other key forwarded by the fallback.
    func layout(rootGestures: [GestureSpec] = []) throws -> Layout {
        let panel = region("panel", 0, 0, 500, 1000, handlers: [handler("p", .touch)])
        let moves = region("moves", 500, 500, 500, 500, handlers: [handler("q", .touchMoved)])
        let root = region("root", 0, 0, 1000, 1000, [panel, moves], handlers: [handler("fw", .touch)]) { $0.gestures = rootGestures }
        return try compileForwarding(LayoutSpec(
            displays: [DisplaySpec(name: "main", size: Size(width: 1000, height: 1000))],
            plugins: [PluginSpec(name: "fw", type: .forward), PluginSpec(name: "p", type: .exec), PluginSpec(name: "q", type: .exec)],
            screens: [screen("home", root, handlers: [handler("p", .keyNamed("KEY_A"))])],
            fallbackHandlers: [handler("fw", .key)]))
    }

    func handlers(_ t: Trace, touch id: Int) -> [String] {
        t.touchEntries.filter { $0.touch == id }.map { "\($0.phase ?? ""):\($0.handler ?? "-")" }
    }

    @Test func aForwardedTouchGoesToItsForwarderWhereverItMoves() throws {
        let (r, t) = makeRouter(try layout())
        // Begins on the root (forwarded), moves into `moves` (whose handler takes moved phases
        // of its own touches) and into `panel`: every phase stays with the forwarder.
        r.touch(1, .began, 700, 100, at: 0)
        r.touch(1, .moved, 700, 700, at: 10)
        r.touch(1, .moved, 100, 700, at: 20)
        r.touch(1, .ended, 100, 700, at: 30)
        expectEqual(handlers(t, touch: 1), ["began:fw", "moved:fw", "moved:fw", "ended:fw"])
        expect(t.records.allSatisfy { r in
            guard case .routed(let e, _, let h) = r, case .touch = e.kind else { return true }
            return h?.forwards == true
        })
    }

    /// A forwarder that declines a later phase (its virtual device failed or went) keeps the
    /// touch (a key the same, through the same walk): the phase is unhandled, never offered to another handler, which would
    /// get a move or an end of a touch it never saw begin.
    @Test func aBoundPhaseTheForwarderDeclinesGoesToNoOtherHandler() throws {
        final class FailingForwarder: HandlerDispatcher {
            var failing = false
            var offered: [String] = []
            func dispatch(_ event: RoutedEvent, toHandler handler: HandlerIndex, at responder: ResponderID) -> HandlerVerdict {
                let handler = event.layout[handler: handler]
                offered.append(handler.plugin)
                return failing && handler.plugin == "fw" ? .declined : .handled
            }
        }
        // The screen takes touches and keys too: what a declined phase would walk on to.
        let root = region("root", 0, 0, 1000, 1000, handlers: [handler("fw", .touch)])
        let l = try compileForwarding(LayoutSpec(
            displays: [DisplaySpec(name: "main", size: Size(width: 1000, height: 1000))],
            plugins: [PluginSpec(name: "fw", type: .forward), PluginSpec(name: "p", type: .exec), PluginSpec(name: "q", type: .exec)],
            screens: [screen("home", root, handlers: [handler("p", .touch)])]))
        let (r, t) = makeRouter(l)
        let d = FailingForwarder()
        r.dispatcher = d
        r.touch(1, .began, 700, 700, at: 0)          // forwarded by the root
        d.failing = true
        r.touch(1, .moved, 100, 700, at: 10)
        r.touch(1, .ended, 100, 700, at: 20)
        expectEqual(handlers(t, touch: 1), ["began:fw", "moved:-", "ended:-"])
        expectEqual(d.offered, ["fw", "fw", "fw"], "\(d.offered)")
        // A touch begun while the forwarder fails is the next responder's, whole.
        r.touch(2, .began, 700, 700, at: 30)
        r.touch(2, .ended, 700, 700, at: 40)
        expectEqual(handlers(t, touch: 2), ["began:p", "ended:p"])
    }

    @Test func aTouchTheForwarderDidNotTakeNeverReachesIt() throws {
        let (r, t) = makeRouter(try layout())
        // Begins in `moves` (its began walks up to the root, which forwards it) — but one that
        // begins in `panel` is the panel's: its moves over the root and its end are too.
        r.touch(1, .began, 100, 100, at: 0)
        r.touch(1, .moved, 700, 100, at: 10)
        r.touch(1, .ended, 700, 100, at: 20)
        expectEqual(handlers(t, touch: 1), ["began:p", "moved:p", "ended:p"])
        // A touch begun in `moves`: the began is not `q`'s (it takes moved only), so the
        // forwarder takes it — and then `q` never sees its moves.
        r.touch(2, .began, 700, 700, at: 30)
        r.touch(2, .moved, 710, 710, at: 40)
        r.touch(2, .ended, 710, 710, at: 50)
        expectEqual(handlers(t, touch: 2), ["began:fw", "moved:fw", "ended:fw"])
    }

    @Test func aMovedPhaseOfAnUnboundTouchPassesTheForwarderBy() throws {
        // `moves` takes moved phases only; a touch that began there with nobody taking its began
        // (no forwarder on this root) — its moved phases are `q`'s, and its end, unhandled, does
        // not reach a forwarder above (there is one on the screen here).
        let moves = region("moves", 0, 0, 1000, 1000, handlers: [handler("q", .touchMoved)])
        let l = try compileForwarding(LayoutSpec(
            displays: [DisplaySpec(name: "main", size: Size(width: 1000, height: 1000))],
            plugins: [PluginSpec(name: "fw", type: .forward), PluginSpec(name: "q", type: .exec)],
            screens: [screen("home", region("root", 0, 0, 1000, 1000, [moves]), handlers: [handler("fw", .touch)])]))
        let (r, t) = makeRouter(l)
        r.touch(1, .began, 100, 100, at: 0)   // forwarded: the screen's forwarder takes the began
        r.touch(1, .moved, 200, 100, at: 10)
        r.touch(1, .ended, 200, 100, at: 20)
        expectEqual(handlers(t, touch: 1), ["began:fw", "moved:fw", "ended:fw"])
    }

    @Test func aRecognizedGestureCancelsItsForwardedTouches() throws {
        let swipe = GestureSpec(name: "reload", kind: .swipe, touches: 1, directions: [.down])
        let (r, t) = makeRouter(try layout(rootGestures: [swipe]))
        r.drag(1, from: 700, 100, by: 0, 400, start: 0, duration: 200)
        // The began was forwarded (no delay); the recognized swipe cancels the touch, and the
        // cancel goes to the forwarder: the UI behind sees TOUCH_CANCEL.
        expectEqual(handlers(t, touch: 1).first, "began:fw")
        expectEqual(handlers(t, touch: 1).last, "cancelled:fw")
        expect(!handlers(t, touch: 1).contains("ended:fw"))
    }

    @Test func delaysTouchesBeganKeepsARecognizedGesturesTouchesFromTheForwarder() throws {
        var swipe = GestureSpec(name: "reload", kind: .swipe, touches: 1, directions: [.down])
        swipe.delaysTouchesBegan = true
        let (r, t) = makeRouter(try layout(rootGestures: [swipe]))
        r.drag(1, from: 700, 100, by: 0, 400, start: 0, duration: 200)
        expect(handlers(t, touch: 1).filter { $0.hasSuffix(":fw") }.isEmpty)
        // A touch that fails the swipe (it moves up) is forwarded whole once the swipe fails.
        r.drag(2, from: 700, 600, by: 0, -400, start: 1000, duration: 200)
        let phases = handlers(t, touch: 2)
        expectEqual(phases.first, "began:fw")
        expectEqual(phases.last, "ended:fw")
        expect(phases.allSatisfy { $0.hasSuffix(":fw") })
    }

    @Test func aRunTimeChangeOrUnplugCancelsAForwardedTouchAtTheForwarder() throws {
        let (r, t) = makeRouter(try layout())
        r.touch(1, .began, 700, 100, at: 0)
        r.removeDevice(DeviceID(1), time: Timestamp(microseconds: 10_000))
        expectEqual(handlers(t, touch: 1), ["began:fw", "cancelled:fw"])
    }

    @Test func aForwardedKeysUpGoesToItsForwarderAcrossAReloadAndRepeatsAreNotRouted() throws {
        let l = try layout()
        let (r, t) = makeRouter(l)
        r.key("KEY_B", 48, .down, at: 0)
        r.key("KEY_B", 48, .repeat, at: 10)
        r.key("KEY_A", 30, .down, at: 20)
        r.replaceLayout(try layout(), time: Timestamp(microseconds: 30_000))
        r.key("KEY_B", 48, .repeat, at: 40)
        r.key("KEY_B", 48, .up, at: 50)
        r.key("KEY_A", 30, .up, at: 60)
        let keys = t.entries.filter { $0.kind.hasPrefix("key:") }.map { "\($0.kind) \($0.phase ?? "") \($0.handler ?? "-")" }
        expectEqual(keys, ["key:KEY_B down fw", "key:KEY_A down p", "key:KEY_B up fw", "key:KEY_A up p"])
    }

    /// A typing key is text only where the chain takes text: here nobody does (no `text`
    /// handler), so the key is a key and the fallback forwards it (this test once expected
    /// it lost, the bug of a kiosk whose browser never got letters).
    @Test func theTypingKeysOfADeviceThatTypesTextAreForwardedWhenNoOneTakesText() throws {
        let (r, t) = makeRouter(try layout())
        var info = DeviceInfo(id: DeviceID(3), ruleName: "typist", name: "kb", kind: .keyboard, display: "main")
        info.typesText = true
        r.addDevice(info, time: .zero)
        r.key("KEY_B", 48, .down, at: 0, device: 3)      // types, but nobody takes text: forwarded
        r.key("KEY_B", 48, .up, at: 10, device: 3)
        r.key("KEY_F5", 63, .down, at: 20, device: 3)    // types nothing: forwarded
        r.key("KEY_F5", 63, .up, at: 30, device: 3)
        let keys = t.entries.filter { $0.kind.hasPrefix("key:") }.map { "\($0.kind) \($0.phase ?? "") \($0.handler ?? "-")" }
        expectEqual(keys, ["key:KEY_B down fw", "key:KEY_B up fw", "key:KEY_F5 down fw", "key:KEY_F5 up fw"])
    }

    @Test func aForwardedKeyHeldWhenItsKeyboardGoesIsCancelledAtTheForwarder() throws {
        let (r, t) = makeRouter(try layout())
        r.key("KEY_B", 48, .down, at: 0)
        r.removeDevice(DeviceID(2), time: Timestamp(microseconds: 10_000))
        let keys = t.entries.filter { $0.kind == "key:KEY_B" }.map { "\($0.phase ?? "") \($0.handler ?? "-")" }
        expectEqual(keys, ["down fw", "cancelled fw"])
    }

    @Test func theJSONSaysForwardedOnlyForForwardedEvents() throws {
        let (r, t) = makeRouter(try layout())
        r.touch(1, .began, 700, 100, at: 0)
        r.touch(2, .began, 100, 100, at: 0)
        var json: [String] = []
        for case .routed(let e, let by, let h) in t.records {
            var w = FieldNames()
            EventEncoder.encode(e, handledBy: by, handler: h, as: .json, into: &w)
            json.append(w.names.contains("forwarded") ? "forwarded" : "kept")
        }
        expectEqual(json, ["forwarded", "kept"])
    }
}

/// The names of the fields the encoder writes.
struct FieldNames: EventFieldWriter {
    var names: [String] = []
    mutating func field(_ field: EventField, _ value: String?) { names.append("\(field.name)") }
    mutating func field(_ field: EventField, integer value: Int) { names.append("\(field.name)") }
    mutating func field(_ field: EventField, number value: Double?) { names.append("\(field.name)") }
    mutating func field(_ field: EventField, bool value: Bool) { names.append("\(field.name)") }
    mutating func field(_ field: EventField, time value: Timestamp) { names.append("\(field.name)") }
    mutating func field(_ field: EventField, point value: Point) { names.append("\(field.name)") }
    mutating func field(_ field: EventField, x: Double, y: Double, z: Double) { names.append("\(field.name)") }
    mutating func options(of handler: HandlerBinding) {}
}

/// Compiles with ``forwardingPluginTypes``.
func compileForwarding(_ spec: LayoutSpec) throws -> Layout {
    try Layout.compile(spec, pluginTypes: forwardingPluginTypes, keyNames: testKeyNames)
}
