import Testing
import EvrouteChecks
@testable import EvrouteCore

/// Screen `home`: root 1000×1000 holding `a` [0, 0, 400, 400] (focusable), `b` [500, 0, 400, 400]
/// and `panel` [0, 500, 1000, 500] with `x` [0, 0, 200, 200] and `y` [300, 0, 200, 200]; `p`
/// takes touches on a, x and y, `q` on b. Screen `confirm`: a root that `p` handles.
func changeSpec(a: (inout RegionSpec) -> Void = { _ in }, b: (inout RegionSpec) -> Void = { _ in },
                x: (inout RegionSpec) -> Void = { _ in }) -> LayoutSpec {
    let touch = [handler("p", .touch)]
    let panel = region("panel", 0, 500, 1000, 500, [
        region("x", 0, 0, 200, 200, handlers: touch, configure: x),
        region("y", 300, 0, 200, 200, handlers: touch),
    ])
    let root = region("root", 0, 0, 1000, 1000, [
        region("a", 0, 0, 400, 400, handlers: touch) { $0.focusable = true; a(&$0) },
        region("b", 500, 0, 400, 400, handlers: [handler("q", .touch)], configure: b),
        panel,
    ])
    return LayoutSpec(displays: [DisplaySpec(name: "main", size: Size(width: 1000, height: 1000))],
                      plugins: [PluginSpec(name: "p", type: .exec), PluginSpec(name: "q", type: .exec)],
                      screens: [screen("home", root),
                                screen("confirm", region("root", 0, 0, 1000, 1000, handlers: touch))])
}

func ms(_ v: Int64) -> Timestamp { Timestamp(microseconds: v * 1000) }

extension Trace {
    /// Records from `start` on, tersely: `region PATH CHANGE cancelled:N`, `focus PATH|-`,
    /// `present S`, `dismiss S`, `touch ID PHASE REGION`, `action:NAME REGION→HANDLER`, `layout-replaced`.
    func log(from start: Int = 0) -> [String] {
        records[start...].compactMap { record in
            switch record {
            case .regionChanged(let path, let change, _, _, let cancelled):
                return "region \(path) \(change.rawValue) cancelled:\(cancelled)"
            case .focus(_, let r, let layout, _):
                return "focus \(r.map { layout.regions[$0].path } ?? "-")"
            case .presentation(let s, _, let presented, let layout, _):
                return "\(presented ? "present" : "dismiss") \(layout.screens[s].name)"
            case .routed(let e, let by, _):
                switch e.kind {
                case .touch(let phase, _): return "touch \(e.touch?.id ?? 0) \(phase.rawValue) \(e.regionPath ?? "-")"
                case .action(let n): return "action:\(n) \(by.map { e.layout.describe($0) } ?? "unhandled")"
                case .key(let n, let phase): return "key:\(n) \(phase.rawValue) \(e.regionPath ?? "-")"
                case .gesture(let n, let s): return "gesture:\(n) \(s)"
                case .text: return "text \(e.text ?? "") \(e.regionPath ?? "-")"
                case .motion: return "motion \(e.regionPath ?? "-")"
                case .idle, .active: return "\(e.kind == .idle ? "idle" : "active") \(e.displayName ?? "-")"
                }
            case .layoutReplaced: return "layout-replaced"
            default: return nil
            }
        }
    }
}

/// The error `change` is refused with, after checking that the refusal changed nothing.
func refusal(_ r: Router, _ t: Trace, _ change: LayoutChange, at time: Int64 = 500,
             sourceLocation: Testing.SourceLocation = #_sourceLocation) -> LayoutChangeError? {
    let layout = r.layout
    let frames = r.layout.regions.map(\.absoluteFrame)
    let state = r.state
    let count = t.records.count
    do {
        try r.apply(change, time: ms(time))
        Issue.record("\(change) was applied", sourceLocation: sourceLocation)
        return nil
    } catch {
        #expect(r.layout === layout, "the layout changed", sourceLocation: sourceLocation)
        #expect(r.layout.regions.map(\.absoluteFrame) == frames, sourceLocation: sourceLocation)
        #expect(r.state == state, sourceLocation: sourceLocation)
        #expect(t.records.count == count, "records: \(t.log(from: count))", sourceLocation: sourceLocation)
        return error
    }
}

