import EvrouteCore
@testable import EvrouteInput
import Testing
import EvrouteChecks

/// Accelerometer axes → samples in g.
@Suite("Motion samples")
struct MotionDecoderTests {
    func description(resolution: Int32, range: Int32 = 32768) -> DeviceDescription {
        var d = DeviceDescription(name: "acc", events: [EventType.abs: [AbsCode.x, AbsCode.y, AbsCode.z]])
        for code in [AbsCode.x, AbsCode.y, AbsCode.z] {
            d.absinfo[code] = AbsInfo(minimum: -range, maximum: range, resolution: resolution)
        }
        d.properties = [InputProperty.accelerometer]
        return d
    }

    @Test func samplesInGFromTheResolution() throws {
        var decoder = try #require(MotionDecoder(device: DeviceID(1), description: description(resolution: 8192)))
        expect(!decoder.assumedScale)
        let t = Timestamp(microseconds: 5)
        let a = decoder.feed(InputEvent(time: t, type: EventType.abs, code: AbsCode.y, value: 8192))
        let b = decoder.feed(InputEvent(time: t, type: EventType.abs, code: AbsCode.z, value: -4096))
        expect(a == nil && b == nil)
        let s = decoder.feed(InputEvent(time: t, type: EventType.syn, code: SynCode.report, value: 0))
        expectEqual(s, MotionSample(device: DeviceID(1), time: t, x: 0, y: 1, z: -0.5))
        // Unchanged axes keep their value; a report without a change is no sample.
        let none = decoder.feed(InputEvent(time: t, type: EventType.syn, code: SynCode.report, value: 0))
        expect(none == nil)
        _ = decoder.feed(InputEvent(time: t, type: EventType.abs, code: AbsCode.x, value: -16384))
        let next = decoder.feed(InputEvent(time: t, type: EventType.syn, code: SynCode.report, value: 0))
        expectEqual(next, MotionSample(device: DeviceID(1), time: t, x: -2, y: 1, z: -0.5))
    }

    @Test func withoutResolutionTheRangeIsTwoG() throws {
        var decoder = try #require(MotionDecoder(device: DeviceID(1), description: description(resolution: 0, range: 1024)))
        expect(decoder.assumedScale)
        expectEqual(decoder.unitsPerG.x, 512)
        _ = decoder.feed(InputEvent(time: .zero, type: EventType.abs, code: AbsCode.y, value: 512))
        let s = decoder.feed(InputEvent(time: .zero, type: EventType.syn, code: SynCode.report, value: 0))
        expectEqual(s?.y, 1)
    }

    @Test func accelerometersAreClassifiedSo() {
        expectEqual(DeviceClassifier.kind(of: description(resolution: 8192)), .accelerometer)
        expectEqual(DeviceKind.from(udevProperties: ["ID_INPUT": "1", "ID_INPUT_ACCELEROMETER": "1"]), .accelerometer)
        expect(MotionDecoder(device: DeviceID(1), description: DeviceDescription(name: "kbd", events: [EventType.key: [30]])) == nil)
    }
}
