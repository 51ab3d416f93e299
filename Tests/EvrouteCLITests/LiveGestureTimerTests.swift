import Testing
import EvrouteConfig
import EvrouteCore
import EvrouteInput
import EvrouteRuntime
import EvrouteSystem
import EvrouteTestSupport

/// Live input on the one event loop: a long press fires while the finger rests and nothing else
/// arrives (the GestureTimer arms the loop's timerfd for the router's next deadline).
@Suite("Live gesture timer")
struct LiveGestureTimerTests {
    @Test("a finger resting on admin-corner: the long press begins on time, with no further event")
    func longPressFiresWithoutANextEvent() throws {
        let (_, layout) = try ConfigLoader.loadLayout(path: packageRoot + "/config/demo.yaml")
        let description = try EvemuRecording.load(path: packageRoot + "/demo/touchscreen.events", descriptionPath: nil).description
        let sink = MemorySink()
        let run = DryRun(layout: layout, format: .json, sink: sink, errors: MemorySink())
        let loop = try EventLoop()
        let timer = GestureTimer(loop: loop, session: run.session)
        loop.afterWakeup = { timer.rearm() }

        let x = try #require(description.absinfo[AbsCode.mtPositionX]), y = try #require(description.absinfo[AbsCode.mtPositionY])
        func raw(_ v: Double, _ size: Double, _ a: AbsInfo) -> Int32 { a.minimum + Int32(v / size * Double(a.maximum - a.minimum)) }
        let device = DeviceID(77)
        let down = MonotonicClock.now()
        run.session.handle(.added(device, description, down))
        for (type, code, value) in [(EventType.abs, AbsCode.mtSlot, Int32(0)), (EventType.abs, AbsCode.mtTrackingID, 1),
                                    (EventType.abs, AbsCode.mtPositionX, raw(1230, 1280, x)),
                                    (EventType.abs, AbsCode.mtPositionY, raw(50, 800, y)),
                                    (EventType.key, KeyCode.btnTouch, 1), (EventType.syn, SynCode.report, 0)] {
            run.session.handle(.event(device, InputEvent(time: down, type: type, code: code, value: value)))
        }
        timer.rearm()
        var fired: Timestamp?
        runLoop(loop, upTo: 3) {
            run.report.flush()
            guard sink.lines.contains(where: { $0.contains("\"admin-hold\"") && $0.contains("\"began\"") }) else { return false }
            fired = fired ?? MonotonicClock.now()
            return true
        }
        let at = try #require(fired, "no long-press began within 3 s; trace:\n\(sink.lines.joined(separator: "\n"))")
        let waited = (at - down).seconds
        #expect(waited >= 0.8 && waited < 1.5, "minimum-duration is 0.8 s; it began after \(waited) s")
    }
}