@Suite("Run-time layout changes (docs/ui-control.md)")
struct LayoutChangeTests {
    func router(_ spec: LayoutSpec = changeSpec()) throws -> (Router, Trace) {
        makeRouter(try Layout.compile(spec))
    }

    // MARK: Region changes

    @Test func hideKeepsATouchInFlightAndHidesFromNewOnes() throws {
        let (r, t) = try router()
        r.touch(1, .began, 50, 50, at: 0)
        let start = t.records.count
        try r.apply(.hide(region: "home/root/a"), time: ms(10))
        expectEqual(t.log(from: start), ["region home/root/a hidden cancelled:0"])
        r.touch(1, .moved, 60, 60, at: 20)
        r.touch(1, .ended, 60, 60, at: 30)
        r.touch(2, .began, 50, 50, at: 40)
        r.touch(2, .ended, 50, 50, at: 50)
        expectEqual(t.touchEntries.map { "\($0.touch!) \($0.phase!) \($0.region ?? "-") \($0.handledBy ?? "-")" }, [
            "1 began home/root/a home/root/a", "1 moved home/root/a home/root/a", "1 ended home/root/a home/root/a",
            "2 began home/root -", "2 ended home/root -",
        ])
        expect(r.layout.regions[r.layout.region(path: "home/root/a")!].hidden)
        // Showing it again: hit at once.
        try r.apply(.show(region: "home/root/a"), time: ms(60))
        r.touch(3, .began, 50, 50, at: 70)
        expectEqual(t.touchEntries.last?.region, "home/root/a")
        expect(!t.log().contains("layout-replaced"))
    }

    @Test func disabledRegionsAndTheirSubtreesAreNotHit() throws {
        let (r, t) = try router()
        try r.apply(.disable(region: "home/root/panel"), time: ms(0))
        r.touch(1, .began, 50, 550, at: 10)       // x, under the disabled panel
        r.touch(1, .ended, 50, 550, at: 20)
        expectEqual(t.touchEntries.map(\.region), ["home/root", "home/root"])
        try r.apply(.enable(region: "home/root/panel"), time: ms(30))
        r.touch(2, .began, 50, 550, at: 40)
        expectEqual(t.touchEntries.last?.region, "home/root/panel/x")
        expectEqual(t.log().filter { $0.hasPrefix("region") }, [
            "region home/root/panel disabled cancelled:0", "region home/root/panel enabled cancelled:0",
        ])
    }

    @Test func frameMovesTheRegionForNewTouchesOnly() throws {
        let (r, t) = try router()
        r.touch(1, .began, 50, 50, at: 0)          // a, before it moves
        try r.apply(.frame(region: "home/root/a", Rect(x: 500, y: 420, width: 100, height: 60)), time: ms(10))
        let a = r.layout.region(path: "home/root/a")!
        expectEqual(r.layout.regions[a].absoluteFrame, Rect(x: 500, y: 420, width: 100, height: 60))
        r.touch(1, .moved, 70, 70, at: 20)
        r.touch(2, .began, 550, 450, at: 30)       // a's new place
        r.touch(3, .began, 100, 100, at: 40)       // a's old place: root now
        expectEqual(t.touchEntries.map { "\($0.touch!) \($0.phase!) \($0.region ?? "-") \($0.handledBy ?? "-")" }, [
            "1 began home/root/a home/root/a", "1 moved home/root/a home/root/a",
            "2 began home/root/a home/root/a", "3 began home/root -",
        ])
        // Frames of the children move with their parent.
        try r.apply(.frame(region: "home/root/panel", Rect(x: 0, y: 600, width: 1000, height: 400)), time: ms(50))
        expectEqual(r.layout.regions[r.layout.region(path: "home/root/panel/y")!].absoluteFrame, Rect(x: 300, y: 600, width: 200, height: 200))
    }

