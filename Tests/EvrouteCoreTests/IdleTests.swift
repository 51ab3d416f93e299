import Testing
import EvrouteChecks
@testable import EvrouteCore

/// Idle, active and the wake touch on a display: event time only, so the
/// deadline fires where a replay's gap puts it, before the next input is routed.
@Suite("Idle and active")
struct IdleTests {
    /// Display `main` with `idle: { after-s: 120, swallow-wake-touch: swallow }`; a screen `home`
    /// whose root takes touches (`p`) and which takes idle and active itself (`q`); keys go to
    /// the fallback log.
    func layout(swallow: Bool = false, idle: Bool = true) throws -> Layout {
        try Layout.compile(LayoutSpec(
            displays: [DisplaySpec(name: "main", size: Size(width: 1000, height: 1000),
                                   idle: idle ? IdleSpec(afterSeconds: 120, swallowWakeTouch: swallow) : nil)],
            plugins: [PluginSpec(name: "p", type: .exec), PluginSpec(name: "q", type: .exec)],
            screens: [screen("home", region("root", 0, 0, 1000, 1000, handlers: [handler("p", .touch)]),
                             handlers: [handler("q", .idle, .active)])],
            fallbackHandlers: [handler("log", .key)]))
    }

    /// The routed events as `kind@seconds` (touches with their number and phase).
    func timeline(_ t: Trace) -> [String] {
        t.records.compactMap { record in
            switch record {
            case .routed(let e, _, _):
                var entry = Trace.Entry(kind: "")
                EventEncoder.encode(e, handledBy: nil, handler: nil, as: .json, into: &entry)
                let what = entry.touch.map { "\(entry.kind) \($0) \(entry.phase ?? "")" } ?? entry.kind
                return "\(what)@\(e.time.text(decimals: 3))"
            case .filtered(let c):
                return "filtered \(c.filter)@\(c.time.text(decimals: 3))"
            default:
                return nil
            }
        }
    }

    func tap(_ r: Router, contact: Int = 0, at ms: Int64) {
        r.touch(contact, .began, 500, 500, at: ms)
        r.touch(contact, .ended, 500, 500, at: ms + 80)
    }

    @Test func idleFiresAtTheDeadlineByEventTimeAndActivePrecedesTheNextInput() throws {
        let (r, t) = makeRouter(try layout())
        tap(r, at: 1000)
        // The deadline is the last input's time plus after-s.
        expectEqual(r.nextTimerDeadline, Timestamp(microseconds: 1_080_000 + 120_000_000))
        r.advanceTime(to: Timestamp(microseconds: 121_079_999))
        expect(!timeline(t).contains { $0.hasPrefix("idle") })
        expectEqual(r.activity(ofDisplay: 0), DisplayActivity(idle: false, since: .zero))
        // A replay's gap: the next touch comes at 300 s; idle went at 121.080, before it.
        tap(r, at: 300_000)
        expectEqual(timeline(t), [
            "touch 1 began@1.000", "touch 1 ended@1.080",
            "idle@121.080",
            "active@300.000", "touch 2 began@300.000", "touch 2 ended@300.080",
        ])
        expectEqual(r.activity(ofDisplay: 0), DisplayActivity(idle: false, since: Timestamp(microseconds: 300_000_000)))
        // Taken by the top screen's handler, on the display.
        guard case .routed(let idle, let by, let h)? = t.records.first(where: { if case .routed(let e, _, _) = $0 { e.kind == .idle } else { false } }) else {
            Issue.record("no idle event"); return
        }
        expect(by == .screen(0) && h?.plugin == "q" && idle.displayName == "main")
        expect(r.routeCounts.idles == 1 && r.routeCounts.actives == 1)
    }

    @Test func idleHoldsUntilInputAndFiresOnce() throws {
        let (r, t) = makeRouter(try layout())
        r.advanceTime(to: Timestamp(microseconds: 1_000_000_000))
        // The countdown began with the devices, at 0.
        expectEqual(timeline(t), ["idle@120.000"])
        expectEqual(r.activity(ofDisplay: 0), DisplayActivity(idle: true, since: Timestamp(microseconds: 120_000_000)))
        expect(r.nextTimerDeadline == nil)
    }

    @Test func withoutIdleNothingFires() throws {
        let (r, t) = makeRouter(try layout(idle: false))
        tap(r, at: 1000)
        expect(r.nextTimerDeadline == nil)
        tap(r, at: 900_000)
        expect(!timeline(t).contains { $0.hasPrefix("idle") || $0.hasPrefix("active") })
        expect(r.activity(ofDisplay: 0) == nil)
    }

    /// The wake touch is swallowed whole — its began, moves and end — and told once as a
    /// `filtered` contact `wake`; a second finger that lands while it is down is routed.
    @Test func theWakeTouchIsSwallowedWholeAndASecondFingerIsRouted() throws {
        let (r, t) = makeRouter(try layout(swallow: true))
        r.advanceTime(to: Timestamp(microseconds: 200_000_000))
        r.touch(0, .began, 500, 500, at: 300_000)
        r.touch(0, .moved, 510, 500, at: 300_020)
        r.touch(1, .began, 100, 100, at: 300_040)
        r.touch(0, .moved, 520, 500, at: 300_060)
        r.touch(0, .ended, 520, 500, at: 300_080)
        r.touch(1, .ended, 100, 100, at: 300_100)
        // The next touch of the same contact is an ordinary one.
        tap(r, at: 301_000)
        expectEqual(timeline(t), [
            "idle@120.000",
            "active@300.000", "filtered wake@300.000",
            "touch 1 began@300.040", "touch 1 ended@300.100",
            "touch 2 began@301.000", "touch 2 ended@301.080",
        ])
        expectEqual(r.filteredCounts.sorted.map { "\($0.key.device) \($0.key.filter) \($0.count)" }, ["touch wake 1"])
        expect(r.activeTouches.isEmpty)
    }

