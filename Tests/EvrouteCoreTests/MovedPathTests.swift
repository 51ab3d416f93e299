import Testing
import EvrouteChecks
@testable import EvrouteCore

/// The moved path: a touch is one copy-on-write reference that the router updates in
/// place, and its moved phase starts at a first taker cached for the touch's chain generation.
/// What an observer or a dispatcher keeps must still say what the phase it was sent for said,
/// and whatever changes a touch's chain must be seen by its next move.
@Suite("The moved path: touches by reference, cached first takers")
struct MovedPathTests {
    /// `home` (its screen handler `p` takes moves) with `overlay` presented over it; the
    /// overlay's root has no handler; the fallback logs everything.
    func presented() throws -> Layout {
        try makeLayout([screen("home", region("root", 0, 0, 1000, 1000), handlers: [handler("p", .touchMoved)]),
                        screen("overlay", region("root", 0, 0, 1000, 1000), over: "home")],
                       fallback: [handler("log", .any)])
    }

    func ms(_ v: Int64) -> Timestamp { Timestamp(microseconds: v * 1000) }

    /// The routed touch events the trace kept, as they were when routed.
    func keptTouches(_ t: Trace) -> [(phase: TouchPhase, touch: Touch, by: String?)] {
        t.records.compactMap { record in
            guard case .routed(let e, let by, _) = record, case .touch(let phase, _) = e.kind, let touch = e.touch else { return nil }
            return (phase, touch, by.map { e.layout.describe($0) })
        }
    }

    @Test func keptEventsKeepTheValuesOfTheirPhase() throws {
        let (r, t) = makeRouter(try presented())
        r.touch(0, .began, 10, 10, at: 0)
        for (i, x) in [20.0, 30, 40].enumerated() {
            r.handle(TouchFrameInput(device: DeviceID(1), time: ms(10 * Int64(i + 1)), contacts: [
                ContactSample(contact: 0, change: .moved, location: Point(x: x, y: 10), pressure: x * 2),
            ]))
        }
        let kept = keptTouches(t)
        expectEqual(kept.map(\.phase), [.began, .moved, .moved, .moved])
        expectEqual(kept.map(\.touch.location.x), [10, 20, 30, 40])
        expectEqual(kept.map(\.touch.previousLocation.x), [10, 10, 20, 30])
        expectEqual(kept.map(\.touch.pressure), [nil, 40, 60, 80])
        expectEqual(kept.map(\.touch.timestamp), [ms(0), ms(10), ms(20), ms(30)])
        expectEqual(kept.map(\.touch.maxTravel), [0, 10, 20, 30])
        expectEqual(Set(kept.map(\.touch.id)), [1])
        // The router's own touch went on; what was kept did not follow it.
        r.touch(0, .moved, 90, 10, at: 40)
        expectEqual(r.activeTouches.map(\.location.x), [90])
        expectEqual(kept.last?.touch.location.x, 40)
    }

    @Test func aMoveAfterItsScreenIsDismissedGoesToTheNewTaker() throws {
        let (r, t) = makeRouter(try presented())
        r.touch(0, .began, 10, 10, at: 0)
        r.touch(0, .moved, 20, 10, at: 10)
        r.touch(0, .moved, 30, 10, at: 20)
        try r.apply(.dismiss(display: nil), time: ms(25))          // overlay no longer presents over home
        r.touch(0, .moved, 40, 10, at: 30)
        try r.apply(.present(screen: "overlay"), time: ms(35))     // and again
        r.touch(0, .moved, 50, 10, at: 40)
        r.touch(0, .moved, 60, 10, at: 50)
        expectEqual(keptTouches(t).filter { $0.phase == .moved }.map(\.by), ["screen:home", "screen:home", "fallback", "screen:home", "screen:home"])
    }

    @Test func aReloadThatChangesItsPresenterMovesItsTaker() throws {
        let (r, t) = makeRouter(try presented())
        r.touch(0, .began, 10, 10, at: 0)
        r.touch(0, .moved, 20, 10, at: 10)
        // The new layout has no `home`: the overlay, where the touch is bound, presents over nothing.
        r.replaceLayout(try makeLayout([screen("overlay", region("root", 0, 0, 1000, 1000))],
                                       fallback: [handler("log", .any)]), time: ms(15))
        r.touch(0, .moved, 30, 10, at: 20)
        expectEqual(keptTouches(t).filter { $0.phase == .moved }.map(\.by), ["screen:home", "fallback"])
    }