    @Test func childrenReplacementKeepsSurvivorsAndCancelsTheRemovedOnce() throws {
        let (r, t) = try router()
        r.touch(1, .began, 50, 550, at: 0)         // x: kept (same path)
        r.touch(2, .began, 350, 550, at: 0)        // y: removed
        let start = t.records.count
        let children = [region("x", 0, 0, 100, 100, handlers: [handler("q", .touch)]),
                        region("z", 600, 0, 200, 200, handlers: [handler("p", .touch)])]
        try r.apply(.children(region: "home/root/panel", children), time: ms(10))
        expectEqual(t.log(from: start), ["touch 2 cancelled home/root/panel/y",
                                       "region home/root/panel children cancelled:1"])
        // The survivor keeps its region and chain (its old layout: handled by `p` there).
        r.touch(1, .moved, 150, 650, at: 20)
        // The removed one's finger moves and lifts: nothing more of it.
        r.touch(2, .moved, 360, 560, at: 20)
        r.touch(2, .ended, 360, 560, at: 30)
        r.touch(1, .ended, 150, 650, at: 30)
        expectEqual(t.log(from: start + 2), ["touch 1 moved home/root/panel/x", "touch 1 ended home/root/panel/x"])
        expectEqual(t.touchEntries.filter { $0.touch == 2 }.map(\.phase), ["began", "cancelled"])
        expect(t.touchEntries.filter { $0.touch == 1 }.allSatisfy { $0.handler == "p" })
        // New touches: the new children.
        r.touch(3, .began, 650, 550, at: 40)       // z
        r.touch(4, .began, 350, 550, at: 40)       // where y was: the panel
        r.touch(5, .began, 150, 550, at: 40)       // outside the smaller x: the panel
        r.touch(6, .began, 50, 550, at: 40)        // x, now handled by q
        expectEqual(t.touchEntries.suffix(4).map { "\($0.region ?? "-") \($0.handler ?? "-")" }, [
            "home/root/panel/z p", "home/root/panel -", "home/root/panel -", "home/root/panel/x q",
        ])
        // The finger of touch 2 down again begins a new touch.
        r.touch(2, .began, 650, 560, at: 50)
        expectEqual(t.touchEntries.last?.touch, 7)
    }

    @Test func aChangeAlreadyInEffectRecordsNothing() throws {
        let (r, t) = try router(changeSpec(a: { $0.hidden = true }))
        let layout = r.layout
        let start = t.records.count
        try r.apply(.hide(region: "home/root/a"), time: ms(0))
        try r.apply(.enable(region: "home/root/b"), time: ms(0))
        try r.apply(.frame(region: "home/root/b", Rect(x: 500, y: 0, width: 400, height: 400)), time: ms(0))
        try r.apply(.resign(display: nil), time: ms(0))
        expect(r.layout === layout)
        expect(t.log(from: start).isEmpty)
        expect(r.regionOverrides.isEmpty)
    }

    // MARK: Refusals

    @Test func unknownNamesAreRefusedWithADidYouMean() throws {
        let (r, t) = try router()
        let e1 = refusal(r, t, .hide(region: "home/root/pannel"))
        expect({ if case .unknownRegion("home/root/pannel", "home/root/panel")? = e1 { true } else { false } }(), "\(String(describing: e1))")
        expectEqual("\(e1!)", "unknown region 'home/root/pannel' (a region is named by its path screen/root/…/name); did you mean 'home/root/panel'?")
        // The right name at the wrong place.
        let e2 = refusal(r, t, .focus(region: "home/root/x"))
        expect({ if case .unknownRegion(_, "home/root/panel/x")? = e2 { true } else { false } }(), "\(String(describing: e2))")
        let e3 = refusal(r, t, .frame(region: "nowhere", Rect(x: 0, y: 0, width: 1, height: 1)))
        expect({ if case .unknownRegion("nowhere", nil)? = e3 { true } else { false } }(), "\(String(describing: e3))")
        let e4 = refusal(r, t, .present(screen: "confrim"))
        expectEqual(e4.map { "\($0)" }, "unknown screen 'confrim' (screens: home, confirm); did you mean 'confirm'?")
        let e5 = refusal(r, t, .dismiss(display: "mian"))
        expectEqual(e5.map { "\($0)" }, "unknown display 'mian' (displays: main); did you mean 'main'?")
        let e6 = refusal(r, t, .action(name: "go", from: "home/root/q"))
        expect({ if case .unknownRegion("home/root/q", _)? = e6 { true } else { false } }(), "\(String(describing: e6))")
        _ = refusal(r, t, .resign(display: "side"))
        _ = refusal(r, t, .children(region: "home/root/nope", []))
    }

