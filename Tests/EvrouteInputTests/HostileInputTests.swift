import EvrouteCore
@testable import EvrouteInput
import Glibc
import Testing
import EvrouteChecks
import EvrouteTestSupport

private let display = Size(width: 1000, height: 1000)

/// Device input at the edges of what the kernel can send: nothing traps, nothing
/// is lost without a word.
@Suite("Hostile device input")
struct HostileInputTests {
    @Test("Protocol A contacts jumping across the whole Int32 range match without overflow")
    func protocolAExtremeJump() {
        let decoder = TouchDecoder(device: DeviceID(2), description: Devices.protocolA(), displaySize: display)
        var s = EventScript()
        func contact(_ x: Int32, _ y: Int32) { s.position(x, y); s.syn(SynCode.mtReport) }
        contact(.max, .max); s.syn()
        contact(.min, .min); s.syn()                       // one contact jumps 2^32 - 1 on both axes
        contact(.max, .max); contact(.min, .min); s.syn()  // a second lands where the first was
        s.syn(SynCode.mtReport); s.syn()                   // both lift
        let frames = decode(decoder, s.events)
        expectEqual(frames.map { $0.contacts.map { "\($0.contact):\($0.change)" } }, [
            ["1:began"], ["1:moved"], ["2:began"], ["2:ended", "1:ended"],
        ])
        expect(lifecycle(frames).problems.isEmpty)
    }

    @Test("The nearest-contact distance saturates instead of overflowing")
    func distanceSaturates() {
        expectEqual(ContactMatcher.squaredDistance(x0: .max, y0: .max, x1: .min, y1: .min), .max)
        expectEqual(ContactMatcher.squaredDistance(x0: .max, y0: 0, x1: .min, y1: 0), 18_446_744_065_119_617_025)
        expectEqual(ContactMatcher.squaredDistance(x0: 3, y0: 4, x1: 0, y1: 0), 25)
    }
}

/// Contacts beyond what the decoder tracks are counted and warned about once, naming the
/// limit; points the mapping cannot make finite are dropped with a warning (a device
/// declaring 300 slots with 300 fingers down gave 256 touches, a protocol-A frame of 33
/// contacts gave 32, and a 1e308 calibration made every point null — all without a word).
@Suite("Device input past the decoder's limits")
struct DecoderLimitTests {
    @Test func slotsBeyondTheLimitAreCountedAndWarnedOnce() {
        let decoder = TouchDecoder(device: DeviceID(1), description: Devices.protocolB(slots: 300), displaySize: display)
        expectEqual(decoder.touchProtocol, .slots(count: TouchProtocol.maximumSlots))
        var s = EventScript()
        for slot in 0..<300 { s.slot(Int32(slot)); s.id(Int32(slot)); s.position(Int32(slot), 10) }
        s.syn()
        for slot in 0..<300 { s.slot(Int32(slot)); s.id(-1) }
        s.syn()
        let frames = decode(decoder, s.events)
        let life = lifecycle(frames)
        expectEqual(life.touches, 256)
        expect(life.open == 0 && life.problems.isEmpty)
        expectEqual(decoder.droppedContacts, 44)
        expectEqual(decoder.takeWarnings(), [.slotBeyondLimit(slot: 256, declared: 300)])
        expect("\(TouchDecoder.Warning.slotBeyondLimit(slot: 256, declared: 300))".contains("at most 256 slots per device (this one declares 300)"))
        expect(!decoder.hasWarnings)
    }

    @Test func protocolAFramesBeyondTheLimitAreCountedAndWarnedOnce() {
        let decoder = TouchDecoder(device: DeviceID(2), description: Devices.protocolA(), displaySize: display)
        var s = EventScript()
        for frame in 0..<2 {
            for i in 0..<33 { s.position(Int32(i * 20 + frame), 10); s.syn(SynCode.mtReport) }
            s.syn()
        }
        s.syn(SynCode.mtReport); s.syn()
        let frames = decode(decoder, s.events)
        expectEqual(lifecycle(frames).touches, 32)
        expectEqual(decoder.droppedContacts, 2)
        expectEqual(decoder.takeWarnings(), [.tooManyContacts])
    }

    @Test func pointsThatMapToNoFinitePointAreDroppedWithAWarning() {
        // A calibration far past the config's range (a programmatic one): every point overflows.
        let decoder = TouchDecoder(device: DeviceID(3), description: Devices.protocolB(), displaySize: display,
                                   calibration: CalibrationMatrix(1e308, 0, 0, 0, 1e308, 0))
        var s = EventScript()
        s.slot(0); s.id(1); s.position(0, 0); s.syn()            // maps to (0, 0): finite
        s.position(900, 900); s.syn()                            // 1e308 · 0.9 · 1000: inf
        s.position(950, 950); s.syn()
        s.id(-1); s.syn()                                        // ends at an infinite point
        s.slot(1); s.id(2); s.position(500, 500); s.syn()        // begins at an infinite point
        s.id(-1); s.syn()
        let frames = decode(decoder, s.events)
        for f in frames { for c in f.contacts where c.change == .began || c.change == .moved { expect(c.location.isFinite) } }
        expectEqual(frames.flatMap(\.contacts).map { "\($0.contact):\($0.change)" }, ["1:began", "1:ended", "2:ended"])
        expectEqual(decoder.droppedSamples, 5)
        expectEqual(decoder.takeWarnings(), [.nonFiniteCoordinates(x: 900, y: 900)])
    }

