import Testing
import EvrouteChecks
@testable import EvrouteCore

@Suite("Gesture recognizers")
struct GestureRecognizerTests {
    // MARK: Tap

    @Test func singleTapRecognizesAndCancelsTheTouch() throws {
        let (r, t) = makeRouter(try gestureLayout(pad: [GestureSpec(name: "tap", kind: .tap)]))
        r.touch(1, .began, 300, 300, at: 10)
        r.touch(1, .ended, 302, 301, at: 80)
        expectEqual(t.gestureLog, ["tap:recognized"])
        let e = try #require(t.gestureEvents.first)
        expect(e.ms == 80 && e.handledBy == "s/root/pad")
        expect(e.values?.taps == 1 && e.values?.touches == 1)
        // cancels-touches (default): the region saw began, then cancelled instead of ended.
        expectEqual(t.touchLog, ["1:began", "1:cancelled"])
        expect(r.gestures.touches.isEmpty && r.nextTimerDeadline == nil)
    }

    @Test func tapFailsWhenTheTouchMovesTooFar() throws {
        let (r, t) = makeRouter(try gestureLayout(pad: [GestureSpec(name: "tap", kind: .tap, allowableMovement: 10)]))
        r.touch(1, .began, 300, 300, at: 0)
        r.touch(1, .moved, 330, 300, at: 40)
        r.touch(1, .ended, 330, 300, at: 80)
        expectEqual(t.gestureLog, ["tap:failed"])
        expectEqual(t.touchLog, ["1:began", "1:moved", "1:ended"])
    }

    @Test func tapFailsWhenHeldTooLong() throws {
        let (r, t) = makeRouter(try gestureLayout(pad: [GestureSpec(name: "tap", kind: .tap)]))
        r.touch(1, .began, 300, 300, at: 0)
        expectEqual(r.nextTimerDeadline, Timestamp(microseconds: 500_000))
        r.advance(to: 499)
        expect(t.gestureLog.isEmpty)
        r.advance(to: 501)
        expectEqual(t.gestureLog, ["tap:failed"])
        r.touch(1, .ended, 300, 300, at: 900)
        expectEqual(t.gestureLog, ["tap:failed"])
        expectEqual(t.touchLog, ["1:began", "1:ended"])
    }

    @Test func doubleTapNeedsTwoTapsInTime() throws {
        let (r, t) = makeRouter(try gestureLayout(pad: [GestureSpec(name: "double", kind: .tap, taps: 2)]))
        r.touch(1, .began, 300, 300, at: 0)
        r.touch(1, .ended, 300, 300, at: 50)
        r.touch(2, .began, 305, 302, at: 200)
        r.touch(2, .ended, 305, 302, at: 250)
        expectEqual(t.gestureLog, ["double:recognized"])
        expectEqual(t.gestureEvents.first?.values?.taps, 2)
        // Too slow: the multi-tap interval (350 ms) runs out on the event clock.
        r.touch(3, .began, 300, 300, at: 1000)
        r.touch(3, .ended, 300, 300, at: 1050)
        r.advance(to: 1399)
        expectEqual(t.gestureLog, ["double:recognized"])
        r.advance(to: 1401)
        expectEqual(t.gestureLog, ["double:recognized", "double:failed"])
        r.touch(4, .began, 300, 300, at: 1500)
        r.touch(4, .ended, 300, 300, at: 1550)
        expectEqual(t.gestureLog, ["double:recognized", "double:failed"])
    }

    @Test func doubleTapFailsWhenTheSecondTapIsElsewhere() throws {
        let (r, t) = makeRouter(try gestureLayout(pad: [GestureSpec(name: "double", kind: .tap, taps: 2)]))
        r.touch(1, .began, 200, 200, at: 0)
        r.touch(1, .ended, 200, 200, at: 50)
        r.touch(2, .began, 500, 500, at: 150)
        expectEqual(t.gestureLog, ["double:failed"])
    }

