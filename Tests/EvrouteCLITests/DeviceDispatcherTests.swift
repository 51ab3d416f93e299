import Foundation
import Testing
import EvrouteChecks
import EvrouteConfig
import EvrouteCore
import EvrouteInput
@testable import EvrouteRuntime
import EvrouteTestSupport

/// Each kind of device dispatcher on its own (built by the session from a real device's
/// description and its rule, then driven directly), and the session's one merge of their
/// deadlines. Event time only.
@Suite("Device dispatchers")
struct DeviceDispatcherTests {
    static let yaml = """
        displays: [{ name: main, size: [1280, 800] }]
        devices:
          - { name: touch, match: { kind: touchscreen }, filters: { ghost-taps: { max-duration-ms: 40 } } }
          - { name: scanner, match: { vendor: 0x1532, product: 0x011b }, text: line, line-timeout-ms: 100 }
          - { name: tilt, match: { kind: accelerometer } }
        screens: [{ name: home, root: { name: root, frame: [0, 0, 1280, 800], focusable: true, handlers: [{ plugin: log, on: [any] }] } }]
        motion: { handlers: [{ plugin: log, on: [motion, orientation] }] }
        fallback: { handlers: [{ plugin: log, on: [any] }] }
        """

    /// A dry run on the layout above, its JSON lines, and a device adder.
    final class Bench {
        let sink = MemorySink()
        let run: DryRun
        let rules: DeviceRuleMatcher
        var session: RoutingSession { run.session }

        init() throws {
            let (_, layout) = try ConfigLoader.compile(yaml: DeviceDispatcherTests.yaml, file: "dispatch.yaml")
            run = DryRun(layout: layout, format: .json, sink: sink, errors: MemorySink())
            run.warn = { _ in }
            rules = DeviceRuleMatcher(rules: layout.deviceRules)
            session.router.setFirstResponder(layout.region(path: "home/root"))
        }

        /// Adds a device of `description` (its rule matched as a source would) at `time`; its dispatcher.
        func add(_ id: DeviceID, _ description: DeviceDescription, at time: Timestamp) throws -> any DeviceDispatcher {
            session.take(.added(id, description, time), matching: rules)
            return try #require(session.devices[id]?.dispatcher)
        }

        /// The routed objects of `type` so far.
        func objects(_ type: String) throws -> [[String: Any]] {
            try sink.lines.compactMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
                .filter { $0["type"] as? String == type }
        }
    }

    static func touchscreen() throws -> DeviceDescription {
        try EvemuRecording.load(path: packageRoot + "/demo/touchscreen.events", descriptionPath: nil).description
    }

    static func at(_ s: Double) -> Timestamp { Timestamp(microseconds: Int64((s * 1_000_000).rounded())) }

    /// A finger down at the display's middle at `s` seconds, as one read.
    static func touchDown(_ d: DeviceDescription, at s: Double) throws -> [InputEvent] {
        let ax = try #require(d.absinfo[AbsCode.mtPositionX]), ay = try #require(d.absinfo[AbsCode.mtPositionY])
        return [(EventType.abs, AbsCode.mtSlot, 0), (EventType.abs, AbsCode.mtTrackingID, 7),
                (EventType.abs, AbsCode.mtPositionX, (ax.minimum + ax.maximum) / 2), (EventType.abs, AbsCode.mtPositionY, (ay.minimum + ay.maximum) / 2),
                (EventType.key, KeyCode.btnTouch, 1), (EventType.syn, SynCode.report, 0)]
            .map { InputEvent(time: at(s), type: $0.0, code: $0.1, value: $0.2) }
    }

    @Test("touch without filters: the router's time is each frame end's, whether the frame changed a contact or not")
    func touchFrameEndsMoveTime() throws {
        let (_, layout) = try ConfigLoader.compile(yaml: """
            displays: [{ name: main, size: [1280, 800] }]
            devices: [{ name: touch, match: { kind: touchscreen } }]
            screens: [{ name: home, root: { name: root, frame: [0, 0, 1280, 800], handlers: [{ plugin: log, on: [any] }] } }]
            """, file: "plain.yaml")
        let sink = MemorySink()
        let run = DryRun(layout: layout, format: .json, sink: sink, errors: MemorySink())
        run.warn = { _ in }
        let d = try Self.touchscreen()
        run.session.take(.added(DeviceID(1), d, Self.at(1)), matching: DeviceRuleMatcher(rules: layout.deviceRules))
        let touch = try #require(run.session.devices[DeviceID(1)]?.dispatcher as? TouchDispatcher)
        InputBatch.with(try Self.touchDown(d, at: 2)) { touch.dispatch($0, in: run.session) }
        expectEqual(run.session.now, Self.at(2))
        expectEqual(sink.lines.filter { $0.contains("\"began\"") }.count, 1)
        // A frame end that changes no contact routes nothing, and time still moves to it.
        InputBatch.with(InputEvent(time: Self.at(3), type: EventType.syn, code: SynCode.report, value: 0)) {
            touch.dispatch($0, in: run.session)
        }
        expectEqual(run.session.now, Self.at(3))
        let lift = [InputEvent(time: Self.at(4), type: EventType.abs, code: AbsCode.mtTrackingID, value: -1),
                    InputEvent(time: Self.at(4), type: EventType.syn, code: SynCode.report, value: 0)]
        InputBatch.with(lift) { touch.dispatch($0, in: run.session) }
        expectEqual(run.session.now, Self.at(4))
        expectEqual(sink.lines.filter { $0.contains("\"ended\"") }.count, 1)
    }

