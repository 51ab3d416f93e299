import Testing
import EvrouteChecks
@testable import EvrouteCore

@Suite("Touch lifetime and the responder chain")
struct RoutingTests {
    func kiosk() throws -> Layout {
        try makeLayout([screen("home", region("root", 0, 0, 1000, 1000, [
            region("header", 0, 0, 1000, 100, [
                region("back", 0, 0, 100, 100, handlers: [handler("p", .touchEnded)]),
            ]),
            region("content", 0, 100, 1000, 900, handlers: [handler("q", .touch, .key)]) { $0.focusable = true },
        ]), handlers: [handler("p", .touchBegan)])], fallback: [handler("log", .any)])
    }

    @Test func touchStaysBoundToItsRegionWhenItMovesOut() throws {
        let (r, trace) = makeRouter(try kiosk())
        r.touch(0, .began, 50, 50, at: 0)
        r.touch(0, .moved, 500, 600, at: 10)
        r.touch(0, .moved, 900, 900, at: 20)
        r.touch(0, .ended, 900, 900, at: 30)
        let t = trace.touchEntries
        expectEqual(t.map(\.phase), ["began", "moved", "moved", "ended"])
        expectEqual(Set(t.map(\.touch)).count, 1)
        expect(t.allSatisfy { $0.region == "home/root/header/back" })
        // began: back has no began handler → screen handler; moved: nobody but fallback; ended: back.
        expectEqual(t.map(\.handledBy), ["screen:home", "fallback", "fallback", "home/root/header/back"])
        expect(r.activeTouches.isEmpty)
    }

    @Test func eachTouchEndsExactlyOnce() throws {
        let (r, trace) = makeRouter(try kiosk())
        r.touch(0, .began, 50, 50, at: 0)
        r.touch(0, .ended, 50, 50, at: 10)
        r.touch(0, .ended, 50, 50, at: 20)        // a duplicate end is dropped
        r.touch(1, .began, 500, 500, at: 30)
        r.removeDevice(DeviceID(1), time: Timestamp(microseconds: 40_000))
        r.touch(1, .ended, 500, 500, at: 50)      // after the cancel: nothing
        let t = trace.touchEntries
        expectEqual(t.map(\.phase), ["began", "ended", "began", "cancelled"])
        expectEqual(t.map(\.touch), [1, 1, 2, 2])
    }

    @Test func newTrackingIdentityGetsNewTouch() throws {
        let (r, trace) = makeRouter(try kiosk())
        r.touch(0, .began, 50, 50, at: 0)
        r.touch(0, .began, 500, 500, at: 10)      // the same contact begins again: the old one is cancelled
        let t = trace.touchEntries
        expectEqual(t.map(\.phase), ["began", "cancelled", "began"])
        expectEqual(t.map(\.touch), [1, 1, 2])
        expectEqual(t.last?.region, "home/root/content")
    }

    @Test func stationaryContactsAreNotRouted() throws {
        let (r, trace) = makeRouter(try kiosk())
        r.touch(0, .began, 500, 500, at: 0)
        r.touch(0, .moved, 500, 500, at: 10)
        expectEqual(trace.touchEntries.count, 1)
    }

    @Test func touchOutsideEveryRegionStartsAtTheScreen() throws {
        let l = try makeLayout([screen("s", region("root", 0, 0, 100, 100))], app: [handler("p", .touch)])
        let (r, trace) = makeRouter(l)
        r.touch(0, .began, 500, 500, at: 0)
        expect(trace.touchEntries.first?.region == nil)
        expectEqual(trace.touchEntries.first?.handledBy, "application")
    }

    @Test func handlerDeclinesAndTheWalkGoesOn() throws {
        final class Declining: HandlerDispatcher {
            var offered: [String] = []
            func dispatch(_ event: RoutedEvent, toHandler handler: HandlerIndex, at responder: ResponderID) -> HandlerVerdict {
            let handler = event.layout[handler: handler]
                offered.append(handler.plugin)
                return handler.plugin == "q" ? .declined : .handled
            }
        }
        let l = try makeLayout([screen("s", region("root", 0, 0, 1000, 1000, [
            region("a", 0, 0, 100, 100, handlers: [handler("q", .touch)]),
        ], handlers: [handler("p", .touch)]))])
        let (r, trace) = makeRouter(l)
        let d = Declining()
        r.dispatcher = d
        r.touch(0, .began, 10, 10, at: 0)
        expectEqual(d.offered, ["q", "p"])
        expectEqual(trace.touchEntries.first?.handledBy, "s/root")
        expectEqual(trace.touchEntries.first?.handler, "p")
    }

    @Test func nextOverridesTheChain() throws {
        let l = try makeLayout([screen("s", region("root", 0, 0, 1000, 1000, [
            region("side", 500, 0, 500, 1000, handlers: [handler("p", .touch)]),
            region("button", 0, 0, 100, 100) { $0.next = "side" },
            region("other", 0, 200, 100, 100) { $0.next = "application" },
        ]))])
        let button = l.region(path: "s/root/button")!
        expectEqual(l.responderChain(from: .region(button)).map(l.describe), ["s/root/button", "s/root/side", "s/root", "screen:s", "display:main", "application", "fallback"])
        let other = l.region(path: "s/root/other")!
        expectEqual(l.responderChain(from: .region(other)).map(l.describe), ["s/root/other", "application", "fallback"])
        let (r, trace) = makeRouter(l)
        r.touch(0, .began, 10, 10, at: 0)
        expectEqual(trace.touchEntries.first?.handledBy, "s/root/side")
    }

