import EvrouteCore
@testable import EvrouteInput
import Testing
import EvrouteChecks

private func expectSameDescription(_ a: DeviceDescription, _ b: DeviceDescription) {
    expectEqual(a.name, b.name)
    expectEqual([a.bus, a.vendor, a.product, a.version], [b.bus, b.vendor, b.product, b.version])
    expectEqual(a.properties, b.properties)
    expectEqual(a.events, b.events)
    expectEqual(a.absinfo, b.absinfo)
}

@Suite("Evemu writer")
struct EvemuWriterTests {
    @Test("E: lines are written as evemu-record does")
    func eventLines() {
        expectEqual(EvemuWriter.eventLine(InputEvent(time: Timestamp(seconds: 12, microseconds: 3456), type: 3, code: 0x39, value: 7)), "E: 12.003456 0003 0039 0007\n")
        expectEqual(EvemuWriter.eventLine(InputEvent(time: Timestamp(microseconds: 1), type: 3, code: 0x39, value: -1)), "E: 0.000001 0003 0039 -001\n")
        expectEqual(EvemuWriter.eventLine(InputEvent(time: Timestamp(seconds: 1350644052, microseconds: 895553), type: 0, code: 0, value: 123456)), "E: 1350644052.895553 0000 0000 123456\n")
    }

    @Test("The header starts with # EVEMU 1.3 and writes B: lines in 8-byte chunks")
    func header() {
        let d = Devices.protocolB()
        let text = EvemuWriter.header(for: d)
        expect(text.hasPrefix("# EVEMU 1.3\n"))
        expect(text.contains("\nN: synthetic B\n"))
        expect(text.contains("\nI: 0003 0000 0000 0000\n"))
        expect(text.contains("\nP: 02 00 00 00 00 00 00 00\n"))
        expect(text.contains("\nB: 00 0b 00 00 00 00 00 00 00\n"))
        expectEqual(text.split(separator: "\n").filter { $0.hasPrefix("B: 01 ") }.count, 12)
        expect(text.contains("\nB: 01 00 04 00 00 00 00 00 00\n"))
        expect(text.contains("\nA: 2f 0 9 0 0 0\n"))
    }

    @Test("parse(write(x)) == x for a synthetic device with events")
    func roundTripSynthetic() throws {
        var d = Devices.protocolB(pressure: true, major: true, tool: true)
        d.properties = [InputProperty.direct, InputProperty.pointingStick]
        d.absinfo[AbsCode.mtPositionX]?.resolution = 12
        d.absinfo[AbsCode.mtPositionY]?.fuzz = 4
        d.vendor = 0xabcd
        d.version = 0x0110
        var script = EventScript()
        script.id(5); script.position(10, 20); script.key(KeyCode.btnTouch, 1); script.syn()
        script.id(-1); script.key(KeyCode.btnTouch, 0); script.syn()
        let text = EvemuWriter.write(description: d, events: script.events)
        let parsed = try EvemuRecording.parse(text: text, path: "roundtrip")
        expectSameDescription(parsed.description, d)
        expectEqual(parsed.events, script.events)
        expectEqual(parsed.formatVersion, "1.3")
    }

    @Test("parse(write(x)) == x for every real recording")
    func roundTripShared() throws {
        for sub in ["touchscreens", "keyboards"] {
            for name in Recordings.files(in: sub) {
                let original = try EvemuRecording.load(path: Recordings.path(sub, name))
                let parsed = try EvemuRecording.parse(text: EvemuWriter.write(description: original.description, events: original.events), path: name)
                expectSameDescription(parsed.description, original.description)
                expectEqual(parsed.events, original.events, "\(name)")
            }
        }
    }
}
