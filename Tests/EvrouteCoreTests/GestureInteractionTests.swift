import Testing
import EvrouteChecks
@testable import EvrouteCore

@Suite("Gesture interaction rules")
struct GestureInteractionTests {
    static let single = GestureSpec(name: "single", kind: .tap, requireToFail: ["double"])
    static let double = GestureSpec(name: "double", kind: .tap, taps: 2)

    // MARK: require-to-fail

    @Test func singleTapWaitsForTheDoubleTapToFail() throws {
        let (r, t) = makeRouter(try gestureLayout(pad: [Self.single, Self.double]))
        r.touch(1, .began, 300, 300, at: 0)
        r.touch(1, .ended, 300, 300, at: 50)
        expectEqual(t.gestureLog, ["single:waiting-for-double"])
        expectEqual(r.nextTimerDeadline, Timestamp(microseconds: 400_000))
        r.advance(to: 399)
        expectEqual(t.gestureLog, ["single:waiting-for-double"])
        r.advance(to: 400)
        expectEqual(t.gestureLog, ["single:waiting-for-double", "double:failed", "single:recognized"])
        expectEqual(t.gestureEvents.first?.ms, 400)
        // The touch's end was held (delays-touches-ended) and, the single tap having
        // recognized, it is cancelled instead.
        expectEqual(t.touchLog, ["1:began", "1:cancelled"])
    }

    @Test func doubleTapWinsOverTheSingleTap() throws {
        let (r, t) = makeRouter(try gestureLayout(pad: [Self.single, Self.double]))
        r.touch(1, .began, 300, 300, at: 0)
        r.touch(1, .ended, 300, 300, at: 50)
        r.touch(2, .began, 300, 300, at: 150)
        r.touch(2, .ended, 300, 300, at: 200)
        expectEqual(t.gestureLog, ["single:waiting-for-double", "single:failed", "double:recognized"])
        r.advance(to: 2000)
        expect(!t.gestureLog.contains("single:recognized"))
        expectEqual(t.touchLog, ["1:began", "2:began", "1:cancelled", "2:cancelled"])
        // Both reset: the next single tap works again.
        r.touch(3, .began, 300, 300, at: 3000)
        r.touch(3, .ended, 300, 300, at: 3050)
        r.advance(to: 3500)
        expectEqual(t.gestureLog.suffix(3), ["single:waiting-for-double", "double:failed", "single:recognized"])
    }

    @Test func aRequirementOnAnAncestorWaitsUntilItFails() throws {
        let single = GestureSpec(name: "single", kind: .tap, requireToFail: ["long"])
        let long = GestureSpec(name: "long", kind: .longPress)
        let (r, t) = makeRouter(try gestureLayout(pad: [single], root: [long]))
        // Both see a pad touch (root is pad's ancestor): the tap waits for the long press,
        // which fails when the touch lifts; pad's recognizer sees the touch first.
        r.touch(1, .began, 300, 300, at: 0)
        r.touch(1, .ended, 300, 300, at: 50)
        expectEqual(t.gestureLog, ["single:waiting-for-long", "long:failed", "single:recognized"])
    }

    @Test func aRequirementNotInPlayDoesNotDelay() throws {
        // The long press is on a sibling region: it never sees the pad's touch.
        let single = GestureSpec(name: "single", kind: .tap, requireToFail: ["long"])
        let long = GestureSpec(name: "long", kind: .longPress)
        let pad = region("pad", 100, 100, 300, 300, handlers: [handler("p", .touch, .gesture("single"))]) { $0.gestures = [single] }
        let other = region("other", 500, 500, 300, 300) { $0.gestures = [long] }
        let (r, t) = makeRouter(try makeLayout([screen("s", region("root", 0, 0, 1000, 1000, [pad, other]))]))
        r.touch(1, .began, 600, 600, at: 0)      // the long press is in play, but on other touches
        r.touch(2, .began, 200, 200, at: 10)
        r.touch(2, .ended, 200, 200, at: 50)
        expectEqual(t.gestureLog, ["single:waiting-for-long"])
        r.touch(1, .ended, 600, 600, at: 60)
        expectEqual(t.gestureLog, ["single:waiting-for-long", "long:failed", "single:recognized"])
        // With the long press idle, the tap recognizes at once.
        r.touch(3, .began, 200, 200, at: 1000)
        r.touch(3, .ended, 200, 200, at: 1050)
        expectEqual(t.gestureLog.suffix(1), ["single:recognized"])
        expectEqual(t.gestureEvents.last?.ms, 1050)
    }