    @Test func twoFingerTapNeedsBothFingers() throws {
        let (r, t) = makeRouter(try gestureLayout(pad: [GestureSpec(name: "two", kind: .tap, touches: 2)]))
        r.frame(0, [(1, .began, 300, 300), (2, .began, 400, 300)])
        r.frame(40, [(1, .ended, 300, 300)])
        r.frame(60, [(2, .ended, 400, 300)])
        expectEqual(t.gestureLog, ["two:recognized"])
        expectEqual(t.gestureEvents.first?.values?.location, Point(x: 350, y: 300))
        // One finger is not a two-finger tap.
        r.touch(3, .began, 300, 300, at: 1000)
        r.touch(3, .ended, 300, 300, at: 1040)
        expectEqual(t.gestureLog, ["two:recognized", "two:failed"])
        // Three fingers neither.
        r.frame(2000, [(1, .began, 300, 300), (2, .began, 400, 300), (3, .began, 500, 300)])
        expectEqual(t.gestureLog, ["two:recognized", "two:failed", "two:failed"])
    }

    // MARK: Long press

    @Test func longPressBeginsOnTheEventClock() throws {
        let (r, t) = makeRouter(try gestureLayout(pad: [GestureSpec(name: "hold", kind: .longPress, minimumDuration: 0.5)]))
        r.touch(1, .began, 300, 300, at: 0)
        r.touch(1, .moved, 305, 300, at: 300)
        expect(t.gestureLog.isEmpty)
        r.touch(1, .moved, 306, 300, at: 700)   // the timer fires first, at 500 ms
        expectEqual(t.gestureLog, ["hold:began", "hold:changed"])
        expectEqual(t.gestureEvents[0].ms, 500)
        r.touch(1, .moved, 400, 300, at: 800)   // any movement once it began
        r.touch(1, .ended, 400, 300, at: 900)
        expectEqual(t.gestureLog, ["hold:began", "hold:changed", "hold:changed", "hold:ended"])
        // The began cancelled the region's touch: moved once, then cancelled, nothing after.
        expectEqual(t.touchLog, ["1:began", "1:moved", "1:cancelled"])
    }

    @Test func longPressFailsOnMovementOrEarlyLift() throws {
        let (r, t) = makeRouter(try gestureLayout(pad: [GestureSpec(name: "hold", kind: .longPress, allowableMovement: 10)]))
        r.touch(1, .began, 300, 300, at: 0)
        r.touch(1, .moved, 320, 300, at: 100)
        r.advance(to: 1000)
        expectEqual(t.gestureLog, ["hold:failed"])
        r.touch(1, .ended, 320, 300, at: 1100)
        r.touch(2, .began, 300, 300, at: 2000)
        r.touch(2, .ended, 300, 300, at: 2200)
        expectEqual(t.gestureLog, ["hold:failed", "hold:failed"])
        r.advance(to: 5000)
        expectEqual(t.gestureLog, ["hold:failed", "hold:failed"])
    }

    @Test func twoFingerLongPress() throws {
        let (r, t) = makeRouter(try gestureLayout(pad: [GestureSpec(name: "hold2", kind: .longPress, touches: 2, minimumDuration: 1)]))
        r.touch(1, .began, 300, 300, at: 0)
        r.advance(to: 1500)
        expect(t.gestureLog.isEmpty)            // one finger is not enough
        r.touch(2, .began, 350, 300, at: 1600)
        r.advance(to: 2601)
        expectEqual(t.gestureLog, ["hold2:began"])
        expectEqual(t.gestureEvents[0].ms, 2600)
    }

    // MARK: Swipe

    @Test func swipeRecognizesItsDirectionOnly() throws {
        let (r, t) = makeRouter(try gestureLayout(pad: [GestureSpec(name: "right", kind: .swipe, directions: [.right], minimumDistance: 100)]))
        r.drag(1, from: 200, 400, by: 200, 10, start: 0, duration: 200)
        expectEqual(t.gestureLog, ["right:recognized"])
        expectEqual(t.gestureEvents[0].values?.direction, .right)
        r.drag(2, from: 500, 400, by: -200, 0, start: 1000, duration: 200)
        expectEqual(t.gestureLog, ["right:recognized", "right:failed"])
        // Too slow: the maximum duration (0.5 s) runs out first.
        r.drag(3, from: 200, 400, by: 200, 0, start: 2000, duration: 1000)
        expectEqual(t.gestureLog, ["right:recognized", "right:failed", "right:failed"])
    }

