import Testing
import EvrouteChecks
@testable import EvrouteCore

/// The router's touch bookkeeping on its own: who may bind where, and tap counting.
@Suite("Touch state")
struct TouchStateTests {
    let layoutID = ObjectIdentifier(Router.self)
    func key(_ region: Int) -> Router.RegionKey { Router.RegionKey(layout: layoutID, region: region) }

    @Test func multitouchOffAdmitsOneTouchPerRegion() {
        var s = TouchState(displays: 1)
        expect(s.admit(key(1), display: 0, exclusive: false, multitouch: false) == nil)
        expectEqual(s.admit(key(1), display: 0, exclusive: false, multitouch: false), .multitouch)
        expect(s.admit(key(2), display: 0, exclusive: false, multitouch: false) == nil)
        expect(s.regionCounts[key(1)] == 1 && s.exclusive[0].touches == 2)
        s.release(key(1), display: 0)
        expect(s.regionCounts[key(1)] == nil)
        expect(s.admit(key(1), display: 0, exclusive: false, multitouch: false) == nil)
    }

    @Test func exclusiveOwnerBlocksOthersUntilItsTouchesEnd() {
        var s = TouchState(displays: 2)
        expect(s.admit(key(1), display: 0, exclusive: true, multitouch: true) == nil)
        expectEqual(s.exclusive[0].owner, key(1))
        expectEqual(s.admit(key(2), display: 0, exclusive: false, multitouch: true), .exclusive)
        // Another display is not concerned; the owner itself takes more touches.
        expect(s.admit(key(2), display: 1, exclusive: false, multitouch: true) == nil)
        expect(s.admit(key(1), display: 0, exclusive: true, multitouch: true) == nil)
        s.release(key(1), display: 0)
        expectEqual(s.exclusive[0].owner, key(1))
        s.release(key(1), display: 0)
        expect(s.exclusive[0].owner == nil && s.exclusive[0].touches == 0)
        expect(s.admit(key(2), display: 0, exclusive: false, multitouch: true) == nil)
        // An exclusive region does not bind while the display has another touch.
        expectEqual(s.admit(key(3), display: 0, exclusive: true, multitouch: true), .exclusive)
    }

    @Test func releaseOfAGoneRegionOrDisplayCountsNothingBelowZero() {
        var s = TouchState(displays: 1)
        s.release(nil, display: 0)
        s.release(key(4), display: nil)
        expect(s.exclusive[0].touches == 0 && s.regionCounts.isEmpty)
    }

    @Test func tapCountGrowsOnlyNearAndSoon() {
        var s = TouchState(displays: 1)
        let policy = TapPolicy()
        let t0 = Timestamp(microseconds: 1_000_000)
        expectEqual(s.tapCount(display: 0, at: Point(x: 10, y: 10), time: t0, policy: policy), 1)
        s.lastTap[0] = Router.TapMemory(location: Point(x: 10, y: 10), time: t0, count: 2)
        expectEqual(s.tapCount(display: 0, at: Point(x: 20, y: 10), time: t0 + .milliseconds(100), policy: policy), 3)
        expectEqual(s.tapCount(display: 0, at: Point(x: 20, y: 10), time: t0 + .milliseconds(400), policy: policy), 1)
        expectEqual(s.tapCount(display: 0, at: Point(x: 100, y: 10), time: t0 + .milliseconds(100), policy: policy), 1)
    }

    @Test func touchIDsIncrease() {
        var s = TouchState(displays: 1)
        expect(s.takeID() == 1 && s.takeID() == 2 && s.nextID == 3)
    }
}
