import Testing
import EvrouteChecks
#if canImport(Glibc)
import Glibc
#endif
import EvrouteJSON
import EvrouteDaemon
import EvrouteDaemon
import EvrouteTestSupport

/// A display's idle state in the running daemon: the demo recording twice
/// with a silence of 300 s between, replayed as fast as it goes: the display went idle in the
/// silence and the first touch after it woke it (swallowed). `evroute status` says active since
/// that touch, counts the `wake` filter, and the metrics page has `evroute_idle{display}`.
@Suite("Idle in the daemon's status")
struct IdleStatusTests {
    static let config = DaemonLayout.yaml(displayOptions: "idle: { after-s: 60, swallow-wake-touch: true }", screens: """
        - name: home
          handlers: [{ plugin: log, on: [idle, active] }]
          root: { name: root, frame: [0, 0, 1280, 800], handlers: [{ plugin: log, on: [touch] }] }
        """, blocks: ["metrics:"])

    @Test func statusSaysActiveSinceTheWakeAndCountsTheWakeTouch() throws {
        let rig = try DaemonProcessTests.Rig()
        defer { rig.scratch.cleanUp() }
        _ = rig.scratch.write("evroute.yaml", Self.config)
        let gap = try #require(recordingWithGap(packageRoot + "/demo/touchscreen.events", shift: 300, in: rig.scratch))
        // The daemon in this process (``InProcessDaemon``); `evroute status` below is the binary's client.
        var options = DaemonOptions(configPath: rig.configPath)
        options.controlSocketPath = rig.control
        options.replayPaths = [gap]
        options.keepReplayDevices = true
        let daemon = try InProcessDaemon(options, logPath: rig.scratch.file("daemon.log"))
        try #require(daemon.waitForLog("ready: "), "log:\n\(daemon.log)")
        var status: JSONValue?
        for _ in 0..<100 {
            status = harnessControl("status", rig.control)
            if status?["input"]?.stringValue == "replay finished" { break }
            usleep(100_000)
        }
        try #require(status?["input"]?.stringValue == "replay finished", "log:\n\(daemon.log)")
        let display = try #require(status?["displays"]?.arrayValue?.first)
        expectEqual(display["activity"]?.stringValue, "active", "\(display)")
        // The second copy's first event: 100 s + 300 s.
        expectEqual(display["activity_since"]?.doubleValue, 400, "\(display)")
        let filtered = status?["filtered"]?.arrayValue ?? []
        expectEqual(filtered.map { "\($0["device"]?.stringValue ?? "") \($0["filter"]?.stringValue ?? "") \($0["count"]?.intValue ?? 0)" }, ["touch wake 1"])

        let out = rig.scratch.file("status")
        let text = try TestProcess.daemon(rig.binary, arguments: ["status", "--control-socket", rig.control], logPath: out + ".txt")
        defer { text.kill9() }
        expectEqual(text.waitForExit(seconds: 20), 0)
        expect((readFile(out + ".txt.out") ?? "").contains("; active since t=400"), "\(readFile(out + ".txt.out") ?? "")")
        let page = try TestProcess.daemon(rig.binary, arguments: ["status", "--control-socket", rig.control, "--format", "prometheus"], logPath: out + ".prom")
        defer { page.kill9() }
        expectEqual(page.waitForExit(seconds: 20), 0, "\(readFile(out + ".prom") ?? "")")
        expect((readFile(out + ".prom.out") ?? "").contains("evroute_idle{display=\"main\"} 0\n"), "\(readFile(out + ".prom.out") ?? "")")

        daemon.signal(SIGTERM)
        expectEqual(daemon.waitForExit(seconds: 20), 0)
    }
}
