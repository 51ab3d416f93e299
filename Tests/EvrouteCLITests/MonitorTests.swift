import Foundation
import Testing

/// `evroute monitor` through the binary: on real recordings (devices, the rule that takes each or
/// why none does, touches with their region and responder, keys with their first responder, the
/// summary line agreeing with the dry-run trace's own counts), and live on a machine without
/// input devices (it says so and waits).
@Suite("monitor")
struct MonitorTests {
    static let touchOnly = """
        displays: [{ name: main, size: [1280, 800] }]
        devices: [{ name: touch, match: { kind: touchscreen } }]
        screens:
          - name: home
            root:
              name: root
              frame: [0, 0, 1280, 800]
              handlers: [{ plugin: log, on: touch-ended }]
              regions:
                - { name: left, frame: [0, 0, 640, 800], handlers: [{ plugin: log, on: touch }] }
        """

    func write(_ text: String) throws -> String {
        let path = NSTemporaryDirectory() + "evroute-monitor-\(UUID().uuidString).yaml"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test(.enabled(if: sharedRecordings != nil, "shared recordings not found at ../shared/recordings"))
    func devicesTouchesAndWhyADeviceIsNotRouted() throws {
        let root = try #require(sharedRecordings)
        let config = try write(Self.touchOnly)
        defer { try? FileManager.default.removeItem(atPath: config) }
        let touch = "\(root)/touchscreens/Atmel maXTouch Touchscreen.2-fingers-touch-release.events"
        let keyboard = "\(root)/keyboards/Logitech K400 Plus.events"
        let r = try runEvroute(["monitor", "--config", config, "--replay", touch, "--replay", keyboard])
        #expect(r.status == 0, "\(r.err)")
        let lines = r.out.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.contains("device  + \"Atmel maXTouch Touchscreen\" (touchscreen) \(touch): rule touch takes it, display main") }, "\(r.out)")
        #expect(lines.contains { $0.contains("\"Logitech K400 Plus\" (keyboard) not routed: no device rule takes it: rule touch wants kind touchscreen, not keyboard") }, "\(r.out)")

        // Each touch's region and responder, as the dry-run trace has them at `began`.
        let trace = try runEvroute(["--dry-run", "--format", "json", "--config", config, "--replay", touch, "--replay", keyboard])
        let began = trace.out.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .filter { $0["type"] as? String == "touch" && $0["phase"] as? String == "began" }
        let downs = lines.filter { $0.contains("  touch   ") && $0.contains(" down at ") }
        #expect(began.count == 2 && downs.count == began.count, "\(downs)")
        for (event, line) in zip(began, downs) {
            let region = event["region"] as? String ?? "no region"
            let taker = (event["handled_by"] as? String).map { "taken by \($0) [\(event["handler"] as! String)]" } ?? "unhandled"
            #expect(line.contains("\(event["touch"] as! Int) down at ") && line.hasSuffix("in \(region) → \(taker)"), "\(line) vs \(event)")
        }
        let ups = lines.filter { $0.contains("  touch   ") && $0.contains(" up at ") }
        #expect(ups.count == 2 && ups.allSatisfy { $0.contains(" move(s)") })

        // The summary agrees with the trace.
        let summary = try #require(lines.last)
        let moved = trace.out.split(separator: "\n").filter { $0.contains("\"type\":\"touch\"") }.count
        #expect(summary.hasPrefix("summary: "), "\(summary)")
        #expect(summary.contains("from 1 device(s); 2 touch(es), 0 key press(es)"), "\(summary)")
        #expect(summary.contains("\(moved) event(s) handled, 0 unhandled") || summary.contains("event(s) handled"), "\(summary)")
        #expect(trace.err.hasPrefix("summary: "), "the JSON dry-run's summary goes to stderr: \(trace.err)")
        #expect(trace.err.split(separator: "\n").first.map(String.init) == summary)
    }

    @Test func keysWithTheirFirstResponder() throws {
        let r = try runEvroute(["monitor", "--config", "config/demo.yaml", "--replay", "demo/touchscreen.events", "--replay", "demo/keyboard.events"])
        #expect(r.status == 0, "\(r.err)")
        let lines = r.out.split(separator: "\n").map(String.init)
        // The demo taps the search field (it becomes first responder), then types "demo" and Enter.
        #expect(lines.contains { $0.contains("focus   screen home: first responder home/root/header/search") })
        let keys = lines.filter { $0.contains("  key     ") }
        #expect(keys.contains { $0.contains("KEY_D down, first responder home/root/header/search → taken by home/root/header/search [ui]") }, "\(keys)")
        #expect(keys.contains { $0.contains("KEY_O up (after ") && $0.contains("repeat(s))") }, "a held key's repeats are counted on release")
        #expect(!keys.contains { $0.contains(" repeat,") })
        let summary = try #require(lines.last)
        #expect(summary.contains("5 key press(es)"), "\(summary)")
    }

    /// Live, with no input device (as on this machine): it says so and waits until stopped.
    @Test func liveWithoutDevicesSaysSoAndWaits() throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: try evrouteBinary())
        p.arguments = ["monitor", "--config", "config/demo.yaml"]
        p.currentDirectoryURL = URL(fileURLWithPath: repoRoot)
        let out = Pipe()
        p.standardOutput = out
        p.standardError = Pipe()
        try p.run()
        var text = ""
        let deadline = Date().addingTimeInterval(10)
        while !text.contains("\n"), Date() < deadline {
            let data = out.fileHandleForReading.availableData
            if data.isEmpty { break }
            text += String(decoding: data, as: UTF8.self)
        }
        #expect(p.isRunning, "monitor must keep waiting for a device")
        p.interrupt()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        let udevHasDevices = FileManager.default.fileExists(atPath: "/dev/input") &&
            ((try? FileManager.default.contentsOfDirectory(atPath: "/dev/input"))?.contains { $0.hasPrefix("event") } ?? false)
        if !udevHasDevices {
            #expect(text.contains("no input device yet — waiting for one"), "\(text)")
        }
    }
}