    @Test("touch: a warning that comes up while a frame is read is told at that frame's end, with and without filters")
    func touchWarningAtFrameEnd() throws {
        for filters in ["", ", filters: { jitter: {} }"] {
            let (_, layout) = try ConfigLoader.compile(yaml: """
                displays: [{ name: main, size: [1280, 800] }]
                devices: [{ name: touch, match: { kind: touchscreen }\(filters) }]
                screens: [{ name: home, root: { name: root, frame: [0, 0, 1280, 800], handlers: [{ plugin: log, on: [any] }] } }]
                """, file: "warn.yaml")
            let run = DryRun(layout: layout, format: .json, sink: MemorySink(), errors: MemorySink())
            run.warn = { _ in }
            var told: [(String, Timestamp)] = []
            run.session.onDeviceWarning = { _, warning, time in told.append(("\(warning)", time)) }
            let d = try Self.touchscreen()
            run.session.take(.added(DeviceID(1), d, Self.at(1)), matching: DeviceRuleMatcher(rules: layout.deviceRules))
            let touch = try #require(run.session.devices[DeviceID(1)]?.dispatcher as? TouchDispatcher)
            // A contact in a slot the device does not have: dropped, and said once, at its frame's end.
            let beyond = [(EventType.abs, AbsCode.mtSlot, 200), (EventType.abs, AbsCode.mtTrackingID, 9),
                          (EventType.abs, AbsCode.mtPositionX, 100), (EventType.syn, SynCode.report, 0)]
                .map { InputEvent(time: Self.at(2), type: $0.0, code: $0.1, value: $0.2) }
            InputBatch.with(beyond) { touch.dispatch($0, in: run.session) }
            expect(told.count == 1 && told.first?.1 == Self.at(2), "filters '\(filters)': \(told)")
            expectEqual(told.first?.0.contains("slot"), true, "\(told)")
        }
    }

    @Test("touch: decode, map, filters, frame; a held contact's bound is its deadline, expired on its own")
    func touchDispatcher() throws {
        let bench = try Bench()
        let d = try Self.touchscreen()
        let touch = try #require(try bench.add(DeviceID(1), d, at: Self.at(1)) as? TouchDispatcher)
        expect(touch.hasDeadlines && touch.filters.count == 1 && touch.deadline == nil)
        InputBatch.with(try Self.touchDown(d, at: 2)) { touch.dispatch($0, in: bench.session) }
        // The ghost-tap filter holds the new contact until 40 ms have passed.
        expectEqual(touch.deadline, Self.at(2.04))
        try expect(try bench.objects("touch").isEmpty)
        bench.session.router.advanceTime(to: Self.at(2.04))
        touch.expire(at: Self.at(2.04), in: bench.session)
        let began = try bench.objects("touch")
        expect(began.count == 1 && began.first?["phase"] as? String == "began" && began.first?["time"] as? Double == 2.04, "\(began)")
        expect(touch.deadline == nil)
        // The device goes: its contact is cancelled.
        touch.removeAll(at: Self.at(3), in: bench.session)
        try expectEqual(try bench.objects("touch").last?["phase"] as? String, "cancelled")
    }

    @Test("keys: a scanner's keys make a line; its timeout is the deadline; the line goes at it, or when the device goes")
    func keyDispatcher() throws {
        let bench = try Bench()
        let d = try EvemuRecording.loadDescription(path: Typist.razerDescription)
        let keys = try #require(try bench.add(DeviceID(2), d, at: Self.at(1)) as? KeyDispatcher)
        expect(keys.hasDeadlines && keys.deadline == nil && keys.text != nil)
        InputBatch.with(try Typist.events(Typist.digits("40"), start: 2)) { keys.dispatch($0, in: bench.session) }
        try expect(try bench.objects("text").isEmpty && bench.objects("key").isEmpty, "a scanner's keys are not routed one by one")
        // The last key went down at 2.012 s: the line is due 100 ms later.
        let due = try #require(keys.deadline)
        expectEqual(due, Self.at(2.112))
        keys.expire(at: due, in: bench.session)
        try expectEqual(try bench.objects("text").map { $0["text"] as? String }, ["40"])
        expect(keys.deadline == nil)
        InputBatch.with(try Typist.events(Typist.digits("7"), start: 3)) { keys.dispatch($0, in: bench.session) }
        keys.removeAll(at: Self.at(3.05), in: bench.session)
        let texts = try bench.objects("text")
        expect(texts.map { $0["text"] as? String } == ["40", "7"] && texts.last?["time"] as? Double == 3.05)
        expect(keys.deadline == nil)
    }

