import Testing
import EvrouteChecks
@testable import EvrouteCore

/// Recognizer bookkeeping on its own: the timer queue's order and stale timers.
@Suite("Gesture tracking")
struct GestureTrackingTests {
    func recognizers(_ n: Int) throws -> (GestureTracking, [GestureRecognizer]) {
        let l = try gestureLayout(pad: [GestureSpec(name: "tap", kind: .tap)])
        let r = try #require(l.regions.firstIndex { !$0.gestures.isEmpty })
        var s = GestureTracking()
        let recs = (0..<n).map { _ in
            GestureRecognizer(spec: l.regions[r].gestures[0], layout: l, ref: GestureRef(region: r, index: 0), order: s.nextOrder())
        }
        return (s, recs)
    }

    @Test func timersQueueByDeadlineThenSchedulingOrder() throws {
        var (s, recs) = try recognizers(3)
        expectEqual(recs.map(\.order), [1, 2, 3])
        s.schedule(recs[0], at: Timestamp(microseconds: 300))
        s.schedule(recs[1], at: Timestamp(microseconds: 100))
        s.schedule(recs[2], at: Timestamp(microseconds: 300))
        expectEqual(s.timers.map(\.recognizer.order), [2, 1, 3])
        expectEqual(s.timers.map(\.sequence), [2, 1, 3])
    }

    @Test func staleTimersAtTheHeadAreDropped() throws {
        var (s, recs) = try recognizers(2)
        s.schedule(recs[0], at: Timestamp(microseconds: 100))
        s.schedule(recs[1], at: Timestamp(microseconds: 200))
        recs[0].timerToken += 1
        s.purgeStaleTimers()
        expectEqual(s.timers.map(\.recognizer.order), [2])
        s.purgeStaleTimers()
        expectEqual(s.timers.count, 1)
    }
}