    @Test func requirementRecognizingFailsTheWaiter() throws {
        let pan = GestureSpec(name: "pan", kind: .pan, minimumDistance: 20)
        let swipe = GestureSpec(name: "swipe", kind: .swipe, minimumDistance: 60, requireToFail: ["pan"])
        let (r, t) = makeRouter(try gestureLayout(pad: [swipe, pan]))
        r.drag(1, from: 200, 300, by: 200, 0, start: 0, duration: 100)
        expect(t.gestureLog.contains("pan:began"))
        expect(t.gestureLog.contains("swipe:failed"))
        expect(!t.gestureLog.contains("swipe:recognized"))
    }

    // MARK: Exclusion and simultaneous recognition

    @Test func ancestorRecognizersSeeTheTouchAndOnlyOneWins() throws {
        // Pad has a tap, root a pan: a drag on pad is a pan (the tap fails), a tap is a tap (the pan fails).
        let tap = GestureSpec(name: "tap", kind: .tap)
        let pan = GestureSpec(name: "pan", kind: .pan, minimumDistance: 30)
        let (r, t) = makeRouter(try gestureLayout(pad: [tap], root: [pan]))
        r.drag(1, from: 300, 300, by: 100, 0, start: 0, duration: 100)
        expect(t.gestureLog == ["tap:failed", "pan:began", "pan:changed", "pan:ended"] ||
                t.gestureLog.starts(with: ["tap:failed", "pan:began"]))
        expectEqual(t.gestureLog.last, "pan:ended")
        // The pan event routes from root (its region), not from pad.
        expect(t.gestureEvents.first { $0.name == "pan" }?.handledBy == "s/root/pad" ||
                t.gestureEvents.first { $0.name == "pan" }?.handledBy == nil)
        let before = t.gestureLog.count
        r.touch(2, .began, 300, 300, at: 1000)
        r.touch(2, .ended, 300, 300, at: 1050)
        expectEqual(Array(t.gestureLog.dropFirst(before)), ["pan:failed", "tap:recognized"])
    }

    @Test func pinchCancelsAPanThatBeganUnlessSimultaneous() throws {
        func run(_ simultaneous: Bool) throws -> [String] {
            let pan = GestureSpec(name: "pan", kind: .pan, minimumDistance: 5)
            let pinch = GestureSpec(name: "pinch", kind: .pinch, simultaneousWith: simultaneous ? ["pan"] : [])
            let (r, t) = makeRouter(try gestureLayout(pad: [pan, pinch]))
            r.frame(0, [(1, .began, 300, 300), (2, .began, 400, 300)])
            r.frame(20, [(1, .moved, 300, 310), (2, .moved, 400, 310)])      // both move down: a pan
            r.frame(40, [(1, .moved, 250, 310), (2, .moved, 450, 310)])      // then spread: a pinch
            r.frame(60, [(1, .ended, 250, 310), (2, .ended, 450, 310)])
            return t.gestureLog
        }
        let exclusive = try run(false)
        expect(exclusive.contains("pan:began") && exclusive.last == "pan:ended")
        expect(exclusive.contains("pinch:failed"))
        expect(!exclusive.contains("pinch:began"))
        let together = try run(true)
        expect(together.contains("pan:began") && together.contains("pinch:began"))
        expect(together.contains("pan:ended") && together.contains("pinch:ended"))
        expect(!together.contains("pan:cancelled"))
    }

    @Test func aGestureInProgressPreventsLaterOnes() throws {
        // A pan on root is in progress with one finger; a tap on pad with a second finger is
        // seen by the pan too (root is pad's ancestor), so the tap may not recognize.
        let pan = GestureSpec(name: "pan", kind: .pan, minimumDistance: 20)
        let tap = GestureSpec(name: "tap", kind: .tap)
        let (r, t) = makeRouter(try gestureLayout(pad: [tap], root: [pan]))
        r.touch(1, .began, 900, 900, at: 0)
        r.touch(1, .moved, 850, 900, at: 20)
        expectEqual(t.gestureLog, ["pan:began"])
        r.touch(2, .began, 300, 300, at: 40)
        r.touch(2, .ended, 300, 300, at: 80)
        expectEqual(t.gestureLog, ["pan:began", "tap:failed"])
        // Simultaneous, both go.
        var tap2 = tap
        tap2.simultaneousWith = ["pan"]
        let (r2, t2) = makeRouter(try gestureLayout(pad: [tap2], root: [pan]))
        r2.touch(1, .began, 900, 900, at: 0)
        r2.touch(1, .moved, 850, 900, at: 20)
        r2.touch(2, .began, 300, 300, at: 40)
        r2.touch(2, .ended, 300, 300, at: 80)
        expectEqual(t2.gestureLog, ["pan:began", "tap:recognized"])
    }

