import Testing
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

    func sample(_ r: Router, _ x: Double, _ y: Double, _ z: Double, at ms: Int64) {
        r.handle(MotionSample(device: Self.tilt, time: Timestamp(microseconds: ms * 1000), x: x, y: y, z: z))
    }

    @Test func samplesGoToTheMotionHandlersOnlyAtTheirRate() throws {
        let (r, trace) = router(try layout())
        r.setFirstResponder(r.layout.region(path: "home/root/game"))   // its `motion` handler must not see samples
        for i in 0..<100 { sample(r, 0, 1, 0, at: Int64(i) * 10) }    // 100 Hz for 1 s; rate 10
        let samples = trace.entries.filter { $0.kind == "motion" }
        #expect(samples.count == 10)
        #expect(samples.allSatisfy { $0.handledBy == "motion" && $0.region == nil && $0.handler == "q" })
        let e = try #require(trace.records.compactMap { record -> RoutedEvent? in
            if case .routed(let e, _, _) = record, case .motion(.sample) = e.kind { return e } else { return nil }
        }.first, "no sample")
        #expect(e.motion == .sample(x: 0, y: 1, z: 0))
        #expect(e.start == .motion)
        #expect(r.layout.responderChain(from: .motion) == [.motion])
    }

    @Test func withoutMotionHandlersSamplesAreUnhandled() throws {
        let (r, trace) = router(try layout(motion: nil))
        sample(r, 0, 1, 0, at: 0)
        #expect(trace.entries.contains { $0.kind == "motion" && $0.handledBy == nil })
        #expect(!trace.entries.contains { $0.handledBy == "fallback" && $0.kind == "motion" }, "never through the chain")
    }

    @Test func orientationWithHysteresis() throws {
        let (r, trace) = router(try layout())
        func orientations() -> [String] { trace.entries.filter { $0.kind.hasPrefix("orientation:") }.map(\.kind) }
        sample(r, 0, 1, 0, at: 0)                      // upright: portrait
        #expect(orientations() == ["orientation:portrait"])
        sample(r, -0.70, 0.71, 0, at: 100)             // 45° toward landscape: stays (hysteresis)
        sample(r, -0.77, 0.64, 0, at: 200)             // 50°: stays (needs 60° with 15° hysteresis)
        #expect(orientations() == ["orientation:portrait"])
        sample(r, -0.90, 0.42, 0, at: 300)             // 65°: landscape (left edge up)
        #expect(orientations() == ["orientation:portrait", "orientation:landscape"])
        sample(r, -0.77, 0.64, 0, at: 400)             // back to 50°: stays landscape
        sample(r, 0.1, -0.2, 0.97, at: 500)            // flat on the table: no opinion
        sample(r, 0, -1, 0, at: 600)                   // upside down
        sample(r, 1, 0, 0, at: 700)                    // right edge up
        #expect(orientations() == ["orientation:portrait", "orientation:landscape",
                                   "orientation:portrait-flipped", "orientation:landscape-flipped"])
        #expect(trace.entries.filter { $0.kind.hasPrefix("orientation:") }.allSatisfy { $0.handledBy == "motion" })
        #expect(Orientation.landscape.degrees == 90 && Orientation.landscapeFlipped.degrees == 270)
    }

    @Test func aShakeWalksFromTheFirstResponderAndEndsAfterItsWindow() throws {
        let (r, trace) = router(try layout())
        r.setFirstResponder(r.layout.region(path: "home/root/game"))
        // Calm, then jolts (|a| − 1 g ≥ 1 g) alternating with calm samples, 50 ms apart.
        sample(r, 0, 1, 0, at: 0)
        for (i, t) in stride(from: 100, through: 400, by: 50).enumerated() {
            sample(r, i % 2 == 0 ? 2.5 : 0, 1, 0, at: Int64(t))
        }
        let shakes = trace.entries.filter { $0.kind == "shake" }
        #expect(shakes.map(\.phase) == ["began"])
        #expect(trace.entries.filter { $0.kind.hasPrefix("orientation:") }.map(\.kind) == ["orientation:portrait"],
                "a shake (2.7 g) does not turn the device")
        #expect(shakes.first?.region == "home/root/game")
        #expect(shakes.first?.handledBy == "home/root/game")
        // The third onset began it (at 200 ms: onsets at 100, 200 … the jolts are at 100, 200, 300, 400).
        // Nothing for 500 ms after the last jolt at 400: ended at 900, at the game.
        #expect(r.nextTimerDeadline == Timestamp(microseconds: 900_000))
        r.advanceTime(to: Timestamp(microseconds: 2_000_000))
        let all = trace.entries.filter { $0.kind == "shake" }
        #expect(all.map(\.phase) == ["began", "ended"])
        #expect(all.last?.handledBy == "home/root/game")
        let e = try #require(trace.records.compactMap { record -> RoutedEvent? in
            if case .routed(let e, _, _) = record, case .motion(.shake) = e.kind { return e } else { return nil }
        }.last, "no shake")
        #expect(e.time == Timestamp(microseconds: 900_000))
        #expect(e.motion == .shake(.ended))
    }

    @Test func aShakeGoesUpTheChainAndIsCancelledWhenTheDeviceGoes() throws {
        let (r, trace) = router(try layout())
        r.setFirstResponder(r.layout.region(path: "home/root/list"))   // no motion handler: up the chain
        sample(r, 0, 1, 0, at: 0)
        for (i, t) in stride(from: 100, through: 400, by: 50).enumerated() { sample(r, i % 2 == 0 ? 2.5 : 0, 1, 0, at: Int64(t)) }
        r.removeDevice(Self.tilt, time: Timestamp(microseconds: 450_000))
        let shakes = trace.entries.filter { $0.kind == "shake" }
        #expect(shakes.map(\.phase) == ["began", "cancelled"])
        #expect(shakes.allSatisfy { $0.region == "home/root/list" && $0.handledBy == "fallback" })
        #expect(r.nextTimerDeadline == nil)
    }

    @Test func oneBumpIsNotAShake() throws {
        let (r, trace) = router(try layout())
        sample(r, 0, 1, 0, at: 0)
        sample(r, 2.5, 1, 0, at: 10); sample(r, 2.6, 1, 0, at: 20); sample(r, 0, 1, 0, at: 30)
        sample(r, 2.5, 1, 0, at: 40); sample(r, 0, 1, 0, at: 700)   // the second onset, then calm
        #expect(!trace.entries.contains { $0.kind == "shake" })
    }

    @Test func filters() {
        #expect(EventFilter(parsing: "motion") == .motion)
        #expect(EventFilter(parsing: "orientation") == .orientation)
        #expect(EventFilter.spellings.contains("motion, orientation"))
    }
}