    @Test func swipeDirectionsAndTouches() throws {
        let g = GestureSpec(name: "updown2", kind: .swipe, touches: 2, directions: [.up, .down], minimumDistance: 80)
        let (r, t) = makeRouter(try gestureLayout(pad: [g]))
        r.frame(0, [(1, .began, 300, 200), (2, .began, 400, 200)])
        for i in 1...5 { r.frame(Int64(i * 30), [(1, .moved, 300, 200 + Double(i) * 30), (2, .moved, 400, 200 + Double(i) * 30)]) }
        expectEqual(t.gestureLog, ["updown2:recognized"])
        expectEqual(t.gestureEvents[0].values?.direction, .down)
        r.frame(400, [(1, .ended, 300, 350), (2, .ended, 400, 350)])
        // One finger is not a two-finger swipe.
        r.drag(3, from: 300, 200, by: 0, 200, start: 1000, duration: 150)
        expectEqual(t.gestureLog, ["updown2:recognized", "updown2:failed"])
    }

    // MARK: Pan

    @Test func panBeginsAfterItsMinimumDistance() throws {
        let (r, t) = makeRouter(try gestureLayout(pad: [GestureSpec(name: "pan", kind: .pan, minimumDistance: 30)]))
        r.touch(1, .began, 300, 300, at: 0)
        r.touch(1, .moved, 310, 300, at: 20)
        r.touch(1, .moved, 320, 300, at: 40)
        expect(t.gestureLog.isEmpty)
        r.touch(1, .moved, 335, 300, at: 60)
        r.touch(1, .moved, 360, 310, at: 80)
        r.touch(1, .ended, 360, 310, at: 100)
        expectEqual(t.gestureLog, ["pan:began", "pan:changed", "pan:ended"])
        expectEqual(t.gestureEvents[1].values?.translation, Point(x: 60, y: 10))
        // The move that began the pan was delivered (movement is judged once the frame is
        // complete); then the touch is cancelled.
        expectEqual(t.touchLog, ["1:began", "1:moved", "1:moved", "1:moved", "1:cancelled"])
        // Too little movement: it fails when the touch lifts.
        r.touch(2, .began, 300, 300, at: 1000)
        r.touch(2, .moved, 310, 300, at: 1020)
        r.touch(2, .ended, 310, 300, at: 1040)
        expectEqual(t.gestureLog.last, "pan:failed")
    }

    @Test func panTouchCounts() throws {
        let g = GestureSpec(name: "pan2", kind: .pan, touches: 2, maximumTouches: 2, minimumDistance: 20)
        let (r, t) = makeRouter(try gestureLayout(pad: [g]))
        r.drag(1, from: 300, 300, by: 100, 0, start: 0, duration: 100)
        expectEqual(t.gestureLog, ["pan2:failed"])
        r.frame(1000, [(1, .began, 300, 300), (2, .began, 400, 300)])
        r.frame(1020, [(1, .moved, 300, 330), (2, .moved, 400, 330)])
        expectEqual(t.gestureLog, ["pan2:failed", "pan2:began"])
        expectEqual(t.gestureEvents.last?.values?.touches, 2)
        r.frame(1040, [(2, .ended, 400, 330)])
        expectEqual(t.gestureLog, ["pan2:failed", "pan2:began", "pan2:ended"])
        r.frame(1060, [(1, .ended, 300, 330)])
        // Three fingers are too many.
        r.frame(2000, [(1, .began, 300, 300), (2, .began, 400, 300), (3, .began, 500, 300)])
        expectEqual(t.gestureLog.last, "pan2:failed")
    }

    // MARK: Pinch and rotation

