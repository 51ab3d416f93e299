import EvrouteCore
@testable import EvrouteInput
import Glibc
import Testing
import EvrouteChecks
import EvrouteTestSupport

/// A scratch directory for files the split-description tests need.
private func scratchDirectory() -> String {
    temporaryDirectory("evroute-input-test")
}

private func writeFile(_ path: String, _ text: String) {
    let file = fopen(path, "w")!
    fputs(text, file)
    fclose(file)
}

private let description10 = """
N: Test Panel
I: 0003 04f3 0732 0110
P: 02 00 00 00 00 00 00 00
B: 00 0b 00 00 00 00 00 00 00
B: 01 00 00 00 00 00 00 00 00
B: 01 00 00 00 00 00 00 00 00
B: 01 00 00 00 00 00 00 00 00
B: 01 00 00 00 00 00 00 00 00
B: 01 00 00 00 00 00 00 00 00
B: 01 00 04 00 00 00 00 00 00
B: 03 03 00 00 00 00 80 60 02
A: 00 0 1920 0 0
A: 01 0 1080 0 0
A: 2f 0 9 0 0
A: 35 0 1920 0 0
A: 36 0 1080 0 0
A: 39 0 65535 0 0

"""

@Suite("Evemu parser")
struct EvemuParserTests {
    @Test("EVEMU 1.0 form: no header, A: lines without resolution, plain E: lines")
    func version10() throws {
        let text = description10 + "E: 1350644052.895553 0003 0039 35\nE: 1350644052.895558 0003 0035 513\nE: 1350644052.895593 0000 0000 0\n"
        let recording = try EvemuRecording.parse(text: text, path: "v10")
        let d = recording.description
        expect(recording.formatVersion == nil)
        expectEqual(d.name, "Test Panel")
        expect((d.bus, d.vendor, d.product, d.version) == (0x03, 0x04f3, 0x0732, 0x0110))
        expectEqual(d.properties, [InputProperty.direct])
        expectEqual(Set(d.events.keys), [EventType.syn, EventType.key, EventType.abs])
        expectEqual(d.events[EventType.key], [KeyCode.btnTouch])   // byte 6 of the 2nd chunk... accumulated: 0x14a
        expectEqual(d.events[EventType.abs], [0x00, 0x01, 0x2f, 0x35, 0x36, 0x39])
        expectEqual(d.absinfo[0x00], AbsInfo(minimum: 0, maximum: 1920))
        expectEqual(d.absinfo[0x2f]?.maximum, 9)
        expectEqual(recording.events, [
            InputEvent(time: Timestamp(seconds: 1350644052, microseconds: 895553), type: 3, code: 0x39, value: 35),
            InputEvent(time: Timestamp(seconds: 1350644052, microseconds: 895558), type: 3, code: 0x35, value: 513),
            InputEvent(time: Timestamp(seconds: 1350644052, microseconds: 895593), type: 0, code: 0, value: 0),
        ])
    }

    @Test("EVEMU 1.1: header and resolution")
    func version11() throws {
        let text = "# EVEMU 1.1\n# Input device name: \"X\"\nN: X\nI: 0003 056a 005d 0005\nP: 00 00 00 00 00 00 00 00\nB: 00 09 00 00 00 00 00 00 00\nB: 03 03 00 00 00 00 00 00 00\nA: 00 0 4648 4 0 10\nA: 01 0 2556 0 0 10\nE: 0.000000 0003 0000 100\n"
        let recording = try EvemuRecording.parse(text: text, path: "v11")
        expectEqual(recording.formatVersion, "1.1")
        expectEqual(recording.description.absinfo[0], AbsInfo(minimum: 0, maximum: 4648, fuzz: 4, flat: 0, resolution: 10))
        expectEqual(recording.events.count, 1)
    }

    @Test("EVEMU 1.3: comments, zero-padded values, negative values, trailing comments on E: lines, CRLF")
    func version13() throws {
        let text = "# EVEMU 1.3\r\n# Kernel: 4.14\r\n" + description10.replacing("\n", with: "\r\n") +
            "################################\r\n#      Waiting for events      #\r\n" +
            "E: 0.000001 0003 0039 0007\t# EV_ABS / ABS_MT_TRACKING_ID   7\r\n" +
            "E: 0.054565 0003 0039 -001\t# EV_ABS / ABS_MT_TRACKING_ID   -1\r\n" +
            "E: 0.054565 0000 0000 0000\t# ------------ SYN_REPORT (0) ---------- +54ms\r\n"
        let recording = try EvemuRecording.parse(text: text, path: "v13")
        expectEqual(recording.formatVersion, "1.3")
        expectEqual(recording.description.name, "Test Panel")
        expectEqual(recording.events.map(\.value), [7, -1, 0])
        expectEqual(recording.events[1].time, Timestamp(microseconds: 54565))
    }