    @Test func presentAndDismissRefuseWhatCannotBe() throws {
        let (r, t) = try router()
        let e1 = refusal(r, t, .dismiss(display: nil))
        expectEqual(e1.map { "\($0)" }, "nothing is presented on display 'main': its root screen 'home' stays")
        let e2 = refusal(r, t, .present(screen: "home"))
        expectEqual(e2.map { "\($0)" }, "screen 'home' is already in the presentation stack of display 'main' (home)")
        try r.apply(.present(screen: "confirm"), time: ms(10))
        let e3 = refusal(r, t, .present(screen: "confirm"))
        expect({ if case .alreadyPresented("confirm", "main", ["home", "confirm"])? = e3 { true } else { false } }(), "\(String(describing: e3))")
    }

    @Test func badFramesAreRefused() throws {
        let (r, t) = try router()
        for f in [Rect(x: 0, y: 0, width: -1, height: 10), Rect(x: 0, y: 0, width: 10, height: .nan),
                  Rect(x: .infinity, y: 0, width: 10, height: 10), Rect(x: 0, y: -.nan, width: 10, height: 10),
                  // Beyond the coordinate limit (1e16 trapped the trace writer).
                  Rect(x: 0, y: 0, width: 1e16, height: 10), Rect(x: -1_000_001, y: 0, width: 10, height: 10)] {
            let e = refusal(r, t, .frame(region: "home/root/b", f))
            guard case .invalidFrame("home/root/b", _)? = e else { Issue.record("\(String(describing: e))"); continue }
        }
        let e = refusal(r, t, .frame(region: "home/root/b", Rect(x: 0, y: 0, width: -5, height: 10)))
        expectEqual(e.map { "\($0)" }, "frame [0, 0, -5, 10] for region 'home/root/b': x and y must be between -1000000 and 1000000, width and height between 0 and 1000000")
        // A zero size is a size.
        try r.apply(.frame(region: "home/root/b", Rect(x: 0, y: 0, width: 0, height: 0)), time: ms(600))
    }