    // MARK: cancels-touches

    @Test func cancelsTouchesFalseLetsTheTouchEndNormally() throws {
        var tap = GestureSpec(name: "tap", kind: .tap)
        tap.cancelsTouches = false
        let (r, t) = makeRouter(try gestureLayout(pad: [tap]))
        r.touch(1, .began, 300, 300, at: 0)
        r.touch(1, .ended, 300, 300, at: 50)
        expectEqual(t.gestureLog, ["tap:recognized"])
        expectEqual(t.touchLog, ["1:began", "1:ended"])
    }

    @Test func cancelledTouchesRouteNothingMoreAndEndOnce() throws {
        let pan = GestureSpec(name: "pan", kind: .pan, minimumDistance: 20)
        let (r, t) = makeRouter(try gestureLayout(pad: [pan]))
        r.frame(0, [(1, .began, 300, 300), (2, .began, 500, 300)])
        r.frame(20, [(1, .moved, 350, 300)])     // mean translation 25 ≥ 20: the pan begins
        // Both touches are the pan's: each gets one cancelled once the frame's movement began
        // the pan; no more phases follow.
        expectEqual(t.gestureLog, ["pan:began"])
        expectEqual(t.touchLog, ["1:began", "2:began", "1:moved", "1:cancelled", "2:cancelled"])
        r.frame(40, [(1, .moved, 360, 300), (2, .moved, 520, 300)])
        r.frame(60, [(1, .ended, 360, 300), (2, .ended, 520, 300)])
        let phases = t.touchLog
        expectEqual(phases.filter { $0.hasPrefix("1:") }.last, "1:cancelled")
        expectEqual(phases.filter { $0 == "1:cancelled" || $0 == "1:ended" }.count, 1)
        expectEqual(phases.filter { $0 == "2:cancelled" || $0 == "2:ended" }.count, 1)
        // The region's touch bookkeeping is intact: a new touch routes normally.
        expect(r.activeTouches.isEmpty && r.gestures.touches.isEmpty)
    }

    // MARK: delays-touches-began / delays-touches-ended

    @Test func delaysTouchesBeganHoldsUntilFailure() throws {
        var tap = GestureSpec(name: "tap", kind: .tap)
        tap.delaysTouchesBegan = true
        let (r, t) = makeRouter(try gestureLayout(pad: [tap]))
        r.touch(1, .began, 300, 300, at: 0)
        r.touch(1, .moved, 303, 300, at: 20)
        expect(t.touchLog.isEmpty)
        r.touch(1, .moved, 340, 300, at: 40)          // too far: the tap fails, held phases go
        expectEqual(t.gestureLog, ["tap:failed"])
        expectEqual(t.touchLog, ["1:began", "1:moved", "1:moved"])
        r.touch(1, .ended, 340, 300, at: 60)
        expectEqual(t.touchLog, ["1:began", "1:moved", "1:moved", "1:ended"])
    }

    @Test func delaysTouchesBeganNeverDeliversARecognizedTouch() throws {
        var tap = GestureSpec(name: "tap", kind: .tap)
        tap.delaysTouchesBegan = true
        let (r, t) = makeRouter(try gestureLayout(pad: [tap]))
        r.touch(1, .began, 300, 300, at: 0)
        r.touch(1, .ended, 300, 300, at: 40)
        expectEqual(t.gestureLog, ["tap:recognized"])
        expect(t.touchLog.isEmpty)
        expect(r.gestures.touches.isEmpty)
    }

    @Test func delaysTouchesEndedHoldsTheEndWhileItCouldRecognize() throws {
        func run(delays: Bool) throws -> (Trace, [(String, Int64)]) {
            var double = GestureSpec(name: "double", kind: .tap, taps: 2)
            double.delaysTouchesEnded = delays
            let (r, t) = makeRouter(try gestureLayout(pad: [double]))
            r.touch(1, .began, 300, 300, at: 0)
            r.touch(1, .ended, 300, 300, at: 50)
            r.advance(to: 1000)
            let times = t.records.compactMap { rec -> (String, Int64)? in
                guard case .routed(let e, _, _) = rec, case .touch(let p, _) = e.kind else { return nil }
                return (p.rawValue, e.time.microseconds / 1000)
            }
            return (t, times)
        }
        let (held, heldTimes) = try run(delays: true)
        expectEqual(held.gestureLog, ["double:failed"])
        // The end waited for the double tap to fail (50 + 350 ms).
        expect(heldTimes.map(\.0) == ["began", "ended"] && heldTimes.last?.1 == 400)
        let (_, freeTimes) = try run(delays: false)
        expect(freeTimes.map(\.0) == ["began", "ended"] && freeTimes.last?.1 == 50)
    }

