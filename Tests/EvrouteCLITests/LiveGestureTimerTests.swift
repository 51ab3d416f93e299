import Testing
import EvrouteConfig
import EvrouteCore
import EvrouteInput
import EvrouteRuntime
import EvrouteSystem
import EvrouteTestSupport

/// Live input on the one event loop: a long press fires while the finger rests and nothing else
/// arrives (the SessionTimer arms the loop's timerfd for the router's next deadline).
@Suite("Live gesture timer")
struct LiveGestureTimerTests {
    @Test("a finger resting on admin-corner: the long press begins on time, with no further event")
    func longPressFiresWithoutANextEvent() throws {
        let (_, layout) = try ConfigLoader.loadLayout(path: packageRoot + "/config/demo.yaml")
        let description = try EvemuRecording.load(path: packageRoot + "/demo/touchscreen.events", descriptionPath: nil).description
        let sink = MemorySink()
        let run = DryRun(layout: layout, format: .json, sink: sink, errors: MemorySink())
        let loop = try EventLoop()
        let timer = SessionTimer(loop: loop, session: run.session)
        loop.afterWakeup = { timer.rearm() }

        let x = try #require(description.absinfo[AbsCode.mtPositionX]), y = try #require(description.absinfo[AbsCode.mtPositionY])
        func raw(_ v: Double, _ size: Double, _ a: AbsInfo) -> Int32 { a.minimum + Int32(v / size * Double(a.maximum - a.minimum)) }
        let device = DeviceID(77)
        let down = MonotonicClock.now()
        let rules = DeviceRuleMatcher(rules: layout.deviceRules)
        run.session.take(.added(device, description, down), matching: rules)
        for (type, code, value) in [(EventType.abs, AbsCode.mtSlot, Int32(0)), (EventType.abs, AbsCode.mtTrackingID, 1),
                                    (EventType.abs, AbsCode.mtPositionX, raw(1230, 1280, x)),
                                    (EventType.abs, AbsCode.mtPositionY, raw(50, 800, y)),
                                    (EventType.key, KeyCode.btnTouch, 1), (EventType.syn, SynCode.report, 0)] {
            run.session.take(.event(device, InputEvent(time: down, type: type, code: code, value: value)), matching: rules)
        }
        timer.rearm()
        // On time, by the event clock: the loop's timer is armed for the router's deadline, the
        // touch's own time plus the gesture's minimum-duration (0.8 s); no wall-clock bound.
        let deadline = try #require(run.session.nextDeadline, "no deadline once the finger rests")
        #expect(deadline == down + .milliseconds(800), "armed for \(deadline), the touch came at \(down)")
        var began: String?
        runLoop(loop, upTo: 3) {
            run.report.flush()
            began = sink.lines.first { $0.contains("\"admin-hold\"") && $0.contains("\"began\"") }
            return began != nil
        }
        // The guard (3 s) only stops a hung test: the long press must begin with no further event.
        try #require(began != nil, "no long-press began; trace:\n\(sink.lines.joined(separator: "\n"))")
        #expect(run.session.nextDeadline != deadline, "the deadline was consumed by the timer")
    }
}
