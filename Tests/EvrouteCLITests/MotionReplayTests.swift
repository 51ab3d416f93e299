import Foundation
import Testing
import EvrouteChecks
import EvrouteConfig
import EvrouteCore
import EvrouteInput
@testable import EvrouteRuntime
import EvrouteTestSupport

/// Accelerometers in the dry-run, on recordings synthesized from a DualShock 4's
/// motion-sensor description: samples in g to the `motion:` handlers only (at `motion.rate`),
/// orientation changes there too, a shake from the first responder up the chain.
@Suite("Motion in the dry-run")
struct MotionReplayTests {
    static let sensors = deviceFixtures + "/motion-sensors.desc"
    static let noResolution = deviceFixtures + "/accelerometer-no-resolution.desc"

    static let yaml = """
        displays: [{ name: main, size: [800, 480] }]
        devices: [{ name: tilt, match: { kind: accelerometer } }]
        screens:
          - name: home
            root:
              name: root
              frame: [0, 0, 800, 480]
              regions:
                - { name: game, frame: [0, 0, 400, 480], focusable: true, handlers: [{ plugin: log, on: motion }] }
        motion:
          rate: 5
          handlers: [{ plugin: log, on: [motion, orientation] }]
        fallback: { handlers: [{ plugin: log, on: [any] }] }
        """

    /// Accelerometer events: one frame of (x, y, z) in g every `step` seconds from `start`,
    /// in the description's units (8192 per g).
    static func frames(_ gs: [(Double, Double, Double)], start: Double, step: Double = 0.01, unitsPerG: Double = 8192) -> [InputEvent] {
        var out: [InputEvent] = []
        for (i, g) in gs.enumerated() {
            let t = Timestamp(microseconds: Int64((start + Double(i) * step) * 1_000_000))
            for (code, v) in [(AbsCode.x, g.0), (AbsCode.y, g.1), (AbsCode.z, g.2)] {
                out.append(InputEvent(time: t, type: EventType.abs, code: code, value: Int32((v * unitsPerG).rounded())))
            }
            out.append(InputEvent(time: t, type: EventType.syn, code: SynCode.report, value: 0))
        }
        return out
    }

    func run(_ events: [InputEvent], description: String = sensors, warnings: inout [String]) throws -> [[String: Any]] {
        let dir = try Typist.scratch()
        let path = try writeRecording(description: description, events: events, name: "motion.events", in: dir)
        let (_, layout) = try ConfigLoader.compile(yaml: Self.yaml, file: "motion.yaml")
        let sink = MemorySink()
        let dry = DryRun(layout: layout, format: .json, sink: sink, errors: MemorySink())
        var said: [String] = []
        dry.warn = { said.append($0) }
        dry.session.router.setFirstResponder(layout.region(path: "home/root/game"))
        try dry.runReplays(paths: [path], descriptionPath: nil)
        warnings = said
        return try sink.lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
    }

    @Test("Samples in g reach only the motion handlers; turned, the orientation changes")
    func samplesAndOrientation() throws {
        // 1 s upright (100 Hz), then a quarter turn clockwise over 0.5 s, then 1 s on its side.
        var g: [(Double, Double, Double)] = Array(repeating: (0, 1, 0), count: 100)
        for i in 1...50 {
            let a = Double.pi / 2 * Double(i) / 50
            g.append((-sin(a), cos(a), 0))
        }
        g += Array(repeating: (-1, 0, 0), count: 100)
        var warnings: [String] = []
        let objects = try run(Self.frames(g, start: 10), warnings: &warnings)
        expect(warnings.isEmpty)
        expectEqual(objects.first { $0["type"] as? String == "device-added" }?["kind"] as? String, "accelerometer")
        let samples = objects.filter { $0["type"] as? String == "motion" && $0["motion"] == nil }
        // 2.5 s at 5 a second.
        expect(samples.count >= 12 && samples.count <= 13, "\(samples.count)")
        expect(samples.allSatisfy { $0["handled_by"] as? String == "motion" && $0["region"] == nil && $0["device"] as? String == "tilt" })
        expect(samples.first?["y"] as? Double == 1.0 && samples.first?["x"] as? Double == 0.0)
        expectEqual(samples.last?["x"] as? Double, -1.0)
        let orientations = objects.filter { $0["type"] as? String == "orientation" }
        expectEqual(orientations.map { $0["orientation"] as? String }, ["portrait", "landscape"])
        expect(orientations.allSatisfy { $0["handled_by"] as? String == "motion" })
        // The turn passes 60° (45° + the 15° hysteresis) at its 34th step: 10 + (100 + 33) × 0.01 s.
        expect(abs((orientations.last?["time"] as? Double ?? 0) - 11.33) < 0.0001)
        expect(!objects.contains { $0["motion"] as? String == "shake" })
    }

    @Test("A shake is routed from the first responder: began, then ended after its window")
    func shake() throws {
        var g: [(Double, Double, Double)] = Array(repeating: (0, 1, 0), count: 20)
        // Shaken sideways at 3 Hz, ±2.5 g, for a second (100 samples a second).
        for i in 0..<100 { g.append((2.5 * sin(2 * Double.pi * 3 * Double(i) / 100), 1, 0)) }
        g += Array(repeating: (0, 1, 0), count: 100)
        var warnings: [String] = []
        let objects = try run(Self.frames(g, start: 5), warnings: &warnings)
        let shakes = objects.filter { $0["motion"] as? String == "shake" }
        expectEqual(shakes.map { $0["phase"] as? String }, ["began", "ended"])
        expect(shakes.allSatisfy { $0["region"] as? String == "home/root/game" && $0["handled_by"] as? String == "home/root/game" })
        expectEqual(shakes.first.map { Set($0.keys) }, ["type", "time", "device", "motion", "phase", "region", "handled_by", "handler"])
    }

    @Test("An axis without resolution: ±2 g assumed, with a warning")
    func noResolution() throws {
        var warnings: [String] = []
        let objects = try run(Self.frames([(0, 1, 0), (0, 0.5, 0)], start: 1, unitsPerG: 512), description: Self.noResolution,
                              warnings: &warnings)
        expectEqual(warnings.count, 1)
        expectEqual(warnings.first?.contains("an accelerometer axis has no resolution; its range is taken as ±2 g"), true)
        expectEqual(objects.first { $0["type"] as? String == "motion" }?["y"] as? Double, 1.0)
    }

    @Test("The text trace")
    func textTrace() throws {
        let dir = try Typist.scratch()
        let recording = try writeRecording(description: Self.sensors, events: Self.frames([(0, 1, 0.05)], start: 1), name: "m.events", in: dir)
        let configPath = dir.appendingPathComponent("m.yaml").path
        try Self.yaml.write(toFile: configPath, atomically: true, encoding: .utf8)
        let r = try runEvroute(["--config", configPath, "--dry-run", "--replay", recording])
        expectEqual(r.status, 0, "\(r.err)")
        expect(r.out.contains("tilt       motion (0.0, 1.0, 0.05) g"), "\(r.out)")
        expect(r.out.contains("tilt       orientation portrait"), "\(r.out)")
        expect(r.out.contains("→ motion [log]"))
        expect(r.out.contains("2 motion event(s)"), "\(r.out)")
    }
}
