import Foundation
import Testing
import EvrouteChecks
import EvrouteTestSupport

/// The recording conventions through the binary, on a real recording: a timestamp going backwards
/// is a warning on stderr naming path:line while the trace on stdout stays complete; `--desc`
/// does not replace a keyboard's own description.
@Suite("Recordings on the command line")
struct RecordingWarningsCLITests {
    @Test func backwardsTimestampIsAWarningAndTheTraceIsWhole() throws {
        let dir = recordingsDirectory + "/touchscreens"
        let name = "Wacom ISDv4 E6 Finger.single-tap-center.events"
        var lines = try String(contentsOfFile: "\(dir)/\(name)", encoding: .utf8).components(separatedBy: "\n")
        lines[4] = lines[4].replacingOccurrences(of: "E: 1330495931.", with: "E: 1330495930.")
        let edited = NSTemporaryDirectory() + "evroute-backwards-\(UUID().uuidString).events"
        try lines.joined(separator: "\n").write(toFile: edited, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: edited) }
        let desc = "\(dir)/Wacom ISDv4 E6 Finger.desc"
        let r = try runEvroute(["--dry-run", "--config", "config/demo.yaml", "--replay", edited, "--desc", desc])
        expectEqual(r.status, 0, "\(r.err)")
        expect(r.err.hasPrefix("\(edited):5: warning: timestamp 1330495930.101123 goes backwards"), "\(r.err)")
        let clean = try runEvroute(["--dry-run", "--config", "config/demo.yaml", "--replay", "\(dir)/\(name)", "--desc", desc])
        expect(clean.err.isEmpty, "\(clean.err)")
        expectEqual(r.out, clean.out, "the trace changed")
    }

    @Test func descDoesNotReplaceAKeyboardsOwnDescription() throws {
        let root = recordingsDirectory
        let r = try runEvroute(["--dry-run", "--config", "config/demo.yaml", "--replay", "\(root)/keyboards/Logitech K400 Plus.events",
                                "--desc", "\(root)/touchscreens/QUANTA OpticalTouchScreen.desc"])
        expectEqual(r.status, 0, "\(r.err)")
        expect(r.out.contains("device added    \"Logitech K400 Plus\" (keyboard)"), "\(r.out.prefix(400))")
    }
}