    /// Without `swallow-wake-touch` the waking touch is routed, after `active`.
    @Test func theWakeTouchIsRoutedWithoutSwallow() throws {
        let (r, t) = makeRouter(try layout(swallow: false))
        tap(r, at: 300_000)
        expectEqual(timeline(t), ["idle@120.000", "active@300.000", "touch 1 began@300.000", "touch 1 ended@300.080"])
    }

    /// A key ends idle too, and is routed (only a touch is swallowed).
    @Test func aKeyEndsIdleAndIsDelivered() throws {
        let (r, t) = makeRouter(try layout(swallow: true))
        r.key("KEY_A", 30, .down, at: 300_000)
        r.key("KEY_A", 30, .up, at: 300_050)
        expectEqual(timeline(t), ["idle@120.000", "active@300.000", "key:KEY_A@300.000", "key:KEY_A@300.050"])
        expect(r.filteredCounts.sorted.isEmpty)
    }

    /// A frame of cancels only (a device gone) is not input: the countdown does not start again
    /// at it. While the touch was down the display did not go idle (a finger on it); each
    /// deadline that came then started the countdown again, and the first one after the cancel
    /// (1 + 2 × 120 s) sends idle.
    @Test func cancelsAreNotInput() throws {
        let (r, t) = makeRouter(try layout())
        r.touch(0, .began, 500, 500, at: 1000)
        r.removeDevice(DeviceID(1), time: Timestamp(microseconds: 200_000_000))
        expectEqual(timeline(t), ["touch 1 began@1.000", "touch 1 cancelled@200.000"])
        expectEqual(r.activity(ofDisplay: 0)?.idle, false)
        r.advanceTime(to: Timestamp(microseconds: 400_000_000))
        expectEqual(timeline(t), ["touch 1 began@1.000", "touch 1 cancelled@200.000", "idle@241.000"])
        expectEqual(r.activity(ofDisplay: 0)?.idle, true)
    }

    /// A finger resting on the display without moving (no input for longer than `after-s`):
    /// the display does not go idle under it; the lift starts the countdown.
    @Test func noIdleWhileATouchIsDown() throws {
        let (r, t) = makeRouter(try layout())
        r.touch(0, .began, 500, 500, at: 1000)
        r.advanceTime(to: Timestamp(microseconds: 500_000_000))
        expectEqual(r.activity(ofDisplay: 0)?.idle, false)
        r.touch(0, .ended, 500, 500, at: 500_000)
        r.advanceTime(to: Timestamp(microseconds: 700_000_000))
        expectEqual(timeline(t), ["touch 1 began@1.000", "touch 1 ended@500.000", "idle@620.000"])
    }

    /// A reload keeps the idle state of a display that still has `idle:`; one that lost it is
    /// never idle again, and its next input sends no `active`.
    @Test func aReloadKeepsTheIdleState() throws {
        let (r, t) = makeRouter(try layout())
        r.advanceTime(to: Timestamp(microseconds: 130_000_000))
        r.replaceLayout(try layout(), time: Timestamp(microseconds: 140_000_000))
        expectEqual(r.activity(ofDisplay: 0)?.idle, true)
        tap(r, at: 150_000)
        expectEqual(timeline(t), ["idle@120.000", "active@150.000", "touch 1 began@150.000", "touch 1 ended@150.080"])
        // The countdown goes on from the last input after a reload.
        r.replaceLayout(try layout(), time: Timestamp(microseconds: 200_000_000))
        expectEqual(r.nextTimerDeadline, Timestamp(microseconds: 270_080_000))
        r.replaceLayout(try layout(idle: false), time: Timestamp(microseconds: 210_000_000))
        expect(r.nextTimerDeadline == nil && r.activity(ofDisplay: 0) == nil)
        // Given back: the countdown starts at the reload (devices are on the display).
        r.replaceLayout(try layout(), time: Timestamp(microseconds: 220_000_000))
        expectEqual(r.nextTimerDeadline, Timestamp(microseconds: 340_000_000))
    }

    /// `idle` walks from the display's top screen: a presented screen's handler takes it first.
    @Test func idleStartsAtTheTopScreen() throws {
        let l = try Layout.compile(LayoutSpec(
            displays: [DisplaySpec(name: "main", size: Size(width: 1000, height: 1000), idle: IdleSpec(afterSeconds: 5))],
            plugins: [PluginSpec(name: "p", type: .exec), PluginSpec(name: "q", type: .exec)],
            screens: [screen("home", region("root", 0, 0, 1000, 1000), handlers: [handler("q", .idle)]),
                      screen("menu", region("root", 0, 0, 1000, 1000), handlers: [handler("p", .idle)], over: "home")]))
        let (r, t) = makeRouter(l)
        r.advanceTime(to: Timestamp(microseconds: 6_000_000))
        expectEqual(t.entries.map { "\($0.kind) \($0.handledBy ?? "-") \($0.handler ?? "-")" }, ["idle screen:menu p"])
    }
}
