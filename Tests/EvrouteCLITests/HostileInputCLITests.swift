import EvrouteCore
import EvrouteInput
import Foundation
import Testing
import EvrouteChecks
import EvrouteTestSupport

/// Hostile recordings through the binary: what evroute cannot take is said on
/// stderr, naming the limit, and the rest routes.
@Suite("Hostile input on the command line")
struct HostileInputCLITests {
    /// A touchscreen declaring `slots` slots, every slot touched at once, then all lifted.
    static func manySlotsRecording(slots: Int) -> String {
        let abs: Set<UInt16> = [AbsCode.x, AbsCode.y, AbsCode.mtSlot, AbsCode.mtPositionX, AbsCode.mtPositionY, AbsCode.mtTrackingID]
        let description = DeviceDescription(
            name: "hostile \(slots)-slot panel", bus: BusType.usb, vendor: 0x1209, product: 0x1, version: 1,
            properties: [InputProperty.direct],
            events: [EventType.syn: [0, 1, 2, 3], EventType.key: [KeyCode.btnTouch], EventType.abs: abs],
            absinfo: [AbsCode.x: AbsInfo(minimum: 0, maximum: 999), AbsCode.y: AbsInfo(minimum: 0, maximum: 999),
                      AbsCode.mtSlot: AbsInfo(minimum: 0, maximum: Int32(slots - 1)),
                      AbsCode.mtPositionX: AbsInfo(minimum: 0, maximum: 999), AbsCode.mtPositionY: AbsInfo(minimum: 0, maximum: 999),
                      AbsCode.mtTrackingID: AbsInfo(minimum: 0, maximum: 65535)])
        var events: [InputEvent] = []
        func add(_ us: Int64, _ type: UInt16, _ code: UInt16, _ value: Int32) {
            events.append(InputEvent(time: Timestamp(microseconds: us), type: type, code: code, value: value))
        }
        for s in 0..<slots {
            add(1_000_000, EventType.abs, AbsCode.mtSlot, Int32(s)); add(1_000_000, EventType.abs, AbsCode.mtTrackingID, Int32(s))
            add(1_000_000, EventType.abs, AbsCode.mtPositionX, Int32(s * 3 % 1000)); add(1_000_000, EventType.abs, AbsCode.mtPositionY, 500)
        }
        add(1_000_000, EventType.key, KeyCode.btnTouch, 1); add(1_000_000, EventType.syn, SynCode.report, 0)
        for s in 0..<slots { add(1_100_000, EventType.abs, AbsCode.mtSlot, Int32(s)); add(1_100_000, EventType.abs, AbsCode.mtTrackingID, -1) }
        add(1_100_000, EventType.key, KeyCode.btnTouch, 0); add(1_100_000, EventType.syn, SynCode.report, 0)
        return EvemuWriter.write(description: description, events: events)
    }

    @Test func slotsBeyondTheLimitAreAWarningOnStderrAndTheRestRoutes() throws {
        let path = NSTemporaryDirectory() + "evroute-300-slots-\(UUID().uuidString).events"
        try Self.manySlotsRecording(slots: 300).write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let r = try runEvroute(["--dry-run", "--config", "config/minimal.yaml", "--replay", path])
        expectEqual(r.status, 0, "\(r.err)")
        let warnings = r.err.components(separatedBy: "\n").filter { $0.hasPrefix("warning:") }
        expectEqual(warnings, ["warning: device \"hostile 300-slot panel\": a contact in slot 256 is ignored: evroute tracks at most 256 slots per device (this one declares 300); further ones are ignored too and counted as contacts_dropped in status"],
                "\(r.err)")
        expect(r.out.contains("summary: ") && r.out.contains(" 256 touch(es)"), "\(r.out.suffix(400))")
    }

    @Test func aReplayOfADeviceOrAFIFOIsRefusedAtOnce() throws {
        // `--replay /dev/zero` was read whole, forever; a `--desc` FIFO waited for a writer.
        let fifo = NSTemporaryDirectory() + "evroute-desc-fifo-\(UUID().uuidString)"
        expectEqual(mkfifo(fifo, 0o600), 0)
        defer { unlink(fifo) }
        let zero = try runEvroute(["--dry-run", "--config", "config/minimal.yaml", "--replay", "/dev/zero"])
        expectEqual(zero.status, 1)
        expectEqual(zero.err, "evroute: error: /dev/zero: is a character device, not a regular file; expected a recording (an evemu file)\n")
        let events = NSTemporaryDirectory() + "evroute-no-desc-\(UUID().uuidString).events"
        try "E: 0.000000 0000 0000 0\n".write(toFile: events, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: events) }
        let desc = try runEvroute(["--dry-run", "--config", "config/minimal.yaml", "--replay", events, "--desc", fifo])
        expectEqual(desc.status, 1)
        expect(desc.err.contains("\(fifo): is a FIFO (named pipe), not a regular file; expected a device description"), "\(desc.err)")
    }
}
