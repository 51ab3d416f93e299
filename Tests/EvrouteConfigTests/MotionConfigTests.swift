import EvrouteConfig
import EvrouteTestSupport
import EvrouteCore
import Testing
import EvrouteChecks

/// The top-level `motion:` section, each error at its file:line:col.
@Suite("The motion section")
struct MotionConfigTests {
    func config(_ motion: String) -> String {
        """
        displays: [{ name: main, size: [800, 480] }]
        devices: [{ name: tilt, match: { kind: accelerometer } }]
        screens: [{ name: home, root: { name: root, frame: [0, 0, 800, 480] } }]
        motion:
        \(motion)
        """
    }

    @Test func readsEveryKey() throws {
        let spec = try parseValid(config("""
          rate: 20
          shake: { threshold: 1.5, window-ms: 400 }
          orientation: { hysteresis: 10 }
          handlers: [{ plugin: log, on: [motion, orientation] }]
        """))
        let m = try #require(spec.motion)
        expect(m.rate == 20 && m.shakeThreshold == 1.5 && m.shakeWindowMs == 400 && m.orientationHysteresis == 10)
        expectEqual(m.handlers.first?.on, [.motion, .orientation])
        let (_, layout) = try ConfigLoader.compile(yaml: config("  handlers: [{ plugin: log, on: motion }]"), file: "m.yaml")
        expectEqual(layout.motionHandlers.count, 1)
        expectEqual(layout.handlers[layout.motionHandlers[0]].owner, .motion)
    }

    @Test func defaults() throws {
        let m = try #require(try parseValid(config("  handlers: []")).motion)
        expect(m.rate == 10 && m.shakeThreshold == 1 && m.shakeWindowMs == 500 && m.orientationHysteresis == 15)
    }

    @Test func unknownKeysHaveDidYouMean() {
        expectOne(parseErrors(config("  rates: 5")), line: 5, column: 3,
                  "unknown key 'rates' in 'motion' (expected one of: handlers, rate, shake, orientation); did you mean 'rate'?", kind: .unknownKey)
        expectOne(parseErrors(config("  shake: { treshold: 2 }")), line: 5, column: 12,
                  "unknown key 'treshold' in 'shake' (expected one of: threshold, window-ms); did you mean 'threshold'?", kind: .unknownKey)
        expectOne(parseErrors(config("  orientation: { hysterisis: 2 }")), line: 5, column: 18,
                  "unknown key 'hysterisis' in 'orientation' (expected one of: hysteresis); did you mean 'hysteresis'?", kind: .unknownKey)
    }

    @Test func valuesOutOfRange() {
        expectOne(parseErrors(config("  rate: 0")), line: 5, column: 9,
                  "'rate' must be samples per second, more than 0 and at most 1000, found 0", kind: .invalidValue)
        expectOne(parseErrors(config("  rate: fast")), line: 5, column: 9, "'motion' 'rate' must be a number, found string 'fast'", kind: .wrongType)
        expectOne(parseErrors(config("  shake: { threshold: 0 }")), line: 5, column: 23,
                  "'threshold' must be in g, more than 0 and at most 16, found 0")
        expectOne(parseErrors(config("  shake: { window-ms: 10 }")), line: 5, column: 23,
                  "'window-ms' must be a whole number of milliseconds from 50 to 10000, found 10")
        expectOne(parseErrors(config("  orientation: { hysteresis: 45 }")), line: 5, column: 30,
                  "'hysteresis' must be degrees from 0 to less than 45, found 45")
    }

    @Test func motionHandlersTakeMotionAndOrientationOnly() {
        expectOne(parseErrors(config("  handlers: [{ plugin: log, on: [motion, tap] }]")), line: 5, column: 42,
                  "'motion' handlers get accelerometer samples (motion) and orientation changes (orientation) only; 'tap' never comes here",
                  kind: .invalidValue)
        expect(parseErrors(config("  handlers: [{ plugin: log, on: any }]")).isEmpty)
    }

    @Test func orientationOutsideMotionIsAWarning() throws {
        let yaml = """
            displays: [{ name: main, size: [800, 480] }]
            screens: [{ name: home, root: { name: root, frame: [0, 0, 800, 480], handlers: [{ plugin: log, on: [orientation] }] } }]
            """
        let (_, layout) = try ConfigLoader.compile(yaml: yaml, file: "w.yaml")
        expect(layout.warnings.contains { $0.message.contains("a handler on 'orientation' outside 'motion:' never gets an event") })
    }
}
