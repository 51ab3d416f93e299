import EvrouteCore
@testable import EvrouteInput
import Testing
import EvrouteChecks

/// Counts touches straight from a recording's raw events, independently of `TouchDecoder`.
private func independentTouchCount(_ recording: EvemuRecording) -> Int {
    switch TouchProtocol.of(recording.description) {
    case .slots:
        // Every tracking-ID assignment other than -1 starts a contact (the kernel drops repeats).
        return recording.events.filter { $0.type == EventType.abs && $0.code == AbsCode.mtTrackingID && $0.value >= 0 }.count
    case .contactReports:
        // Contacts per frame = non-empty SYN_MT_REPORT blocks; every increase of the count is a new contact.
        var total = 0, previous = 0, current = 0, blockHasData = false
        for e in recording.events {
            if e.type == EventType.abs && (e.code == AbsCode.mtPositionX || e.code == AbsCode.mtPositionY) { blockHasData = true }
            if e.type == EventType.syn && e.code == SynCode.mtReport {
                if blockHasData { current += 1 }
                blockHasData = false
            }
            if e.type == EventType.syn && e.code == SynCode.report {
                total += max(0, current - previous)
                previous = current
                current = 0
            }
        }
        return total
    case .singleTouch:
        var total = 0, down = false
        for e in recording.events where e.type == EventType.key && e.code == KeyCode.btnTouch {
            if e.value != 0 && !down { total += 1 }
            down = e.value != 0
        }
        return total
    case .none:
        return 0
    }
}

private func replay(_ recording: EvemuRecording) -> [TouchFrameInput] {
    let decoder = TouchDecoder(device: DeviceID(1), description: recording.description, displaySize: Size(width: 1920, height: 1080))
    var frames = recording.events.compactMap { decoder.feed($0) }
    if let last = decoder.cancelAll(at: recording.events.last?.time ?? .zero) { frames.append(last) }
    return frames
}

@Suite("Real recordings")
struct RecordingCorpusTests {
    static let touchscreenFiles = Recordings.eventFiles(in: "touchscreens")
    static let keyboardFiles = Recordings.files(in: "keyboards").map { Recordings.path("keyboards", $0) }

    @Test("The recordings are in the repository: 26 touchscreen recordings with events, 8 keyboard files")
    func recordingsArePresent() {
        expect(FileBytes.isFile(Recordings.directory + "/README.md"), "\(Recordings.directory) is missing")
        expect(FileBytes.isFile(Recordings.directory + "/LICENSE"))
        expectEqual(Self.touchscreenFiles.count, 26, "\(Self.touchscreenFiles)")
        expectEqual(Self.keyboardFiles.count, 8, "\(Self.keyboardFiles)")
    }

    @Test("Every touchscreen recording: touches found = touches counted from the raw events, each begins and ends once", arguments: touchscreenFiles)
    func touchscreen(_ path: String) throws {
        let recording = try EvemuRecording.load(path: path)
        expect(!recording.events.isEmpty)
        let frames = replay(recording)
        let life = lifecycle(frames)
        let expected = independentTouchCount(recording)
        expect(expected > 0)
        expectEqual(life.touches, expected, "\(path)")
        expect(life.problems.isEmpty, "\(life.problems.prefix(3))")
        expectEqual(life.open, 0)
        // Every sample lies on the display.
        for frame in frames {
            for sample in frame.contacts {
                expect(sample.location.x >= 0 && sample.location.x <= 1920 && sample.location.y >= 0 && sample.location.y <= 1080)
            }
        }
    }

    @Test("N-Trig two fingers: exactly two touches, the remaining finger keeps its identity")
    func nTrigTwoFingers() throws {
        let recording = try EvemuRecording.load(path: Recordings.path("touchscreens", "N-Trig MultiTouch.2-fingers-touch-release.events"))
        expectEqual(TouchProtocol.of(recording.description), .contactReports)
        let frames = replay(recording)
        let began = frames.flatMap(\.contacts).filter { $0.change == .began }
        expectEqual(began.count, 2)
        let ended = frames.flatMap(\.contacts).filter { $0.change == .ended }
        expectEqual(ended.count, 2)
        expect(frames.flatMap(\.contacts).allSatisfy { $0.change != .cancelled })
    }

    @Test("A single-touch device: the Atmel taps with their MT axes removed")
    func singleTouchFromRealEvents() throws {
        var recording = try EvemuRecording.load(path: Recordings.path("touchscreens", "Atmel maXTouch Touchscreen.1-finger-fast-taps.events"))
        recording.description.events[EventType.abs] = [AbsCode.x, AbsCode.y]
        expectEqual(TouchProtocol.of(recording.description), .singleTouch)
        let frames = replay(recording)
        let life = lifecycle(frames)
        expectEqual(life.touches, 9)
        expectEqual(life.touches, independentTouchCount(recording))
        expect(life.problems.isEmpty)
        expectEqual(life.open, 0)
    }

    @Test("Every keyboard recording: parses, and key downs = EV_KEY value-1 events", arguments: keyboardFiles)
    func keyboard(_ path: String) throws {
        let recording = try EvemuRecording.load(path: path)
        var decoder = KeyDecoder(device: DeviceID(1), description: recording.description)
        let keys = recording.events.compactMap { decoder.feed($0) }
        let downs = recording.events.filter { $0.type == EventType.key && $0.value == 1 }.count
        expectEqual(keys.filter { $0.phase == .down }.count, downs)
        expectEqual(keys.filter { $0.phase == .up }.count, recording.events.filter { $0.type == EventType.key && $0.value == 0 }.count)
        expect(keys.allSatisfy { $0.name.hasPrefix("KEY_") || $0.name.hasPrefix("BTN_") })
    }
}
