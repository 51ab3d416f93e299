import Testing
import EvrouteChecks
@testable import EvrouteCore

/// Accelerometers (docs/config.md#motion-accelerometers): samples and orientation changes go to the top-level `motion:`
/// handlers only, never through a region; a shake walks from the first responder up the chain.
@Suite("Motion routing")
struct MotionRoutingTests {
    static let tilt = DeviceID(3)

    func layout(motion: MotionSpec? = MotionSpec(handlers: [handler("q", .motion, .orientation)])) throws -> Layout {
        var spec = LayoutSpec(displays: [DisplaySpec(name: "main", size: Size(width: 1000, height: 1000))],
                              plugins: [PluginSpec(name: "p", type: .exec), PluginSpec(name: "q", type: .exec)],
                              screens: [screen("home", region("root", 0, 0, 1000, 1000, [
                                  region("game", 0, 0, 500, 500, handlers: [handler("p", .motion, .key)]) { $0.focusable = true },
                                  region("list", 500, 0, 500, 500) { $0.focusable = true },
                              ]))],
                              applicationHandlers: [handler("p", .tap)], fallbackHandlers: [handler("log", .any)])
        spec.motion = motion
        return try Layout.compile(spec)
    }

    func router(_ l: Layout) -> (Router, Trace) {
        let (r, trace) = makeRouter(l)
        r.addDevice(DeviceInfo(id: Self.tilt, ruleName: "tilt", name: "acc", kind: .accelerometer, display: "main"), time: .zero)
        return (r, trace)
    }

    func ms(_ ms: Int64) -> Timestamp { Timestamp(microseconds: ms * 1000) }

    /// What the input layer's motion stage made of a sample at `t` (EvrouteInput's MotionStageTests
    /// test the pacing, orientation and shake detection that make them).
    func signals(_ r: Router, at t: Int64, shake: MotionSignals.Shake? = nil, orientation: Orientation? = nil,
                 sample: (Double, Double, Double)? = nil) {
        r.handle(MotionSignals(device: Self.tilt, time: ms(t), shake: shake, orientation: orientation,
                               sample: sample.map { MotionSample(device: Self.tilt, time: ms(t), x: $0.0, y: $0.1, z: $0.2) }))
    }

    @Test func samplesGoToTheMotionHandlersOnly() throws {
        let (r, trace) = router(try layout())
        r.setFirstResponder(r.layout.region(path: "home/root/game"))   // its `motion` handler must not see samples
        for i in 0..<10 { signals(r, at: Int64(i) * 100, sample: (0, 1, 0)) }
        signals(r, at: 1000)                                            // nothing let out: nothing routed
        let samples = trace.entries.filter { $0.kind == "motion" }
        expectEqual(samples.count, 10)
        expect(samples.allSatisfy { $0.handledBy == "motion" && $0.region == nil && $0.handler == "q" })
        let e = try #require(trace.records.compactMap { record -> RoutedEvent? in
            if case .routed(let e, _, _) = record, case .motion(.sample) = e.kind { return e } else { return nil }
        }.first, "no sample")
        expectEqual(e.motion, .sample(x: 0, y: 1, z: 0))
        expectEqual(e.start, .motion)
        expectEqual(r.layout.responderChain(from: .motion), [.motion])
    }

    @Test func withoutMotionHandlersSamplesAreUnhandled() throws {
        let (r, trace) = router(try layout(motion: nil))
        signals(r, at: 0, sample: (0, 1, 0))
        expect(trace.entries.contains { $0.kind == "motion" && $0.handledBy == nil })
        expect(!trace.entries.contains { $0.handledBy == "fallback" && $0.kind == "motion" }, "never through the chain")
    }

    @Test func orientationChangesGoToTheMotionHandlersBeforeTheSample() throws {
        let (r, trace) = router(try layout())
        signals(r, at: 0, orientation: .portrait, sample: (0, 1, 0))
        signals(r, at: 300, orientation: .landscape)
        expectEqual(trace.entries.filter { $0.kind.hasPrefix("orientation:") || $0.kind == "motion" }.map(\.kind), ["orientation:portrait", "motion", "orientation:landscape"])
        expect(trace.entries.filter { $0.kind.hasPrefix("orientation:") }.allSatisfy { $0.handledBy == "motion" })
        expect(Orientation.landscape.degrees == 90 && Orientation.landscapeFlipped.degrees == 270)
    }

    @Test func aShakeWalksFromTheFirstResponderAndEndsAtItsDeadline() throws {
        let (r, trace) = router(try layout())
        r.setFirstResponder(r.layout.region(path: "home/root/game"))
        signals(r, at: 300, shake: .began(until: ms(800)))
        signals(r, at: 400, shake: .continues(until: ms(900)))
        let shakes = trace.entries.filter { $0.kind == "shake" }
        expectEqual(shakes.map(\.phase), ["began"])
        expectEqual(shakes.first?.region, "home/root/game")
        expectEqual(shakes.first?.handledBy, "home/root/game")
        // The last jolt moved its end to 900 ms: ended there, at the game.
        expectEqual(r.nextTimerDeadline, ms(900))
        r.advanceTime(to: ms(2000))
        let all = trace.entries.filter { $0.kind == "shake" }
        expectEqual(all.map(\.phase), ["began", "ended"])
        expectEqual(all.last?.handledBy, "home/root/game")
        let e = try #require(trace.records.compactMap { record -> RoutedEvent? in
            if case .routed(let e, _, _) = record, case .motion(.shake) = e.kind { return e } else { return nil }
        }.last, "no shake")
        expectEqual(e.time, ms(900))
        expectEqual(e.motion, .shake(.ended))
        expect(r.nextTimerDeadline == nil)
    }

    @Test func aShakeGoesUpTheChainAndIsCancelledWhenTheDeviceGoes() throws {
        let (r, trace) = router(try layout())
        r.setFirstResponder(r.layout.region(path: "home/root/list"))   // no motion handler: up the chain
        signals(r, at: 300, shake: .began(until: ms(800)))
        r.removeDevice(Self.tilt, time: ms(450))
        let shakes = trace.entries.filter { $0.kind == "shake" }
        expectEqual(shakes.map(\.phase), ["began", "cancelled"])
        expect(shakes.allSatisfy { $0.region == "home/root/list" && $0.handledBy == "fallback" })
        expect(r.nextTimerDeadline == nil)
    }

    @Test func filters() {
        expectEqual(EventFilter(parsing: "motion"), .motion)
        expectEqual(EventFilter(parsing: "orientation"), .orientation)
        expect(EventFilter.spellings.contains("motion, orientation"))
    }
}