    @Test("B: lines for one type accumulate in 8-byte chunks")
    func bitmaskChunks() throws {
        let text = "N: K\nI: 0003 0001 0002 0003\nB: 00 03 00 00 00 00 00 00 00\nB: 01 fe ff ff ff 00 00 00 00\nB: 01 00 00 00 00 00 00 00 00\nB: 01 01 00 00 00 00 00 00 00\n"
        let d = try EvemuRecording.parse(text: text, path: "k").description
        expectEqual(d.events[EventType.key], Set((1...31).map(UInt16.init) + [128]))
    }

    @Test("A description-only file has no events")
    func descriptionOnly() throws {
        let recording = try EvemuRecording.parse(text: description10, path: "d")
        expect(recording.events.isEmpty)
        expectEqual(recording.description.path, "d")
    }

    @Test("An events-only file takes its description from NAME.desc, the longest NAME first; an explicit file only when there is none")
    func siblingDescription() throws {
        let dir = scratchDirectory()
        writeFile(dir + "/Panel.desc", description10)
        writeFile(dir + "/Panel.two-fingers.events", "E: 5.000001 0003 0039 1\nE: 5.000001 0000 0000 0\n")
        let recording = try EvemuRecording.load(path: dir + "/Panel.two-fingers.events")
        expectEqual(recording.description.name, "Test Panel")
        expectEqual(recording.description.path, dir + "/Panel.desc")
        expectEqual(recording.events.count, 2)

        // --desc does not replace a description that exists (a sibling here).
        writeFile(dir + "/Other.txt", description10.replacing("Test Panel", with: "Explicit"))
        let explicit = try EvemuRecording.load(path: dir + "/Panel.two-fingers.events", descriptionPath: dir + "/Other.txt")
        expectEqual(explicit.description.name, "Test Panel")
        writeFile(dir + "/Lone.tap.events", "E: 5.000001 0000 0000 0\n")
        try expectEqual(try EvemuRecording.load(path: dir + "/Lone.tap.events", descriptionPath: dir + "/Other.txt").description.name, "Explicit")

        // A device name that itself contains a dot.
        writeFile(dir + "/Acme 2.0 Panel.desc", description10)
        writeFile(dir + "/Acme 2.0 Panel.tap.events", "E: 1.000000 0000 0000 0\n")
        try expectEqual(try EvemuRecording.load(path: dir + "/Acme 2.0 Panel.tap.events").description.name, "Test Panel")
        expectEqual(EvemuRecording.siblingDescriptionPaths(for: "/d/NAME.what.events"), ["/d/NAME.what.desc", "/d/NAME.desc"])
        expectEqual(EvemuRecording.siblingDescriptionPaths(for: "/d/X.hp8470p.scroll.events"), ["/d/X.hp8470p.scroll.desc", "/d/X.hp8470p.desc", "/d/X.desc"])
    }

    /// Copies a real recording into `dir` under another name.
    func copyRecording(_ subdirectory: String, _ name: String, to path: String) throws {
        let bytes = try #require(try? FileBytes.read(Recordings.path(subdirectory, name)).get())
        writeFile(path, String(decoding: bytes, as: UTF8.self))
    }

    @Test("Real recordings: X.hp8470p.what.events reads X.hp8470p.desc, not a generic X.desc")
    func longestPrefixOnRealRecordings() throws {
        let dir = scratchDirectory()
        let wacom = "Wacom ISDv4 E6 Finger"
        // The machine's own description and a generic one under the shorter name (a different panel).
        try copyRecording("touchscreens", "\(wacom).desc", to: "\(dir)/\(wacom).hp8470p.desc")
        try copyRecording("touchscreens", "QUANTA OpticalTouchScreen.desc", to: "\(dir)/\(wacom).desc")
        try copyRecording("touchscreens", "\(wacom).single-tap-center.events", to: "\(dir)/\(wacom).hp8470p.single-tap-center.events")
        let recording = try EvemuRecording.load(path: "\(dir)/\(wacom).hp8470p.single-tap-center.events")
        expectEqual(recording.description.name, wacom)
        expectEqual(recording.description.path, "\(dir)/\(wacom).hp8470p.desc")
        expectEqual(recording.events.count, 10)
        // Without the machine's own, the generic one is taken.
        try copyRecording("touchscreens", "\(wacom).single-tap-center.events", to: "\(dir)/\(wacom).other.single-tap-center.events")
        try expectEqual(try EvemuRecording.load(path: "\(dir)/\(wacom).other.single-tap-center.events").description.name, "QUANTA OpticalTouchScreen")
    }

