import EvrouteCore
@testable import EvrouteInput
import Testing
import EvrouteChecks

@Suite("Keys")
struct KeyDecoderTests {
    @Test("EV_KEY 1/2/0 → down/repeat/up, named by libevdev")
    func phases() {
        var decoder = KeyDecoder(device: DeviceID(4), description: DeviceDescription(name: "kbd", events: [EventType.key: [28]]))
        let t = Timestamp(microseconds: 5)
        let keys = [1, 2, 0, 3].compactMap { decoder.feed(InputEvent(time: t, type: EventType.key, code: 28, value: $0)) }
        expectEqual(keys.map(\.phase), [.down, .repeat, .up])
        expect(keys.allSatisfy { $0.name == "KEY_ENTER" && $0.code == 28 && $0.device == DeviceID(4) && $0.time == t })
        expect(decoder.feed(InputEvent(time: t, type: EventType.abs, code: 0, value: 1)) == nil)
        expectEqual(decoder.feed(InputEvent(time: t, type: EventType.key, code: 0x2fe, value: 1))?.name, "KEY_766")
    }

    @Test("Touchscreens' BTN_TOUCH and BTN_TOOL_* are not keys")
    func digitizerButtons() {
        var touch = KeyDecoder(device: DeviceID(1), description: Devices.protocolB())
        let t = Timestamp.zero
        expect(touch.feed(InputEvent(time: t, type: EventType.key, code: KeyCode.btnTouch, value: 1)) == nil)
        expect(touch.feed(InputEvent(time: t, type: EventType.key, code: KeyCode.btnToolDoubleTap, value: 1)) == nil)
        expectEqual(touch.feed(InputEvent(time: t, type: EventType.key, code: 114, value: 1))?.name, "KEY_VOLUMEDOWN")
        var plain = KeyDecoder(device: DeviceID(1), ignoresDigitizerButtons: false)
        expectEqual(plain.feed(InputEvent(time: t, type: EventType.key, code: KeyCode.btnTouch, value: 1))?.name, "BTN_TOUCH")
    }

    @Test("Event code names from libevdev")
    func names() {
        expectEqual(EventCodeNames.typeName(EventType.abs), "EV_ABS")
        expectEqual(EventCodeNames.codeName(type: EventType.abs, code: AbsCode.mtSlot), "ABS_MT_SLOT")
        expectEqual(EventCodeNames.code(named: "KEY_ENTER", type: EventType.key), 28)
        expect(EventCodeNames.code(named: "NOPE", type: EventType.key) == nil)
        let both = EventCodeNames.typeAndCode(named: "BTN_TOUCH")
        expect(both?.type == EventType.key && both?.code == KeyCode.btnTouch)
        expect(EventCodeNames.typeAndCode(named: "KEY_NOPE") == nil)
    }
}

@Suite("Replay source")
struct ReplaySourceTests {
    private func recording(_ name: String, times: [Int64]) -> EvemuRecording {
        EvemuRecording(description: DeviceDescription(name: name),
                       events: times.enumerated().map { InputEvent(time: Timestamp(microseconds: $0.element), type: 0, code: 0, value: Int32($0.offset)) })
    }

    @Test("Recordings merge by time, stable for equal times; added at each one's first event, removed after its last")
    func merge() {
        let a = recording("a", times: [10, 20, 20, 40])
        let b = recording("b", times: [5, 20, 30])
        let empty = recording("empty", times: [])
        let source = ReplaySource(recordings: [a, b, empty], firstDeviceID: 10)
        let text = source.items.map { item -> String in
            switch item {
            case .added(let id, let d, let t): return "+\(id.rawValue)\(d.name)@\(t.microseconds)"
            case .event(let id, let e): return "\(id.rawValue)@\(e.time.microseconds)#\(e.value)"
            case .removed(let id, let t): return "-\(id.rawValue)@\(t.microseconds)"
            }
        }
        expectEqual(text, ["+11b@5", "11@5#0", "+12empty@5", "+10a@10",
                         "10@10#0", "10@20#1", "10@20#2", "11@20#1", "11@30#2", "-11@30",
                         "10@40#3", "-10@40", "-12@40"])
    }

    @Test("Large epoch timestamps are kept as recorded")
    func epochTimes() throws {
        let quanta = try EvemuRecording.load(path: Recordings.path("touchscreens", "QUANTA OpticalTouchScreen.touch-on-left.events"))
        let atmel = try EvemuRecording.load(path: Recordings.path("touchscreens", "Atmel maXTouch Touchscreen.2-fingers-touch-release.events"))
        let items = ReplaySource(recordings: [quanta, atmel]).items
        expectEqual(items.count, 2 + quanta.events.count + atmel.events.count + 2)
        let (added, first, event) = try #require({ () -> (DeviceID, DeviceID, InputEvent)? in
            guard case .added(let added, _, _) = items[0], case .event(let first, let event) = items[1] else { return nil }
            return (added, first, event)
        }(), "expected Atmel's device and first event")
        expect(added == DeviceID(2) && first == DeviceID(2))   // Atmel's relative times come first
        expectEqual(event.time, Timestamp(microseconds: 1))
        let (last, time) = try #require({ () -> (DeviceID, Timestamp)? in
            guard case .removed(let last, let time)? = items.last else { return nil }
            return (last, time)
        }(), "expected removal")
        expectEqual(last, DeviceID(1))
        expectEqual(time, quanta.events.last!.time)
        expect(time.microseconds > 1_350_000_000_000_000)
    }
}