    @Test func aRegionChangeElsewhereKeepsTheTakerRight() throws {
        let (r, t) = makeRouter(try presented())
        r.touch(0, .began, 10, 10, at: 0)
        r.touch(0, .moved, 20, 10, at: 10)
        try r.apply(.frame(region: "home/root", Rect(x: 0, y: 0, width: 500, height: 500)), time: ms(15))
        r.touch(0, .moved, 30, 10, at: 20)
        expectEqual(keptTouches(t).filter { $0.phase == .moved }.map(\.by), ["screen:home", "screen:home"])
    }

    /// A dispatcher that declines every second offer of handler `q`, and remembers what it took.
    final class Alternating: HandlerDispatcher {
        var offers = 0
        var taken: [(RoutedEvent, HandlerBinding)] = []
        func dispatch(_ event: RoutedEvent, toHandler handler: HandlerIndex, at responder: ResponderID) -> HandlerVerdict {
            let handler = event.layout[handler: handler]
            guard handler.plugin == "q" else { taken.append((event, handler)); return .handled }
            offers += 1
            if offers % 2 == 0 { return .declined }
            taken.append((event, handler))
            return .handled
        }
    }

    func declining() throws -> Layout {
        try makeLayout([screen("s", region("root", 0, 0, 1000, 1000, [
            region("a", 0, 0, 100, 100, handlers: [handler("q", .touch)]),
        ], handlers: [handler("p", .touch)]))])
    }

    @Test func aDeclinedMoveStillWalksOnEveryTime() throws {
        let (r, t) = makeRouter(try declining())
        let d = Alternating()
        r.dispatcher = d
        r.touch(0, .began, 10, 10, at: 0)               // offer 1: q takes it
        for i in 1...4 { r.touch(0, .moved, 10 + Double(i), 10, at: Int64(i) * 10) }   // offers 2…5
        expectEqual(t.touchEntries.map { "\($0.handledBy ?? "-") \($0.handler ?? "-")" }, ["s/root/a q", "s/root p", "s/root/a q", "s/root p", "s/root/a q"])
    }

    @Test func aLaterDeclineWalksOnWithTheValuesOfItsPhase() throws {
        let (r, t) = makeRouter(try declining())
        let d = Alternating()
        r.dispatcher = d
        r.touch(0, .began, 10, 10, at: 0)
        r.touch(0, .moved, 20, 10, at: 10)               // declined at once: p
        r.touch(0, .moved, 30, 10, at: 20)               // q takes it, for now
        r.touch(0, .moved, 40, 10, at: 30)
        // q answers "unhandled" for the move to 30 after the touch moved on (a socket plugin's
        // late answer): the walk goes on to p with that move's values.
        let (event, handler) = try #require(d.taken.first { $0.0.touch?.location.x == 30 })
        r.continueRouting(event, after: handler)
        let last = try #require(keptTouches(t).last)
        expectEqual(last.by, "s/root")
        expect(last.touch.location.x == 30 && last.touch.previousLocation.x == 20)
        expectEqual(r.activeTouches.map(\.location.x), [40])
    }

    @Test func aDeviceRegisteredAgainNamesItsTouchesFromThen() throws {
        let (r, t) = makeRouter(try presented())
        r.touch(0, .began, 10, 10, at: 0)
        r.touch(0, .moved, 20, 10, at: 10)
        r.addDevice(DeviceInfo(id: DeviceID(1), ruleName: "renamed", name: "ts", kind: .touchscreen, display: "main"), time: ms(15))
        r.touch(0, .moved, 30, 10, at: 20)
        let devices = t.records.compactMap { record -> String? in
            guard case .routed(let e, _, _) = record, case .touch = e.kind else { return nil }
            return e.device?.ruleName
        }
        expectEqual(devices, ["touch", "touch", "renamed"])
    }

    @Test func heldPhasesRouteWithTheirOwnValues() throws {
        // A tap that delays its touches' began holds every phase until it fails (moving too far).
        let tap = GestureSpec(name: "tap", kind: .tap, allowableMovement: 10, delaysTouchesBegan: true)
        let (r, t) = makeRouter(try gestureLayout(pad: [tap]))
        r.touch(0, .began, 200, 200, at: 0)
        r.touch(0, .moved, 202, 200, at: 10)
        r.touch(0, .moved, 204, 200, at: 20)
        expect(t.touchEntries.isEmpty)
        r.touch(0, .moved, 300, 200, at: 30)             // the tap fails: the held phases route
        let kept = keptTouches(t)
        expectEqual(kept.map(\.phase), [.began, .moved, .moved, .moved])
        expectEqual(kept.map(\.touch.location.x), [200, 202, 204, 300])
        expectEqual(kept.map(\.touch.timestamp), [ms(0), ms(10), ms(20), ms(30)])
    }