    // MARK: Routing, actions, timers, device removal

    @Test func gestureEventsRouteUpTheChainAndSendTheirAction() throws {
        var tap = GestureSpec(name: "tap", kind: .tap)
        tap.action = "open-admin"
        let layout = try gestureLayout(pad: [tap], padHandlers: [handler("p", .touch)],
                                       rootHandlers: [handler("q", .gesture("tap"), .action("open-admin"))])
        let (r, t) = makeRouter(layout)
        r.touch(1, .began, 300, 300, at: 0)
        r.touch(1, .ended, 300, 300, at: 40)
        let kinds = t.entries.filter { !$0.kind.hasPrefix("touch") }
        expectEqual(kinds.map(\.kind), ["gesture:tap", "action:open-admin"])
        expectEqual(kinds.map(\.handledBy), ["s/root", "s/root"])
        expect(kinds[0].region == "s/root/pad" && kinds[0].phase == "recognized")
    }

    @Test func deviceRemovalSettlesPendingRecognizers() throws {
        let hold = GestureSpec(name: "hold", kind: .longPress, minimumDuration: 0.2)
        let (r, t) = makeRouter(try gestureLayout(pad: [Self.single, Self.double], root: [hold]))
        r.touch(1, .began, 300, 300, at: 0)
        r.touch(1, .ended, 300, 300, at: 50)
        r.removeDevice(DeviceID(1), time: Timestamp(microseconds: 60_000))
        // The multi-tap wait is cut short at the removal: the double tap fails, the single tap recognizes.
        expectEqual(t.gestureLog, ["single:waiting-for-double", "hold:failed", "double:failed", "single:recognized"])
        expectEqual(t.gestureEvents.last?.ms, 60)
        expect(r.nextTimerDeadline == nil)
        // A continuous gesture in progress is cancelled with its touch.
        r.addDevice(DeviceInfo(id: DeviceID(1), ruleName: "touch", name: "ts", kind: .touchscreen, display: "main"), time: Timestamp(microseconds: 100_000))
        r.touch(2, .began, 300, 300, at: 200)
        r.advance(to: 500)
        expect(t.gestureLog.suffix(3) == ["single:failed", "double:failed", "hold:began"] || t.gestureLog.last == "hold:began")
        r.removeDevice(DeviceID(1), time: Timestamp(microseconds: 600_000))
        expectEqual(t.gestureLog.last, "hold:cancelled")
        expect(r.gestures.touches.isEmpty)
    }

    @Test func timersFireInDeadlineOrderAndReplaysAreIdentical() throws {
        func run() throws -> [String] {
            let hold = GestureSpec(name: "hold", kind: .longPress, minimumDuration: 0.3)
            let (r, t) = makeRouter(try gestureLayout(pad: [Self.double], root: [hold]))
            r.touch(1, .began, 300, 300, at: 0)
            r.touch(1, .ended, 300, 300, at: 50)      // double waits until 400
            r.touch(2, .began, 900, 900, at: 60)       // hold (root only) until 360
            r.advance(to: 1000)
            return t.gestureLog.map { $0 } + t.gestureEvents.map { "\($0.name)@\($0.ms)" }
        }
        let a = try run()
        expect(a == ["hold:failed", "hold:began", "double:failed", "hold@360"] ||
                a == ["hold:failed", "hold:began", "double:failed", "hold@360"])
        try expectEqual(try run(), a)
    }

    @Test func regionsWithoutRecognizersTakeTheFastPath() throws {
        let layout = try gestureLayout(pad: [GestureSpec(name: "tap", kind: .tap)])
        let pad = try #require(layout.region(path: "s/root/pad")), root = try #require(layout.region(path: "s/root"))
        expect(layout.regionHasGestures[pad] && !layout.regionHasGestures[root])
        expectEqual(layout.gestures(seenFrom: pad), [GestureRef(region: pad, index: 0)])
        let (r, t) = makeRouter(layout)
        r.touch(1, .began, 900, 900, at: 0)       // on root: no recognizer
        expect(r.gestures.touches.isEmpty && r.gestures.byKey.isEmpty)
        r.touch(1, .ended, 900, 900, at: 50)
        expect(t.touchLog == ["1:began", "1:ended"] && t.gestureLog.isEmpty)
    }
}
