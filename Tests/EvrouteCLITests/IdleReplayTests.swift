import Foundation
import Testing
import EvrouteChecks
import EvrouteConfig
import EvrouteCore
@testable import EvrouteRuntime
import EvrouteTestSupport

/// Idle and the wake touch on a replay: the demo touchscreen recording
/// twice, the second time after a silence of a few minutes. The idle deadline fires at the
/// event time live input would have it fire (the last input plus `after-s`), before the first
/// touch after the gap; that touch wakes the display and, with `swallow-wake-touch`, is
/// swallowed whole.
@Suite("Idle on a replay")
struct IdleReplayTests {
    static let recording = packagePath("demo/touchscreen.events")
    /// How far the second copy is shifted (seconds).
    static let shift = 300.0

    /// The recording, then again `shift` seconds later: its path.
    static func withGap(in scratch: Scratch) throws -> String {
        try #require(recordingWithGap(recording, shift: shift, in: scratch))
    }

    /// The demo touchscreen's display with `idle` (its `idle:` field, or nil for none).
    static func yaml(idle: String?) -> String {
        DaemonLayout.yaml(displayOptions: idle, screens: """
            - name: home
              handlers:
                - { plugin: log, on: [idle, active] }
              root:
                name: root
                frame: [0, 0, 1280, 800]
                handlers:
                  - { plugin: log, on: [touch] }
            """)
    }

    func trace(_ path: String, idle: String?) throws -> [[String: Any]] {
        let (_, layout) = try ConfigLoader.compile(yaml: Self.yaml(idle: idle), file: "idle.yaml")
        let sink = MemorySink()
        let dry = DryRun(layout: layout, format: .json, sink: sink, errors: MemorySink())
        try dry.runReplays(paths: [path], descriptionPath: nil)
        return try sink.lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
    }

    /// A touch line without its touch number (numbers move when a touch is swallowed).
    func touchLine(_ o: [String: Any]) -> String {
        "\(o["phase"]!) \(o["time"]!) \(o["x"]!) \(o["y"]!)"
    }

    func touches(_ objects: [[String: Any]]) -> [[String: Any]] { objects.filter { $0["type"] as? String == "touch" } }

    @Test func idleFiresAtTheLastInputPlusAfterAndTheWakeTouchIsSwallowedWhole() throws {
        let scratch = Scratch("evroute-idle")
        defer { scratch.cleanUp() }
        let path = try Self.withGap(in: scratch)
        let plain = try trace(path, idle: nil)
        let idle = try trace(path, idle: "idle: { after-s: 60, swallow-wake-touch: true }")

        let plainTouches = touches(plain)
        let firstHalf = plainTouches.filter { ($0["time"] as! Double) < 100 + Self.shift }
        let lastInput = try #require(firstHalf.last?["time"] as? Double)
        // One idle, at the last input plus after-s, before anything of the second half; then
        // active at the first input after the gap.
        let activity = idle.filter { ["idle", "active"].contains($0["type"] as? String) }
        expectEqual(activity.map { $0["type"] as? String }, ["idle", "active"])
        let idleTime = try #require(activity.first?["time"] as? Double)
        expect(abs(idleTime - (lastInput + 60)) < 1e-6, "idle at \(idleTime), last input \(lastInput)")
        expect(activity.allSatisfy { $0["display"] as? String == "main" && $0["handled_by"] as? String == "screen:home" && $0["handler"] as? String == "log" })
        let types = idle.compactMap { $0["type"] as? String }
        let idleIndex = try #require(types.firstIndex(of: "idle")), activeIndex = try #require(types.firstIndex(of: "active"))
        expect(idle[..<idleIndex].allSatisfy { ($0["time"] as? Double ?? 0) <= idleTime })
        expect(idle[(idleIndex + 1)...].allSatisfy { ($0["time"] as? Double ?? .infinity) >= idleTime })
        // The wake touch: one filtered line, right after active.
        expect(types[activeIndex + 1] == "filtered" && idle[activeIndex + 1]["filter"] as? String == "wake")
        expectEqual(idle.filter { $0["type"] as? String == "filtered" }.count, 1)

        // Every phase of the first touch after the gap is absent, and nothing else is.
        let secondHalf = plainTouches.filter { ($0["time"] as! Double) >= 100 + Self.shift }
        let wakeID = try #require(secondHalf.first?["touch"] as? Int)
        let wakePhases = secondHalf.filter { $0["touch"] as? Int == wakeID }
        expect(wakePhases.count >= 2 && wakePhases.last?["phase"] as? String == "ended")
        let expected = plainTouches.filter { !($0["touch"] as? Int == wakeID) }.map(touchLine)
        expectEqual(touches(idle).map(touchLine), expected)
    }