    @Test("motion: samples to the motion handlers; no deadline of its own; time moves at each sample")
    func motionDispatcher() throws {
        let bench = try Bench()
        let d = try EvemuRecording.loadDescription(path: MotionReplayTests.sensors)
        let motion = try #require(try bench.add(DeviceID(3), d, at: Self.at(1)) as? MotionDispatcher)
        expect(!motion.hasDeadlines && motion.deadline == nil)
        let frames = MotionReplayTests.frames([(0, -1, 0), (0, -1, 0)], start: 2)
        InputBatch.with(frames) { motion.dispatch($0, in: bench.session) }
        expectEqual(bench.session.now, frames.last?.time)
        try expect(try !(bench.objects("motion") + bench.objects("orientation")).isEmpty, "\(bench.sink.lines)")
    }

    @Test("the session merges the dispatchers' deadlines: the earliest first, whichever device; removal cancels")
    func deadlineMerge() throws {
        let bench = try Bench()
        let session = bench.session
        let touchscreen = try Self.touchscreen()
        let scanner = try EvemuRecording.loadDescription(path: Typist.razerDescription)
        _ = try bench.add(DeviceID(2), scanner, at: Self.at(1))
        _ = try bench.add(DeviceID(1), touchscreen, at: Self.at(1))
        // The scanner's line is due at 2.112 s (added first); the touch's hold at 2.05 s.
        InputBatch.with(try Typist.events(Typist.digits("40"), start: 2)) { session.events($0, from: DeviceID(2)) }
        InputBatch.with(try Self.touchDown(touchscreen, at: 2.01)) { session.events($0, from: DeviceID(1)) }
        expectEqual(session.nextDeadline, Self.at(2.05))
        session.advanceTime(to: Self.at(2.2))
        let lines = try bench.sink.lines.compactMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .filter { ["touch", "text"].contains($0["type"] as? String) }
        expectEqual(lines.map { $0["type"] as? String }, ["touch", "text"], "\(lines)")
        expectEqual(lines.map { $0["time"] as? Double }, [2.05, 2.112])
        expect(session.nextDeadline == nil)
        // A new line due at 3.1 s; the scanner goes first: its deadline goes with it (the
        // line is sent at the removal), and the next deadline is none.
        InputBatch.with(try Typist.events(Typist.digits("7"), start: 3)) { session.events($0, from: DeviceID(2)) }
        expectEqual(session.nextDeadline, Self.at(3.1))
        session.deviceRemoved(DeviceID(2), at: Self.at(3.05))
        expect(session.nextDeadline == nil)
        expectEqual(session.timedDevices.map(\.id), [DeviceID(1)])
        try expectEqual(try bench.objects("text").last?["time"] as? Double, 3.05)
    }

    @Test("a read fires first what was due before its events' time, in deadline order, whichever device's")
    func inputAfterDeadlines() throws {
        let bench = try Bench()
        let session = bench.session
        let touchscreen = try Self.touchscreen()
        let scanner = try EvemuRecording.loadDescription(path: Typist.razerDescription)
        _ = try bench.add(DeviceID(1), touchscreen, at: Self.at(1))
        _ = try bench.add(DeviceID(2), scanner, at: Self.at(1))
        // The line is due at 2.1 s; a touch at 2.09 s is held until 2.13 s.
        InputBatch.with(try Typist.events(Typist.digits("4"), start: 2)) { session.events($0, from: DeviceID(2)) }
        InputBatch.with(try Self.touchDown(touchscreen, at: 2.09)) { session.events($0, from: DeviceID(1)) }
        try expect(try bench.objects("text").isEmpty && bench.objects("touch").isEmpty)
        // The lift, read at 2.2 s with no timer run meanwhile: the line, then the held touch, then the lift.
        let lift = [(EventType.abs, AbsCode.mtTrackingID, Int32(-1)), (EventType.key, KeyCode.btnTouch, 0), (EventType.syn, SynCode.report, 0)]
            .map { InputEvent(time: Self.at(2.2), type: $0.0, code: $0.1, value: $0.2) }
        InputBatch.with(lift) { session.events($0, from: DeviceID(1)) }
        let lines = try bench.sink.lines.compactMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .filter { ["touch", "text"].contains($0["type"] as? String) }
        expectEqual(lines.map { "\($0["type"] ?? "") \($0["phase"] ?? "-") \($0["time"] ?? "")" }, ["text - 2.1", "touch began 2.13", "touch ended 2.2"], "\(lines)")
    }
}
