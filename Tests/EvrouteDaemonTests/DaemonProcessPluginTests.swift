import Testing
import EvrouteChecks
#if canImport(Glibc)
import Glibc
#endif
import EvrouteDaemon
import EvrouteJSON
import EvrouteSystem
import EvrouteTestSupport

/// The real daemon with a `process` plugin that misbehaves: a helper that crashes is restarted,
/// one that hangs is timed out — and meanwhile every event keeps routing (each one that the
/// helper does not take walks on to the screen's `socket` handler, whose client sees it).
@Suite("Daemon process: misbehaving process plugins", .serialized)
struct DaemonProcessPluginTests {
    static func config(helper: [String], socket: String, deadlineMs: Int = 30) -> String {
        DaemonLayout.yaml(plugins: [
            "{ name: helper, type: process, command: [\(helper.map { "\"\($0)\"" }.joined(separator: ", "))], deadline-ms: \(deadlineMs), restart-min-ms: 50 }",
            "{ name: ui, type: socket, path: \(socket) }",
        ], screens: """
            - name: home
              display: main
              handlers: [{ plugin: ui, on: [touch] }]
              root:
                name: root
                frame: [0, 0, 1280, 800]
                handlers: [{ plugin: helper, on: [touch] }]
            """)
    }

    /// Runs the demo replay through a daemon whose root region's handler is `helper`; returns
    /// the socket client's lines and the helper's statistics from `evroute status`.
    func run(helper script: String, realtime: Bool = false, deadlineMs: Int = 30) throws -> (lines: [String], stats: JSONValue?, log: String, dryRunTouchEvents: Int) {
        let demo = packageRoot + "/demo/touchscreen.events"
        try #require(access(demo, R_OK) == 0, "demo/touchscreen.events is missing")
        guard let binary = evrouteBinaryPath() else { throw TestSupportError("the evroute binary is not next to the test bundle") }
        let scratch = Scratch("evroute-daemon-test")
        defer { scratch.cleanUp() }
        let helper = scratch.write("helper.sh", script)
        chmod(helper, 0o755)
        let socket = scratch.file("ui.sock"), control = scratch.file("control.sock")
        let config = scratch.write("evroute.yaml", Self.config(helper: [helper], socket: socket, deadlineMs: deadlineMs))
        // The same layout's touch events as the dry-run routes them (no handler runs there).
        let dryRun = try TestProcess.run(binary, ["--config", config, "--dry-run", "--replay", demo, "--format", "json"]).out
        let dryRunTouchEvents = dryRun.split(separator: "\n").filter { $0.contains("\"type\":\"touch\"") }.count
        let notify = try DaemonNotifySocket(path: scratch.file("notify.sock"))
        let daemon = try TestProcess.daemon(binary, arguments: ["--config", config, "--control-socket", control,
                                                           "--replay", demo, "--replay-paused"] + (realtime ? ["--replay-realtime"] : []),
                                       environment: ["NOTIFY_SOCKET": notify.path], logPath: scratch.file("daemon.log"))
        defer { daemon.kill9() }
        try #require(notify.wait(for: "READY=1") != nil, "log:\n\(daemon.log)")
        let client = try LineClient(path: socket)
        expectEqual(harnessControl("replay", control)?["ok"]?.boolValue, true)
        // The replay is over once the device is removed: its last touch has ended by then.
        _ = client.wait(seconds: 40) { _ in
            harnessControl("status", control)?["events"]?["devices_removed"]?.intValue ?? 0 >= 1
        }
        // Then until every event has been taken by the helper or reached the client (its last
        // answers or time-outs may still be due, its last lines still on their way), bounded.
        func helperStats() -> JSONValue? {
            harnessControl("status", control)?["plugins"]?.arrayValue?.first { $0["name"]?.stringValue == "helper" }
        }
        var stats = helperStats()
        let settled = monotonicSeconds() + 30
        while monotonicSeconds() < settled {
            let walkedOn = client.lines.filter { $0.contains("\"type\":\"touch\"") }.count
            if (stats?["handled"]?.intValue ?? 0) + walkedOn >= dryRunTouchEvents { break }
            _ = client.wait(seconds: 0.2) { _ in false }
            stats = helperStats()
        }
        daemon.signal(SIGTERM)
        expectEqual(daemon.waitForExit(seconds: 10), 0, "log:\n\(daemon.log)")
        return (client.lines, stats, daemon.log, dryRunTouchEvents)
    }

    @Test("a helper that never answers: every event times out and walks on to the next handler")
    func hangingHelperIsTimedOut() throws {
        let (lines, stats, log, expected) = try run(helper: "#!/bin/sh\nexec sleep 600\n")
        let touches = lines.filter { $0.contains("\"type\":\"touch\"") }
        expectEqual(touches.count, expected, "every event walked on to the socket; log:\n\(log)")
        expect(touches.allSatisfy { $0.contains("\"handled_by\":\"screen:home\"") && $0.contains("\"handler\":\"ui\"") })
        expect(Set(touches.compactMap { $0.contains("\"phase\":\"began\"") ? $0 : nil }).count >= 8)
        expect((stats?["timed_out"]?.intValue ?? 0) >= touches.count - 2, "\(String(describing: stats))")
        expectEqual((stats?["handled"]?.intValue ?? -1), 0)
    }

    @Test("a helper that crashes is restarted and answers again; events meanwhile walk on")
    func crashingHelperIsRestarted() throws {
        // Answers `handled` to three events, then dies; every restart does the same. The id is
        // cut out by the shell itself (no process per event), and the deadline is long: the
        // answers count however busy the machine is (what this checks is the restart).
        let script = """
            #!/bin/sh
            n=0
            while IFS= read -r line; do
              id=${line#*\\"id\\":}
              id=${id%%[!0-9]*}
              printf '{"id":%s,"handled":true}\\n' "$id"
              n=$((n + 1))
              [ "$n" -ge 3 ] && exit 1
            done

            """
        // Paced by the recording (≈ 10 s), so events keep coming after each restart.
        let (lines, stats, log, expected) = try run(helper: script, realtime: true, deadlineMs: 2000)
        let restarts = stats?["restarts"]?.intValue ?? 0
        let handled = stats?["handled"]?.intValue ?? 0
        expect(restarts >= 1, "\(String(describing: stats))\nlog:\n\(log)")
        expect(handled > 3, "answers after a restart: \(String(describing: stats))")
        // What the helper did not take reached the socket handler; nothing was lost.
        let walkedOn = lines.filter { $0.contains("\"type\":\"touch\"") }.count
        expect(walkedOn > 0)
        expectEqual(handled + walkedOn, expected, "every touch event was either taken by the helper or walked on")
    }
}