    @Test func pinchReportsScale() throws {
        let (r, t) = makeRouter(try gestureLayout(pad: [GestureSpec(name: "pinch", kind: .pinch)]))
        r.frame(0, [(1, .began, 300, 400), (2, .began, 400, 400)])
        r.frame(20, [(1, .moved, 295, 400), (2, .moved, 403, 400)])
        expect(t.gestureLog.isEmpty)                     // 8 units: under the threshold
        r.frame(40, [(1, .moved, 250, 400), (2, .moved, 450, 400)])
        r.frame(60, [(1, .moved, 200, 400), (2, .moved, 500, 400)])
        r.frame(80, [(1, .ended, 200, 400)])
        // Judged once per frame, after all its contacts moved: no half-moved pair.
        expectEqual(t.gestureLog, ["pinch:began", "pinch:changed", "pinch:ended"])
        expectEqual(t.gestureEvents[0].values?.scale, 2)
        let scale = try #require(t.gestureEvents[1].values?.scale)
        expect(abs(scale - 3) < 1e-9)
    }

    @Test func rotationReportsAngle() throws {
        let (r, t) = makeRouter(try gestureLayout(pad: [GestureSpec(name: "rot", kind: .rotation)]))
        // Two fingers 100 apart around (400, 400), turning 90° clockwise (display y down) in 9 steps.
        r.frame(0, [(1, .began, 350, 400), (2, .began, 450, 400)])
        for i in 1...9 {
            let a = Double(i) * Double.pi / 18
            let c = 50 * cosine(a), s = 50 * sine(a)
            r.frame(Int64(i * 20), [(1, .moved, 400 - c, 400 - s), (2, .moved, 400 + c, 400 + s)])
        }
        r.frame(300, [(1, .ended, 400, 350), (2, .ended, 400, 450)])
        expectEqual(t.gestureLog.first, "rot:began")
        expectEqual(t.gestureLog.last, "rot:ended")
        let rotation = try #require(t.gestureEvents.last?.values?.rotation)
        expect(abs(rotation - Double.pi / 2) < 1e-3)
        // A pinch without turning is not a rotation.
        r.frame(1000, [(1, .began, 350, 400), (2, .began, 450, 400)])
        r.frame(1020, [(1, .moved, 300, 400), (2, .moved, 500, 400)])
        r.frame(1040, [(1, .ended, 300, 400), (2, .ended, 500, 400)])
        expectEqual(t.gestureLog.last, "rot:failed")
    }

    @Test func atan2Approximation() {
        for i in -40...40 {
            let a = Double(i) * Double.pi / 40.5
            expect(abs(gestureAtan2(sine(a), cosine(a)) - a) < 2e-5)
        }
    }

    // MARK: Screen-edge pan

    @Test func screenEdgePanStartsAtTheEdge() throws {
        let g = GestureSpec(name: "edge", kind: .screenEdgePan, minimumDistance: 40, edges: [.left, .bottom])
        let (r, t) = makeRouter(try gestureLayout(pad: [], root: [g], rootHandlers: [handler("p", .gesture("edge"))]))
        r.drag(1, from: 5, 500, by: 100, 0, start: 0, duration: 100)
        expect(t.gestureLog == ["edge:began", "edge:changed", "edge:ended"] || t.gestureLog.starts(with: ["edge:began"]))
        expectEqual(t.gestureEvents[0].values?.edge, .left)
        expectEqual(t.gestureEvents[0].handledBy, "s/root")
        // From the middle: not an edge pan.
        r.drag(2, from: 500, 500, by: 100, 0, start: 1000, duration: 100)
        expectEqual(t.gestureLog.last, "edge:failed")
        // From the bottom edge, moving up.
        r.drag(3, from: 500, 995, by: 0, -100, start: 2000, duration: 100)
        expectEqual(t.gestureEvents.last?.values?.edge, .bottom)
        expectEqual(t.gestureLog.last, "edge:ended")
        // Along the left edge, not inward: nothing begins.
        r.drag(4, from: 5, 200, by: 0, 300, start: 3000, duration: 100)
        expectEqual(t.gestureLog.last, "edge:failed")
    }
}

/// sin/cos by Taylor series (the tests import no Foundation either).
func sine(_ x: Double) -> Double {
    var term = x, sum = x
    for n in 1..<20 { term *= -x * x / Double((2 * n) * (2 * n + 1)); sum += term }
    return sum
}
func cosine(_ x: Double) -> Double {
    var term = 1.0, sum = 1.0
    for n in 1..<20 { term *= -x * x / Double((2 * n - 1) * (2 * n)); sum += term }
    return sum
}
