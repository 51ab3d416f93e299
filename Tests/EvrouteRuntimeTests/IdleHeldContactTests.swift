import Testing
import EvrouteChecks
import EvrouteConfig
import EvrouteCore
import EvrouteInput
import EvrouteRuntime
import EvrouteTestSupport

/// A display does not go idle while a finger rests on it: its small moves filtered out by
/// `jitter`, or the whole contact held back by a filter (`ignore`), it sends no routed input for
/// longer than `after-s`, and still someone is at the kiosk. The countdown starts at the lift.
/// Real device events through the session's decoder and filters, event time only.
@Suite("Idle under a resting finger")
struct IdleHeldContactTests {
    enum Where: String, CaseIterable, Sendable {
        /// In the routed area: its moves within the jitter hysteresis are not reported.
        case routed
        /// In the `ignore` strip: the contact is never routed.
        case ignored
    }

    @Test("no idle while a contact is down, filtered or not; the countdown starts at the lift", arguments: Where.allCases)
    func noIdleUnderARestingFinger(at place: Where) throws {
        let (_, layout) = try ConfigLoader.compile(yaml: """
            displays: [{ name: main, size: [1280, 800], idle: { after-s: 10 } }]
            devices:
              - name: touch
                match: { kind: touchscreen }
                filters:
                  ignore: [[0, 0, 100, 800]]
                  jitter: { hysteresis: 6 }
            screens: [{ name: home, root: { name: root, frame: [0, 0, 1280, 800] } }]
            """, file: "idle.yaml")
        let description = try EvemuRecording.load(path: packageRoot + "/demo/touchscreen.events", descriptionPath: nil).description
        let run = DryRun(layout: layout, format: .json, sink: MemorySink(), errors: MemorySink())
        let rules = DeviceRuleMatcher(rules: layout.deviceRules)
        let device = DeviceID(5)
        let ax = try #require(description.absinfo[AbsCode.mtPositionX]), ay = try #require(description.absinfo[AbsCode.mtPositionY])
        func raw(_ v: Double, _ size: Double, _ a: AbsInfo) -> Int32 { a.minimum + Int32(v / size * Double(a.maximum - a.minimum)) }
        func at(_ s: Double) -> Timestamp { Timestamp(microseconds: Int64(s * 1_000_000)) }
        func send(_ events: [(UInt16, UInt16, Int32)], at s: Double) {
            for (type, code, value) in events {
                run.session.take(.event(device, InputEvent(time: at(s), type: type, code: code, value: value)), matching: rules)
            }
        }
        func idle() -> Bool? { run.session.router.activity(ofDisplay: 0)?.idle }
        let x: Double = place == .routed ? 640 : 50
        run.session.take(.added(device, description, at(1)), matching: rules)
        send([(EventType.abs, AbsCode.mtSlot, 0), (EventType.abs, AbsCode.mtTrackingID, 1),
              (EventType.abs, AbsCode.mtPositionX, raw(x, 1280, ax)), (EventType.abs, AbsCode.mtPositionY, raw(400, 800, ay)),
              (EventType.key, KeyCode.btnTouch, 1), (EventType.syn, SynCode.report, 0)], at: 2)
        // A resting finger's noise, a move of about one unit each second for a minute.
        for i in 1...60 {
            send([(EventType.abs, AbsCode.mtPositionX, raw(x + Double(i % 2), 1280, ax)), (EventType.syn, SynCode.report, 0)], at: 2 + Double(i))
        }
        run.session.advanceTime(to: at(70))
        expectEqual(idle(), false, "the display went idle under a finger resting since 2 s")
        // The lift at 70 s: idle 10 s after it, not before.
        send([(EventType.abs, AbsCode.mtTrackingID, -1), (EventType.key, KeyCode.btnTouch, 0), (EventType.syn, SynCode.report, 0)], at: 70)
        run.session.advanceTime(to: at(79.9))
        expectEqual(idle(), false, "idle came less than after-s after the lift")
        run.session.advanceTime(to: at(80))
        expectEqual(idle(), true, "idle did not come after-s after the lift")
        expectEqual(run.session.router.activity(ofDisplay: 0)?.since, at(80))
    }

    /// A stuck contact (cancelled by `stuck-after-s`) does not keep the display awake: once
    /// cancelled it is no longer down for idle, though the panel never lifts it.
    @Test("a contact cancelled as stuck does not hold idle off")
    func aStuckContactDoesNotHoldIdleOff() throws {
        let (_, layout) = try ConfigLoader.compile(yaml: """
            displays: [{ name: main, size: [1280, 800], idle: { after-s: 10 } }]
            devices:
              - name: touch
                match: { kind: touchscreen }
                filters: { stuck-after-s: 1 }
            screens: [{ name: home, root: { name: root, frame: [0, 0, 1280, 800] } }]
            """, file: "stuck.yaml")
        let description = try EvemuRecording.load(path: packageRoot + "/demo/touchscreen.events", descriptionPath: nil).description
        let run = DryRun(layout: layout, format: .json, sink: MemorySink(), errors: MemorySink())
        let rules = DeviceRuleMatcher(rules: layout.deviceRules)
        let device = DeviceID(6)
        let ax = try #require(description.absinfo[AbsCode.mtPositionX]), ay = try #require(description.absinfo[AbsCode.mtPositionY])
        func at(_ s: Double) -> Timestamp { Timestamp(microseconds: Int64(s * 1_000_000)) }
        run.session.take(.added(device, description, at(1)), matching: rules)
        for (type, code, value) in [(EventType.abs, AbsCode.mtSlot, Int32(0)), (EventType.abs, AbsCode.mtTrackingID, 1),
                                    (EventType.abs, AbsCode.mtPositionX, ax.minimum + (ax.maximum - ax.minimum) / 2),
                                    (EventType.abs, AbsCode.mtPositionY, ay.minimum + (ay.maximum - ay.minimum) / 2),
                                    (EventType.key, KeyCode.btnTouch, 1), (EventType.syn, SynCode.report, 0)] {
            run.session.take(.event(device, InputEvent(time: at(2), type: type, code: code, value: value)), matching: rules)
        }
        run.session.advanceTime(to: at(30))
        // Cancelled at 3 s; the countdown from the touch's began (2 s) ran out at 12 s.
        expectEqual(run.session.router.activity(ofDisplay: 0)?.idle, true)
        expectEqual(run.session.router.activity(ofDisplay: 0)?.since, at(12))
    }
}
