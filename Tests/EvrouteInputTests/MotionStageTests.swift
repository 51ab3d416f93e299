import EvrouteCore
@testable import EvrouteInput
import Testing
import EvrouteChecks

/// An accelerometer's input stage (docs/config.md#motion-accelerometers): sample pacing by
/// `motion.rate`, orientation with hysteresis, shake detection — in event time.
@Suite("Motion stage")
struct MotionStageTests {
    static let tilt = DeviceID(3)

    func stage() throws -> MotionStage {
        var d = DeviceDescription(name: "acc", events: [EventType.abs: [AbsCode.x, AbsCode.y, AbsCode.z]])
        for code in [AbsCode.x, AbsCode.y, AbsCode.z] { d.absinfo[code] = AbsInfo(minimum: -32768, maximum: 32768, resolution: 8192) }
        d.properties = [InputProperty.accelerometer]
        return MotionStage(decoder: try #require(MotionDecoder(device: Self.tilt, description: d)))
    }

    func ms(_ ms: Int64) -> Timestamp { Timestamp(microseconds: ms * 1000) }

    func feed(_ s: MotionStage, _ x: Double, _ y: Double, _ z: Double, at t: Int64, spec: MotionSpec = MotionSpec()) -> MotionSignals {
        s.process(MotionSample(device: Self.tilt, time: ms(t), x: x, y: y, z: z), spec: spec)
    }

    @Test func rawEventsBecomeSignalsAtTheReport() throws {
        let s = try stage()
        expect(s.feed(InputEvent(time: ms(5), type: EventType.abs, code: AbsCode.y, value: 8192), spec: nil) == nil)
        let out = try #require(s.feed(InputEvent(time: ms(5), type: EventType.syn, code: SynCode.report, value: 0), spec: nil))
        expect(out.time == ms(5) && out.device == Self.tilt)
        expectEqual(out.sample, MotionSample(device: Self.tilt, time: ms(5), x: 0, y: 1, z: 0))
        expectEqual(out.orientation, .portrait)
        expect(out.shake == nil)
    }

    @Test func samplesGoOutAtTheirRate() throws {
        let s = try stage()
        var times: [Timestamp] = []
        for i in 0..<100 {   // 100 Hz for 1 s; rate 10
            if let sample = feed(s, 0, 1, 0, at: Int64(i) * 10).sample { times.append(sample.time) }
        }
        expectEqual(times, (0..<10).map { ms(Int64($0) * 100) })
        let fast = try stage()
        let all = (0..<100).filter { feed(fast, 0, 1, 0, at: Int64($0) * 10, spec: MotionSpec(rate: 1000)).sample != nil }
        expectEqual(all.count, 100)
    }

    @Test func orientationWithHysteresis() throws {
        let s = try stage()
        var seen: [Orientation] = []
        func sample(_ x: Double, _ y: Double, _ z: Double, at t: Int64) {
            if let o = feed(s, x, y, z, at: t).orientation { seen.append(o) }
        }
        sample(0, 1, 0, at: 0)                      // upright: portrait
        expectEqual(seen, [.portrait])
        sample(-0.70, 0.71, 0, at: 100)             // 45° toward landscape: stays (hysteresis)
        sample(-0.77, 0.64, 0, at: 200)             // 50°: stays (needs 60° with 15° hysteresis)
        expectEqual(seen, [.portrait])
        sample(-0.90, 0.42, 0, at: 300)             // 65°: landscape (left edge up)
        expectEqual(seen, [.portrait, .landscape])
        sample(-0.77, 0.64, 0, at: 400)             // back to 50°: stays landscape
        sample(0.1, -0.2, 0.97, at: 500)            // flat on the table: no opinion
        sample(0, -1, 0, at: 600)                   // upside down
        sample(1, 0, 0, at: 700)                    // right edge up
        expectEqual(seen, [.portrait, .landscape, .portraitFlipped, .landscapeFlipped])
        expectEqual(MotionStage.orientation(of: MotionSample(device: Self.tilt, time: .zero, x: -0.77, y: 0.64, z: 0),
                                        current: nil, hysteresis: 15), .landscape, "no hysteresis without a current one")
    }

    @Test func theThirdJoltOnsetBeginsAShakeAndJoltsMoveItsEnd() throws {
        let s = try stage()
        var shakes: [(Int64, MotionSignals.Shake)] = []
        var orientations: [Orientation] = []
        func sample(_ x: Double, _ y: Double, _ z: Double, at t: Int64) {
            let out = feed(s, x, y, z, at: t)
            if let shake = out.shake { shakes.append((t, shake)) }
            if let o = out.orientation { orientations.append(o) }
        }
        // Calm, then jolts (|a| − 1 g ≥ 1 g) at 100, 200, 300, 400 with calm samples between.
        sample(0, 1, 0, at: 0)
        for (i, t) in stride(from: 100, through: 400, by: 50).enumerated() { sample(i % 2 == 0 ? 2.5 : 0, 1, 0, at: Int64(t)) }
        expectEqual(shakes.map(\.0), [300, 400])
        expectEqual(shakes.map(\.1), [.began(until: ms(800)), .continues(until: ms(900))])
        expectEqual(orientations, [.portrait], "a shake (2.7 g) does not turn the device")
        // A jolt before the end moves it; at the end the shake is over: jolts count onsets again.
        sample(2.5, 1, 0, at: 850)
        expectEqual(shakes.last?.1, .continues(until: ms(1350)))
        sample(0, 1, 0, at: 1350)
        sample(2.5, 1, 0, at: 1400)
        expectEqual(shakes.count, 3, "an onset, not a shake")
    }

    @Test func oneBumpIsNotAShake() throws {
        let s = try stage()
        var shakes = 0
        for (x, t) in [(0.0, 0), (2.5, 10), (2.6, 20), (0, 30), (2.5, 40), (0, 700)] as [(Double, Int64)] {
            if feed(s, x, 1, 0, at: t).shake != nil { shakes += 1 }   // the second onset, then calm
        }
        expectEqual(shakes, 0)
    }
}