    @Test("Real recordings: --desc never replaces a keyboard's own description; it describes a recording that has none")
    func explicitDescriptionOnlyForRecordingsWithout() throws {
        let touchscreenDesc = Recordings.path("touchscreens", "QUANTA OpticalTouchScreen.desc")
        let keyboard = try EvemuRecording.load(path: Recordings.path("keyboards", "Logitech K400 Plus.events"), descriptionPath: touchscreenDesc)
        expectEqual(keyboard.description.name, "Logitech K400 Plus")
        let dir = scratchDirectory()
        try copyRecording("touchscreens", "QUANTA OpticalTouchScreen.events", to: "\(dir)/capture.events")
        let bare = try EvemuRecording.load(path: "\(dir)/capture.events", descriptionPath: touchscreenDesc)
        expectEqual(bare.description.name, "QUANTA OpticalTouchScreen")
        expectEqual(bare.description.path, touchscreenDesc)
        #expect(throws: Diagnostic.self) { try EvemuRecording.load(path: "\(dir)/capture.events") }
    }

    @Test("Real recordings: a timestamp going backwards is a warning with path:line, replayed in file order")
    func backwardsTimestampsWarn() throws {
        let name = "Wacom ISDv4 E6 Finger.single-tap-center.events"
        let original = try #require(try? FileBytes.read(Recordings.path("touchscreens", name)).get())
        try expect(try EvemuRecording.load(path: Recordings.path("touchscreens", name)).warnings.isEmpty)
        var lines = String(decoding: original, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        // Line 5 (1-based) goes one second back.
        expect(lines[4].hasPrefix("E: 1330495931."))
        lines[4] = lines[4].replacing("E: 1330495931.", with: "E: 1330495930.")
        let dir = scratchDirectory()
        writeFile("\(dir)/\(name)", lines.joined(separator: "\n"))
        try copyRecording("touchscreens", "Wacom ISDv4 E6 Finger.desc", to: "\(dir)/Wacom ISDv4 E6 Finger.desc")
        let recording = try EvemuRecording.load(path: "\(dir)/\(name)")
        expectEqual(recording.warnings.map(\.line), [5])
        expectEqual(recording.warnings.first?.description.hasPrefix("\(dir)/\(name):5: warning: timestamp 1330495930.101123 goes backwards (the event before is at 1330495931.101120)"), true,
                "\(recording.warnings)")
        try expectEqual(recording.events.count, (try EvemuRecording.load(path: Recordings.path("touchscreens", name)).events.count))

        // Many: ten kept with their lines, the rest counted in one more.
        var many = ["N: Many", "I: 0003 0001 0001 0001"]
        for i in 0..<30 { many.append("E: \(i % 2 == 0 ? 2 : 1).000000 0000 0000 0") }
        let bounded = try EvemuRecording.parse(text: many.joined(separator: "\n") + "\n", path: "many")
        expectEqual(bounded.warnings.count, 11)
        expectEqual(bounded.warnings.last?.description, "many: warning: 5 more timestamp(s) going backwards after line 22")
    }

    @Test("Events before any description, with no sibling, name the line")
    func missingDescription() throws {
        let dir = scratchDirectory()
        writeFile(dir + "/Lonely.tap.events", "# just events\nE: 1.000000 0003 0000 5\n")
        let error = #expect(throws: Diagnostic.self) { try EvemuRecording.load(path: dir + "/Lonely.tap.events") }
        expectEqual(error?.line, 2)
        expectEqual(error?.file, dir + "/Lonely.tap.events")
        expectEqual(error?.description.hasPrefix(dir + "/Lonely.tap.events:2: E: line before any device description"), true)
    }

    @Test("A missing file is reported with its path")
    func missingFile() {
        let error = #expect(throws: Diagnostic.self) { try EvemuRecording.load(path: "/nonexistent/x.events") }
        expectEqual(error?.line, 0)
        expectEqual(error?.message.contains("cannot open"), true)
    }

    static let malformed: [(String, Int, String)] = [
        ("N: A\nI: 0003 zz 0001 0000\n", 2, "I: expects 4 hex numbers"),
        ("N: A\nI: 0003 0001 0001\n", 2, "I: expects 4 hex numbers"),
        ("N: A\nI: 0003 0001 0001 0000 0007\n", 2, "I: has more than 4 fields"),
        ("N: A\nP: 02 0g\n", 2, "P: expects hex bytes"),
        ("N: A\nP:\n", 2, "P: has no bytes"),
        ("N: A\nB: 01 00 123\n", 2, "B: expects hex bytes"),
        ("N: A\nB: xx 00\n", 2, "B: expects an event type"),
        ("N: A\nB: 40 00\n", 2, "beyond EV_MAX"),
        ("N: A\nA: 00 0 100\n", 2, "A: expects `code min max fuzz flat [resolution]`"),
        ("N: A\nA: 00 0 100 0 0 0 7\n", 2, "A: expects"),
        ("N: A\nA: 0q 0 100 0 0\n", 2, "A: expects"),
        ("N: A\nE: 1.0 0003 0000\n", 2, "E: expects"),
        ("N: A\nE: 1 0003 0000 5\n", 2, "E: expects"),
        ("N: A\nE: 1.0000001 0003 0000 5\n", 2, "E: expects"),
        ("N: A\nE: 1.000001 0003 0000 5x\n", 2, "E: expects"),
        ("N: A\nE: 1.000001 0003 0000 99999999999\n", 2, "E: expects"),
        ("N: A\nE: 1.000001 10003 0000 5\n", 2, "E: expects"),
        ("N: A\n\nX: what\n", 3, "unknown line type `X:`"),
        ("N: A\ngarbage\n", 2, "not an evemu line"),
        ("N:   \n", 1, "N: has no device name"),
        ("N: A\nN: B\n", 2, "second N: line"),
        ("N: A\nE: 1.000001 0003 0000 5\nA: 00 0 1 0 0\n", 3, "description line after E: lines"),
        ("I: 0003 0001 0001 0000\n", 1, "no N: (name) line"),
    ]

    @Test("Every malformed line is reported as path:line with what was wrong", arguments: 0..<malformed.count)
    func malformedLines(_ index: Int) {
        let (text, line, message) = Self.malformed[index]
        let error = #expect(throws: Diagnostic.self) { try EvemuRecording.parse(text: text, path: "bad.events") }
        expectEqual(error?.file, "bad.events")
        expectEqual(error?.line, line, "\(text.debugDescription)")
        expectEqual(error?.message.contains(message), true, "\(error?.message ?? "none") should mention \(message)")
        expectEqual(error?.description.hasPrefix("bad.events:\(line): "), true)
    }

    @Test("Every real recording parses")
    func sharedRecordingsParse() throws {
        var count = 0
        for sub in ["touchscreens", "keyboards"] {
            for name in Recordings.files(in: sub) {
                let recording = try EvemuRecording.load(path: Recordings.path(sub, name))
                expect(!recording.description.name.isEmpty, "\(name)")
                expect(!recording.description.events.isEmpty, "\(name)")
                count += 1
            }
        }
        expect(count >= 40)
        // Spot checks against the files.
        let atmel = try EvemuRecording.load(path: Recordings.path("touchscreens", "Atmel maXTouch Touchscreen.2-fingers-touch-release.events"))
        expectEqual(atmel.events.count, 64)
        expectEqual(atmel.events.first, InputEvent(time: Timestamp(microseconds: 1), type: 3, code: 0x39, value: 7))
        expectEqual(atmel.description.bus, 0x18)
        expectEqual(atmel.description.absinfo[AbsCode.mtSlot]?.maximum, 9)
        let quanta = try EvemuRecording.load(path: Recordings.path("touchscreens", "QUANTA OpticalTouchScreen.events"))
        expectEqual(quanta.description.name, "QUANTA OpticalTouchScreen")
        expectEqual(quanta.events.count, 2832)
        expectEqual(quanta.events.first?.time, Timestamp(seconds: 1350644052, microseconds: 895553))
    }

    /// Every event of the largest recording, each line read once. Its speed is a benchmark
    /// (`make bench`, "Replay Wacom DTH2242: parse only"), not an assertion here.
    @Test("The 16,593-event DTH2242 recording parses whole")
    func parseWhole() throws {
        let path = Recordings.path("touchscreens", "Wacom DTH2242 Finger.events")
        let bytes = try FileBytes.read(path).get()
        let recording = try EvemuRecording.parse(bytes: bytes, path: path)
        expectEqual(recording.events.count, 16593)
        expect(recording.warnings.isEmpty)
    }
}