    @Test func filtersPickTheFirstTaker() throws {
        let l = try makeLayout([screen("s", region("root", 0, 0, 1000, 1000, [
            region("a", 0, 0, 100, 100, handlers: [handler("p", .touchMoved), handler("q", .touchBegan, .touchEnded)]),
        ], handlers: [handler("p", .touchCancelled)]))], fallback: [handler("log", .any)])
        let (r, trace) = makeRouter(l)
        r.touch(0, .began, 10, 10, at: 0)
        r.touch(0, .moved, 20, 20, at: 10)
        r.touch(0, .ended, 20, 20, at: 20)
        r.touch(1, .began, 10, 10, at: 30)
        r.touch(1, .cancelled, 10, 10, at: 40)
        expectEqual(trace.touchEntries.map { "\($0.handledBy ?? "-")/\($0.handler ?? "-")" }, ["s/root/a/q", "s/root/a/p", "s/root/a/q", "s/root/a/q", "s/root/p"])
    }

    @Test func multitouchFalseTakesOneTouchAtATime() throws {
        let l = try makeLayout([screen("s", region("root", 0, 0, 1000, 1000, [
            region("slider", 0, 0, 500, 100, handlers: [handler("p", .touch)]) { $0.multitouch = false },
        ]))])
        let (r, trace) = makeRouter(l)
        r.touch(0, .began, 10, 10, at: 0)
        r.touch(1, .began, 20, 20, at: 10)
        r.touch(1, .ended, 20, 20, at: 20)
        r.touch(0, .ended, 10, 10, at: 30)
        r.touch(2, .began, 30, 30, at: 40)
        let t = trace.touchEntries
        expectEqual(t.map(\.blocked), [nil, .multitouch, .multitouch, nil, nil])
        expectEqual(t.map(\.handledBy), ["s/root/slider", nil, nil, "s/root/slider", "s/root/slider"])
        expect(t.allSatisfy { $0.region == "s/root/slider" || $0.blocked != nil })
    }

    @Test func exclusiveTouchBlocksOthersBothWays() throws {
        let l = try makeLayout([screen("s", region("root", 0, 0, 1000, 1000, [
            region("excl", 0, 0, 100, 100) { $0.exclusive = true },
            region("plain", 500, 500, 100, 100),
        ]))], fallback: [handler("log", .any)])
        let (r, trace) = makeRouter(l)
        r.touch(0, .began, 10, 10, at: 0)        // exclusive region touched
        r.touch(1, .began, 550, 550, at: 10)     // blocked
        r.touch(2, .began, 20, 20, at: 20)       // same exclusive region: fine
        r.touch(0, .ended, 10, 10, at: 30)
        r.touch(2, .ended, 20, 20, at: 40)
        r.touch(3, .began, 560, 560, at: 50)     // nothing exclusive touched any more; touch 1 is blocked, not counted
        r.touch(4, .began, 10, 10, at: 60)       // plain is touched: the exclusive region is blocked
        let began = trace.touchEntries.filter { $0.phase == "began" }
        expectEqual(began.map(\.blocked), [nil, .exclusive, nil, nil, .exclusive])
    }

    @Test func presentedScreenPassesUnhandledEventsToItsPresenter() throws {
        let l = try makeLayout([
            screen("home", region("root", 0, 0, 1000, 1000), handlers: [handler("p", .touch)]),
            screen("dialog", region("box", 100, 100, 200, 200)),
        ])
        let (r, trace) = makeRouter(l)
        r.present(screen: l.screen(named: "dialog")!)
        r.touch(0, .began, 150, 150, at: 0)
        expectEqual(trace.touchEntries.last?.region, "dialog/box")
        expectEqual(trace.touchEntries.last?.handledBy, "screen:home")
        r.dismiss(display: 0)
        r.touch(1, .began, 150, 150, at: 10)
        expectEqual(trace.touchEntries.last?.region, "home/root")
    }

    @Test func layoutDeclaresPresentationAtStart() throws {
        let l = try makeLayout([
            screen("home", region("root", 0, 0, 1000, 1000), handlers: [handler("p", .touch)]),
            screen("dialog", region("box", 100, 100, 200, 200), over: "home"),
        ])
        expectEqual(l.responderChain(from: .region(l.region(path: "dialog/box")!), presentation: StaticPresentation()).map(l.describe), ["dialog/box", "screen:dialog", "screen:home", "display:main", "application", "fallback"])
        let (r, trace) = makeRouter(l)
        r.touch(0, .began, 150, 150, at: 0)
        expectEqual(trace.touchEntries.last?.region, "dialog/box")
        expectEqual(trace.touchEntries.last?.handledBy, "screen:home")
    }

    @Test func tapCountCountsSuccessiveTapsInPlace() throws {
        let l = try makeLayout([screen("s", region("root", 0, 0, 1000, 1000, handlers: [handler("p", .tap)]))],
                               fallback: [handler("log", .any)])
        let (r, trace) = makeRouter(l)
        r.touch(0, .began, 100, 100, at: 0); r.touch(0, .ended, 100, 100, at: 80)
        r.touch(0, .began, 105, 102, at: 250); r.touch(0, .ended, 105, 102, at: 320)
        r.touch(0, .began, 600, 600, at: 450); r.touch(0, .ended, 600, 600, at: 500)     // far away: 1 again
        r.touch(0, .began, 600, 600, at: 2000); r.touch(0, .moved, 800, 600, at: 2100)
        r.touch(0, .ended, 800, 600, at: 2150)                                          // a drag is no tap
        let ended = trace.touchEntries.filter { $0.phase == "ended" }
        expectEqual(ended.map(\.tapCount), [1, 2, 1, 1])
        expectEqual(ended.map(\.handler), ["p", "p", "p", "log"])
    }
}