    @Test func aUdevCalibrationOutOfRangeIsIgnoredWithAWarning() {
        var d = Devices.protocolB()
        d.udevProperties["LIBINPUT_CALIBRATION_MATRIX"] = "1e308 0 0 0 1 0"
        let decoder = TouchDecoder(device: DeviceID(4), description: d, displaySize: display)
        expectEqual(decoder.mapper?.calibration, .identity)
        expectEqual(decoder.takeWarnings(), [.calibrationPropertyIgnored("1e308 0 0 0 1 0")])
        expect(CalibrationMatrix(udevProperty: "1000 0 -1000 0 1 0") != nil)
        expect(CalibrationMatrix(udevProperty: "1000.5 0 0 0 1 0") == nil)
    }
}

/// Recording files that are not files, or too large: refused before reading, with the path
/// (`--replay /dev/zero` and a `--desc` that never ends were read whole, forever).
@Suite("Hostile recording files", .serialized)
struct HostileRecordingFileTests {
    func scratch(_ name: String) -> String {
        temporaryPath("evroute-hostile-\(name)")
    }

    @Test func devicesFIFOsAndDirectoriesAreRefusedWithoutReading() throws {
        let fifo = scratch("fifo")
        unlink(fifo)
        expectEqual(mkfifo(fifo, 0o600), 0)
        defer { unlink(fifo) }
        // Opening a FIFO with no writer would block, reading /dev/zero would never end: each
        // must come back at once with a message naming the path.
        for (path, words) in [("/dev/zero", "is a character device, not a regular file; expected a recording"),
                              (fifo, "is a FIFO (named pipe), not a regular file; expected a recording"),
                              ("/tmp", "is a directory; expected a recording")] {
            do {
                _ = try EvemuRecording.load(path: path)
                Issue.record("\(path) was read")
            } catch {
                expectEqual(error.description, "\(path): \(words) (an evemu file)")
            }
        }
        do {
            _ = try EvemuRecording.loadDescription(path: "/dev/zero")
            Issue.record("/dev/zero was read as a description")
        } catch {
            expectEqual(error.description, "/dev/zero: is a character device, not a regular file; expected a device description (an evemu file)")
        }
    }

    @Test func filesPastTheSizeLimitsAreRefusedWithoutReading() throws {
        // Sparse files: the size is checked before a byte is read.
        let big = scratch("big.events"), desc = scratch("big.desc")
        defer { unlink(big); unlink(desc) }
        for (path, size) in [(big, EvemuRecording.maximumRecordingSize + 1), (desc, EvemuRecording.maximumDescriptionSize + 1)] {
            let fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0o600)
            expect(fd >= 0)
            expectEqual(ftruncate(fd, off_t(size)), 0)
            close(fd)
        }
        #expect(throws: Diagnostic(recording: big, line: 0, message: "is larger than 256 MiB (268435456 bytes), the most evroute reads for a recording")) {
            _ = try EvemuRecording.load(path: big)
        }
        #expect(throws: Diagnostic(recording: desc, line: 0, message: "is larger than 1 MiB (1048576 bytes), the most evroute reads for a device description")) {
            _ = try EvemuRecording.loadDescription(path: desc)
        }
        // The limit holds while reading too (a file that grows): read through the same path.
        let small = scratch("small")
        defer { unlink(small) }
        let fd = open(small, O_CREAT | O_TRUNC | O_WRONLY, 0o600)
        expectEqual(write(fd, "0123456789", 10), 10)
        close(fd)
        #expect(throws: Diagnostic(recording: small, line: 0, message: "is larger than 9 bytes, the most evroute reads for a test")) {
            _ = try FileBytes.read(small, limit: 9, what: "a test").get()
        }
        expectEqual((try? FileBytes.read(small, limit: 10, what: "a test").get())?.count, 10)
    }

    @Test func anIdentityLineMayEndInBlanks() throws {
        let text = "N: X\nI: 0003 0001 0002 0003 \t\nI: 0003 0001 0002 0003 # bus vendor product version\n"
        let recording = try EvemuRecording.parse(text: text)
        expect(recording.description.vendor == 1 && recording.description.product == 2 && recording.description.version == 3)
        #expect(throws: Diagnostic(recording: "<recording>", line: 2, message: "I: has more than 4 fields")) {
            _ = try EvemuRecording.parse(text: "N: X\nI: 0003 0001 0002 0003 0004 \n")
        }
    }
}