    @Test func aTouchCancelledByARecognizerSaysWhatTheRecognizersLastSaw() throws {
        let hold = GestureSpec(name: "hold", kind: .longPress, minimumDuration: 0.5, allowableMovement: 10)
        let (r, t) = makeRouter(try gestureLayout(pad: [hold]))
        func sample(_ x: Double, pressure: Double, at v: Int64) {
            r.handle(TouchFrameInput(device: DeviceID(1), time: ms(v), contacts: [
                ContactSample(contact: 0, change: .moved, location: Point(x: x, y: 200), pressure: pressure),
            ]))
        }
        r.touch(0, .began, 200, 200, at: 0)
        sample(203, pressure: 20, at: 100)
        sample(203, pressure: 90, at: 200)               // stationary: not routed, not seen by the recognizer
        r.advance(to: 600)                               // the long press begins and cancels the touch
        let kept = keptTouches(t)
        expectEqual(kept.map(\.phase), [.began, .moved, .cancelled])
        expectEqual(kept.last?.touch.location.x, 203)
        expectEqual(kept.last?.touch.pressure, 20)
        expectEqual(r.activeTouches.first?.pressure, 90)
    }

    @Test func manyContactsKeepFindingTheirOwnTouches() throws {
        // A finger that keeps moving while a hundred others begin (the table grows and rehashes)
        // and end around it, and contacts whose low bits collide in the table's memo.
        let (r, t) = makeRouter(try presented())
        var expected: [Int: Int] = [:]                   // contact → touch id
        var nextID = 1
        var step: Int64 = 0
        func begin(_ c: Int) {
            step += 1
            r.touch(c, .began, Double(c), 500, at: step)
            expected[c] = nextID
            nextID += 1
        }
        func end(_ c: Int) {
            step += 1
            r.touch(c, .ended, Double(c), 500, at: step)
            expected[c] = nil
        }
        func move(_ c: Int) {
            guard expected[c] != nil else { return }     // (a move of an unknown contact begins a touch)
            step += 1
            r.touch(c, .moved, Double(c) + Double(step) / 10_000, 500, at: step)   // never stationary
            expectEqual(t.touchEntries.last?.touch, expected[c], "contact \(c)")
        }
        begin(1)
        move(1)
        for c in 2..<120 {
            begin(c)
            move(1)
            move(c)
            if c % 3 == 0 {
                end(c - 1)
                move(1)
                move(c)
                move(c - 2)
            }
            if c % 4 == 1 { move(c - 4) }
        }
        for c in [5, 9, 13, 1] { end(c) }
        for c in [17, 21, 2, 3, 119, 118] { move(c) }
        expectEqual(r.activeTouches.count, expected.count)
    }

    /// An observer that implements `routed` is lent each routed event: its handler as an index
    /// into the event's layout, no `.routed` record through `record(_:)`; what it copies keeps
    /// the values of its phase.
    @Test func anObserverIsLentRoutedEvents() throws {
        final class Lent: RouteObserver {
            var events: [(event: RoutedEvent, by: ResponderID?, plugin: String?)] = []
            var routedRecords = 0
            var otherRecords = 0
            func record(_ record: RouteRecord) {
                if case .routed = record { routedRecords += 1 } else { otherRecords += 1 }
            }
            func routed(_ event: RoutedEvent, handledBy responder: ResponderID?, handler: HandlerIndex?) {
                events.append((event, responder, handler.map { event.layout[handler: $0].plugin }))
            }
        }
        let router = Router(layout: try presented())
        let lent = Lent()
        router.observer = lent
        router.addDevice(DeviceInfo(id: DeviceID(1), ruleName: "touch", name: "ts", kind: .touchscreen, display: "main"), time: .zero)
        try router.apply(.dismiss(display: nil), time: ms(1))
        router.touch(0, .began, 10, 10, at: 2)
        router.touch(0, .moved, 20, 10, at: 10)
        router.touch(0, .moved, 30, 10, at: 20)
        router.touch(0, .ended, 30, 10, at: 30)
        expectEqual(lent.routedRecords, 0)
        expect(lent.otherRecords >= 2)   // the device, the dismissal
        expectEqual(lent.events.map { $0.event.touch?.phase }, [.began, .moved, .moved, .ended])
        expectEqual(lent.events.map { $0.event.touch?.location.x }, [10, 20, 30, 30])
        expectEqual(lent.events.map(\.plugin), ["log", "p", "p", "log"])
        expectEqual(lent.events.map { e in e.by.map { e.event.layout.describe($0) } }, ["fallback", "screen:home", "screen:home", "fallback"])
        expectEqual(router.routeCounts.touchEvents, 4)
    }
}