    @Test func childrenThatDoNotCompileAreRefusedWithTheCompilerMessages() throws {
        let (r, t) = try router()
        let file = SourceLocation(file: "new.yaml", line: 3, column: 5)
        var dup = region("a", 0, 0, 10, 10)         // `a` is already in screen home
        dup.nameLocation = file
        let bad = region("w", 0, 0, 10, 10, handlers: [HandlerSpec(plugin: "nope", on: [.tap], location: SourceLocation(file: "new.yaml", line: 7, column: 9))])
        let e = refusal(r, t, .children(region: "home/root/panel", [dup, bad]))
        let errors = try #require({ () -> [Diagnostic]? in
            if case .doesNotCompile("home/root/panel", .children, let errors)? = e { return errors } else { return nil }
        }(), "\(String(describing: e))")
        expectEqual(errors.map(\.description), [
            "new.yaml:3:5: error: duplicate region name 'a' in screen 'home'",
            "new.yaml:7:9: error: unknown plugin 'nope' (declared: p, q, log, action, focus, present, dismiss)",
        ])
        expect("\(e!)".hasPrefix("the new children of region 'home/root/panel' do not fit the layout:\nnew.yaml:3:5: error: duplicate region name 'a'"))
        // A touch in flight is not disturbed by a refused change.
        r.touch(1, .began, 350, 550, at: 600)
        _ = refusal(r, t, .children(region: "home/root/panel", [dup]), at: 610)
        r.touch(1, .ended, 350, 550, at: 620)
        expectEqual(t.touchEntries.map(\.phase), ["began", "ended"])
    }

    // MARK: Screens, focus, actions

    @Test func screenFocusAndActionChangesRecordOnce() throws {
        var spec = changeSpec()
        spec.screens[0].handlers = [handler("q", .action("go"))]
        let (r, t) = try router(spec)
        let start = t.records.count
        try r.apply(.focus(region: "home/root/a"), time: ms(10))
        try r.apply(.focus(region: "home/root/a"), time: ms(11))          // already: nothing
        try r.apply(.action(name: "go", from: nil), time: ms(12))
        try r.apply(.action(name: "go", from: "home/root/panel/y"), time: ms(13))
        try r.apply(.present(screen: "confirm"), time: ms(20))
        try r.apply(.action(name: "go", from: nil), time: ms(21))          // confirm → presenter home
        try r.apply(.dismiss(display: "main"), time: ms(30))
        try r.apply(.resign(display: nil), time: ms(40))
        try r.apply(.resign(display: "main"), time: ms(41))               // none: nothing
        expectEqual(t.log(from: start), [
            "focus home/root/a", "action:go screen:home", "action:go screen:home", "present confirm",
            "action:go screen:home", "dismiss confirm", "focus -",
        ])
        let actions = t.entries.filter { $0.kind == "action:go" }.map { $0.region ?? "-" }
        expectEqual(actions, ["home/root/a", "home/root/panel/y", "-"])
    }

    @Test func focusRefusesHiddenAndDisabledRegions() throws {
        let (r, t) = try router(changeSpec(a: { $0.hidden = true }))
        let e1 = refusal(r, t, .focus(region: "home/root/a"))
        expectEqual(e1.map { "\($0)" }, "region 'home/root/a' cannot become first responder: it is hidden")
        try r.apply(.disable(region: "home/root/panel"), time: ms(10))
        let e2 = refusal(r, t, .focus(region: "home/root/panel/x"))
        expect({ if case .cannotFocus("home/root/panel/x", "home/root/panel", .disabled)? = e2 { true } else { false } }(), "\(String(describing: e2))")
        expectEqual("\(e2!)", "region 'home/root/panel/x' cannot become first responder: its ancestor 'home/root/panel' is disabled (interactive: false)")
        // `focusable` is not required (as for the focus plugin).
        try r.apply(.focus(region: "home/root/b"), time: ms(20))
        expectEqual(r.state.screens[0].firstResponder, "home/root/b")
    }

    // MARK: First responder

    @Test func hidingOrDisablingTheFirstResponderTakesFocusAway() throws {
        let (r, t) = try router()
        try r.apply(.focus(region: "home/root/a"), time: ms(0))
        var start = t.records.count
        try r.apply(.hide(region: "home/root/a"), time: ms(10))
        expectEqual(t.log(from: start), ["region home/root/a hidden cancelled:0", "focus -"])
        expect(r.firstResponder(ofScreen: 0) == nil)
        // Keys start at the screen now.
        r.key("A", 30, .down, at: 20)
        expectEqual(t.log().last, "key:A down -")
        // Showing it does not give focus back (UIKit does not either).
        start = t.records.count
        try r.apply(.show(region: "home/root/a"), time: ms(30))
        expectEqual(t.log(from: start), ["region home/root/a shown cancelled:0"])
        expect(r.firstResponder(ofScreen: 0) == nil)
        // An ancestor disabled.
        try r.apply(.focus(region: "home/root/panel/x"), time: ms(40))
        start = t.records.count
        try r.apply(.disable(region: "home/root/panel"), time: ms(50))
        expectEqual(t.log(from: start), ["region home/root/panel disabled cancelled:0", "focus -"])
        // A sibling's change keeps it.
        try r.apply(.enable(region: "home/root/panel"), time: ms(60))
        try r.apply(.focus(region: "home/root/panel/x"), time: ms(70))
        start = t.records.count
        try r.apply(.hide(region: "home/root/panel/y"), time: ms(80))
        try r.apply(.frame(region: "home/root/panel/x", Rect(x: 10, y: 10, width: 50, height: 50)), time: ms(90))
        expectEqual(t.log(from: start), ["region home/root/panel/y hidden cancelled:0", "region home/root/panel/x frame cancelled:0"])
        expectEqual(r.state.screens[0].firstResponder, "home/root/panel/x")
        r.key("B", 31, .down, at: 100)
        expectEqual(t.log().last, "key:B down home/root/panel/x")
    }

    @Test func replacedChildrenKeepOrTakeTheFirstResponderByPath() throws {
        let (r, t) = try router()
        try r.apply(.focus(region: "home/root/panel/x"), time: ms(0))
        try r.apply(.children(region: "home/root/panel", [region("x", 0, 0, 10, 10), region("w", 20, 0, 10, 10)]), time: ms(10))
        expectEqual(r.state.screens[0].firstResponder, "home/root/panel/x")
        let start = t.records.count
        try r.apply(.children(region: "home/root/panel", [region("w", 20, 0, 10, 10)]), time: ms(20))
        expectEqual(t.log(from: start), ["region home/root/panel children cancelled:0", "focus -"])
        expect(r.state.screens[0].firstResponder == nil)
        // A region replaced hidden cannot keep it either.
        try r.apply(.focus(region: "home/root/panel/w"), time: ms(30))
        try r.apply(.children(region: "home/root/panel", [region("w", 20, 0, 10, 10) { $0.hidden = true }]), time: ms(40))
        expect(r.state.screens[0].firstResponder == nil)
    }

    @Test func aFocusableRegionTouchedAcrossAChangeBecomesFirstResponder() throws {
        let (r, _) = try router()
        r.touch(1, .began, 50, 50, at: 0)
        try r.apply(.hide(region: "home/root/b"), time: ms(10))
        r.touch(1, .ended, 50, 50, at: 20)
        expectEqual(r.state.screens[0].firstResponder, "home/root/a")
    }

    // MARK: Exclusive and single touch

    @Test func exclusiveTouchCarriesOverAChange() throws {
        let (r, t) = try router(changeSpec(b: { $0.exclusive = true }))
        r.touch(1, .began, 600, 100, at: 0)        // b, exclusive: owner
        try r.apply(.hide(region: "home/root/a"), time: ms(10))
        r.touch(2, .began, 700, 100, at: 20)       // b again: allowed
        r.touch(3, .began, 50, 550, at: 20)        // x: blocked while b is touched
        expectEqual(t.touchEntries.map { "\($0.touch!) \($0.region ?? "-") \($0.blocked?.rawValue ?? "ok")" }, [
            "1 home/root/b ok", "2 home/root/b ok", "3 home/root/panel/x exclusive",
        ])
        try r.apply(.frame(region: "home/root/b", Rect(x: 500, y: 0, width: 300, height: 300)), time: ms(30))
        r.touch(1, .ended, 600, 100, at: 40)
        r.touch(3, .ended, 50, 550, at: 40)
        r.touch(4, .began, 50, 550, at: 50)        // b still touched (2): blocked
        r.touch(2, .ended, 700, 100, at: 60)
        r.touch(4, .ended, 50, 550, at: 60)
        r.touch(5, .began, 50, 550, at: 70)        // nothing exclusive is touched
        expectEqual(t.touchEntries.filter { $0.phase == "began" }.map { $0.blocked?.rawValue ?? "ok" }, ["ok", "ok", "exclusive", "exclusive", "ok"])
        expect(r.touchState.exclusive[0].touches == 1 && r.touchState.exclusive[0].owner == nil)
    }

    @Test func singleTouchRegionsCarryTheirCountOverAChange() throws {
        let (r, t) = try router(changeSpec(x: { $0.multitouch = false }))
        r.touch(1, .began, 50, 550, at: 0)
        try r.apply(.hide(region: "home/root/a"), time: ms(10))
        r.touch(2, .began, 60, 560, at: 20)        // x already has a touch
        r.touch(1, .ended, 50, 550, at: 30)
        r.touch(2, .ended, 60, 560, at: 30)
        r.touch(3, .began, 60, 560, at: 40)
        expectEqual(t.touchEntries.filter { $0.phase == "began" }.map { $0.blocked?.rawValue ?? "ok" }, ["ok", "multitouch", "ok"])
        expectEqual(r.touchState.regionCounts.count, 1)
        expect(r.touchState.regionCounts.keys.allSatisfy { $0.layout == ObjectIdentifier(r.layout) })
    }

    // MARK: Gestures and built-in handlers across a change

    func gestureSpec(_ g: GestureSpec, handlers: [HandlerSpec]) -> LayoutSpec {
        let pad = region("pad", 100, 100, 600, 600, handlers: handlers) { $0.gestures = [g] }
        let root = region("root", 0, 0, 1000, 1000, [pad, region("side", 800, 0, 200, 200)],
                          handlers: [handler("q", .action("next"))])
        return LayoutSpec(displays: [DisplaySpec(name: "main", size: Size(width: 1000, height: 1000))],
                          plugins: [PluginSpec(name: "p", type: .exec), PluginSpec(name: "q", type: .exec)],
                          screens: [screen("s", root)])
    }

    @Test func aPanKeepsWorkingWhileASiblingChanges() throws {
        let spec = gestureSpec(GestureSpec(name: "pan", kind: .pan, minimumDistance: 30),
                               handlers: [handler("p", .touch, .gesture("pan"))])
        let (r, t) = try router(spec)
        r.touch(1, .began, 300, 300, at: 0)
        r.touch(1, .moved, 340, 300, at: 20)
        r.touch(1, .moved, 360, 300, at: 40)
        try r.apply(.hide(region: "s/root/side"), time: ms(50))
        r.touch(1, .moved, 400, 300, at: 60)
        try r.apply(.frame(region: "s/root/side", Rect(x: 800, y: 800, width: 100, height: 100)), time: ms(70))
        r.touch(1, .moved, 420, 300, at: 80)
        r.touch(1, .ended, 420, 300, at: 90)
        expectEqual(t.gestureLog, ["pan:began", "pan:changed", "pan:changed", "pan:changed", "pan:ended"])
        // The next pan, in the new layout.
        r.drag(2, from: 300, 300, by: 100, 0, start: 200, duration: 100, steps: 4)
        expectEqual(t.gestureLog.suffix(2), ["pan:changed", "pan:ended"])
        expectEqual(t.gestureLog.filter { $0 == "pan:began" }.count, 2)
        // Idle recognizers of old layouts do not pile up.
        for i in 0..<10 { try r.apply(i % 2 == 0 ? .hide(region: "s/root/side") : .show(region: "s/root/side"), time: ms(400 + Int64(i))) }
        expect(r.gestures.list.count <= 1)
        expect(r.gestures.list.allSatisfy { $0.layout === r.layout })
    }

    @Test func aSwipeRecognizedAfterAChangeStillSendsItsAction() throws {
        let spec = gestureSpec(GestureSpec(name: "right", kind: .swipe, directions: [.right], minimumDistance: 100, action: "next"),
                               handlers: [handler("p", .touch, .gesture("right"))])
        let (r, t) = try router(spec)
        r.touch(1, .began, 200, 400, at: 0)
        r.touch(1, .moved, 240, 400, at: 20)
        try r.apply(.disable(region: "s/root/side"), time: ms(30))
        r.touch(1, .moved, 320, 400, at: 40)
        r.touch(1, .moved, 400, 400, at: 60)
        expectEqual(t.gestureLog, ["right:recognized"])
        expect(t.entries.contains { $0.kind == "action:next" && $0.handledBy == "s/root" && $0.region == "s/root/pad" })
    }

    @Test func aBuiltInHandlerRunsForATouchThatBeganBeforeAChange() throws {
        var spec = changeSpec()
        spec.screens[0].root.regions[0].handlers = [HandlerSpec(plugin: "present", on: [.tap], options: ["screen": .string("confirm")])]
        let (r, _) = try router(spec)
        r.touch(1, .began, 50, 50, at: 0)
        try r.apply(.hide(region: "home/root/b"), time: ms(10))
        r.touch(1, .ended, 50, 50, at: 20)
        expectEqual(r.state.displays[0].stack, ["home", "confirm"])
    }

    // MARK: State and overrides

    @Test func overridesFollowTheChangesAndAReloadClearsThem() throws {
        let spec = changeSpec()
        let (r, t) = try router(spec)
        try r.apply(.hide(region: "home/root/a"), time: ms(0))
        try r.apply(.frame(region: "home/root/b", Rect(x: 1, y: 2, width: 3, height: 4)), time: ms(1))
        try r.apply(.disable(region: "home/root/panel/x"), time: ms(2))
        expectEqual(r.regionOverrides, [
            RegionOverride(path: "home/root/a", hidden: true),
            RegionOverride(path: "home/root/b", frame: Rect(x: 1, y: 2, width: 3, height: 4)),
            RegionOverride(path: "home/root/panel/x", interactive: false),
        ])
        // Put back: no longer changed.
        try r.apply(.show(region: "home/root/a"), time: ms(3))
        try r.apply(.frame(region: "home/root/b", Rect(x: 7, y: 2, width: 3, height: 4)), time: ms(4))
        try r.apply(.frame(region: "home/root/b", Rect(x: 500, y: 0, width: 400, height: 400)), time: ms(5))
        expectEqual(r.regionOverrides, [RegionOverride(path: "home/root/panel/x", interactive: false)])
        // New children: what was changed below goes with the old ones.
        try r.apply(.hide(region: "home/root/panel"), time: ms(6))
        try r.apply(.children(region: "home/root/panel", [region("x", 0, 0, 10, 10)]), time: ms(7))
        try r.apply(.hide(region: "home/root/panel/x"), time: ms(8))
        expectEqual(r.state.changedRegions, [
            RegionOverride(path: "home/root/panel", hidden: true, childrenReplaced: true),
            RegionOverride(path: "home/root/panel/x", hidden: true),
        ])
        try r.apply(.hide(region: "home/root/a"), time: ms(9))
        expectEqual(r.regionOverrides.count, 3)
        // A reload starts from the config again.
        r.replaceLayout(try Layout.compile(spec), time: ms(10))
        expect(r.regionOverrides.isEmpty)
        expectEqual(t.log().last, "layout-replaced")
        r.touch(1, .began, 50, 50, at: 20)
        r.touch(2, .began, 50, 550, at: 20)
        expectEqual(t.touchEntries.map(\.region), ["home/root/a", "home/root/panel/x"])
    }

    @Test func stateNamesStacksAndFirstResponders() throws {
        let (r, _) = try router()
        try r.apply(.focus(region: "home/root/a"), time: ms(0))
        try r.apply(.present(screen: "confirm"), time: ms(1))
        try r.apply(.focus(region: "confirm/root"), time: ms(2))
        expectEqual(r.state, RouterState(
            displays: [.init(name: "main", stack: ["home", "confirm"], firstResponder: "confirm/root")],
            screens: [.init(name: "home", display: "main", firstResponder: "home/root/a"),
                      .init(name: "confirm", display: "main", firstResponder: "confirm/root")],
            changedRegions: []))
        expectEqual(r.presentationStack(onDisplay: 0), [0, 1])
        try r.apply(.resign(display: nil), time: ms(3))
        expect(r.state.displays[0].firstResponder == nil && r.state.screens[0].firstResponder == "home/root/a")
    }

    @Test func changesCompareAndDescribeThemselves() {
        let a = LayoutChange.children(region: "s/root", [region("x", 0, 0, 1, 1)])
        var located = region("x", 0, 0, 1, 1)
        located.location = SourceLocation(file: "f.yaml", line: 1, column: 1)
        expectEqual(a, .children(region: "s/root", [located]))
        expect(a != .children(region: "s/root", [region("x", 0, 0, 1, 2)]))
        expectEqual(LayoutChange.frame(region: "s/root/a", Rect(x: 1, y: 2, width: 3.5, height: 4)).description, "frame s/root/a [1, 2, 3.5, 4]")
        expectEqual(LayoutChange.resign(display: "main").description, "focus --resign --display main")
        expect(a.regionChangeKind == .children && a.regionPath == "s/root")
        expect(LayoutChange.present(screen: "x").regionChangeKind == nil)
        expectEqual(RegionChangeKind.allCases.map(\.rawValue), ["hidden", "shown", "disabled", "enabled", "frame", "children"])
    }
}
