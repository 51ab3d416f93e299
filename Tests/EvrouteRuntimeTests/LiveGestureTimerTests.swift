import Testing
import EvrouteChecks
#if canImport(Glibc)
import Glibc
#endif
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
        loop.addEndOfWakeupHook { timer.rearm() }

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
        expectEqual(deadline, down + .milliseconds(800), "armed for \(deadline), the touch came at \(down)")
        var began: String?
        runLoop(loop, upTo: 3) {
            run.report.flush()
            began = sink.lines.first { $0.contains("\"admin-hold\"") && $0.contains("\"began\"") }
            return began != nil
        }
        // The guard (3 s) only stops a hung test: the long press must begin with no further event.
        try #require(began != nil, "no long-press began; trace:\n\(sink.lines.joined(separator: "\n"))")
        expect(run.session.nextDeadline != deadline, "the deadline was consumed by the timer")
    }

    /// Which of the timer and the input the loop was woken for first, in one `epoll_wait` batch.
    enum ReadyFirst: String, CaseIterable, Sendable { case timer, input }

    /// A lift already readable when the long press's deadline comes due (the timer's descriptor
    /// and a real pipe ready in the same wake-up, in either order): it is routed first, by its
    /// own time, and the long press never begins; a lift stamped after the deadline lets it
    /// begin (the rule goes by event time, not by which descriptor the loop saw first).
    @Test("an unread lift stamped before a deadline is routed before the deadline fires", arguments: ReadyFirst.allCases, [false, true])
    func unreadInputBeforeADeadlineIsRoutedFirst(readyFirst: ReadyFirst, liftAfterDeadline: Bool) throws {
        let (_, layout) = try ConfigLoader.loadLayout(path: packageRoot + "/config/demo.yaml")
        let description = try EvemuRecording.load(path: packageRoot + "/demo/touchscreen.events", descriptionPath: nil).description
        let sink = MemorySink()
        let run = DryRun(layout: layout, format: .json, sink: sink, errors: MemorySink())
        let loop = try EventLoop()
        let timer = SessionTimer(loop: loop, session: run.session)
        let rules = DeviceRuleMatcher(rules: layout.deviceRules)
        let device = DeviceID(78)
        let x = try #require(description.absinfo[AbsCode.mtPositionX]), y = try #require(description.absinfo[AbsCode.mtPositionY])
        func raw(_ v: Double, _ size: Double, _ a: AbsInfo) -> Int32 { a.minimum + Int32(v / size * Double(a.maximum - a.minimum)) }
        func route(_ events: [(UInt16, UInt16, Int32)], at time: Timestamp) {
            for (type, code, value) in events {
                run.session.take(.event(device, InputEvent(time: time, type: type, code: code, value: value)), matching: rules)
            }
        }
        // The finger came down long enough ago that the long press's deadline (0.8 s) has passed.
        let down = Timestamp(microseconds: MonotonicClock.now().microseconds - 2_000_000)
        run.session.take(.added(device, description, down), matching: rules)
        route([(EventType.abs, AbsCode.mtSlot, 0), (EventType.abs, AbsCode.mtTrackingID, 1),
               (EventType.abs, AbsCode.mtPositionX, raw(1230, 1280, x)), (EventType.abs, AbsCode.mtPositionY, raw(50, 800, y)),
               (EventType.key, KeyCode.btnTouch, 1), (EventType.syn, SynCode.report, 0)], at: down)
        let deadline = try #require(run.session.nextDeadline)
        expectEqual(deadline, down + .milliseconds(800))
        let lift = liftAfterDeadline ? down + .milliseconds(1500) : down + .milliseconds(500)

        // The "device": a pipe holding one byte while the lift waits unread.
        var fds: [Int32] = [0, 0]
        try #require(pipe(&fds) == 0)
        _ = fcntl(fds[0], F_SETFL, O_NONBLOCK)
        defer { close(fds[0]); close(fds[1]) }
        var dispatched: [String] = []
        func readPipe(_ by: String) {
            var b: UInt8 = 0
            guard read(fds[0], &b, 1) == 1 else { return }
            dispatched.append(by)
            route([(EventType.abs, AbsCode.mtTrackingID, -1), (EventType.key, KeyCode.btnTouch, 0),
                   (EventType.syn, SynCode.report, 0)], at: lift)
        }
        try loop.watch(FileDescriptor(rawValue: fds[0])) { _ in readPipe("input") }
        timer.readPendingInput = { readPipe("timer") }
        loop.addEndOfWakeupHook { timer.rearm(); loop.stop() }
        var byte: UInt8 = 1
        // The timer's descriptor becomes ready when armed (its deadline has passed): the order of
        // arming and writing is the order epoll reports them in.
        switch readyFirst {
        case .timer:
            timer.rearm()
            try #require(write(fds[1], &byte, 1) == 1)
        case .input:
            try #require(write(fds[1], &byte, 1) == 1)
            timer.rearm()
        }
        loop.run()
        run.report.flush()
        // One wake-up for both.
        expectEqual(loop.wakeups, 1)
        expectEqual(dispatched.count, 1, "the lift was routed once: \(dispatched)")
        let began = sink.lines.contains { $0.contains("\"admin-hold\"") && $0.contains("\"began\"") }
        expectEqual(began, liftAfterDeadline, "long press began: \(began), lift at +\((lift - down).microseconds / 1000) ms, ready first: \(readyFirst); trace:\n\(sink.lines.joined(separator: "\n"))")
    }
}