    /// Without `swallow-wake-touch` every touch is routed as without `idle:`; idle and active
    /// are the only lines added.
    @Test func withoutSwallowEveryTouchIsRouted() throws {
        let scratch = Scratch("evroute-idle")
        defer { scratch.cleanUp() }
        let path = try Self.withGap(in: scratch)
        let plain = try trace(path, idle: nil)
        let idle = try trace(path, idle: "idle: { after-s: 60 }")
        expectEqual(idle.filter { ["idle", "active"].contains($0["type"] as? String) }.count, 2)
        expectEqual(touches(idle).map(touchLine), touches(plain).map(touchLine))
        expectEqual(touches(idle).map { $0["touch"] as? Int }, touches(plain).map { $0["touch"] as? Int })
    }

    /// The daemon, on the same replay: the `log` handler writes `display main idle` and
    /// `display main active`, from the one encoder.
    @Test func theDaemonLogsIdleAndActive() throws {
        let binary = try evrouteBinary()
        let scratch = Scratch("evroute-idle-daemon")
        defer { scratch.cleanUp() }
        let path = try Self.withGap(in: scratch)
        let config = scratch.write("evroute.yaml", Self.yaml(idle: "idle: { after-s: 60, swallow-wake-touch: true }"))
        let run = try TestProcess.run(binary, ["--config", config, "--control-socket", scratch.file("control.sock"),
                                               "--exit-after-replay", "--replay", path])
        expectEqual(run.status, 0, "\(run.err)")
        let lines = run.err.split(separator: "\n")
        let idle = lines.filter { $0.contains("display main idle") }, active = lines.filter { $0.contains("display main active") }
        expect(idle.count == 1 && active.count == 1, "\(run.err)")
        expectEqual(idle.first?.contains("screen:home"), true, "\(run.err)")
        expect(lines.filter { $0.contains("filtered") && $0.contains("wake") }.count <= 1)

        // The text trace and the monitor say it in words, from the same fields.
        let text = try TestProcess.run(binary, ["--dry-run", "--config", config, "--replay", path])
        expectEqual(text.status, 0, "\(text.err)")
        let textLines = text.out.split(separator: "\n")
        expectEqual(textLines.filter { $0.contains("display main idle") && $0.contains("→ screen:home [log]") }.count, 1, "\(text.out)")
        expectEqual(textLines.filter { $0.contains("display main active") }.count, 1)
        expectEqual(textLines.filter { $0.contains("filtered wake") && $0.contains("not routed") }.count, 1, "\(text.out)")
        // The summary counts what the filters took (the wake touch) beside the touches routed.
        expectEqual((text.out + text.err).split(separator: "\n").filter { $0.hasPrefix("summary:") && $0.contains(" (and 1 filtered contact(s)),") }.count, 1,
                "\(text.out)\(text.err)")
        let monitor = try TestProcess.run(binary, ["monitor", "--config", config, "--replay", path])
        expectEqual(monitor.status, 0, "\(monitor.err)")
        let monitorLines = monitor.out.split(separator: "\n")
        expectEqual(monitorLines.filter { $0.contains("display") && $0.contains("main idle → taken by screen:home [log]") }.count, 1, "\(monitor.out)")
        expectEqual(monitorLines.filter { $0.contains("filtered") && $0.contains("wake") }.count, 1, "\(monitor.out)")
    }
}
