import Testing
import EvrouteChecks
#if canImport(Glibc)
import Glibc
#endif
import EvrouteDaemon
import EvrouteJSON
import EvrouteSystem
import EvrouteTestSupport

/// The real `evroute` daemon binary, run as a process: systemd notifications, the watchdog,
/// replays into `socket` and `exec` plugins, reload (good and broken), SIGTERM with a touch
/// down, and the idle daemon.
@Suite("Daemon process", .serialized)
struct DaemonProcessTests {
    /// A layout for the demo touchscreen: touches to the `ui` socket, a touch end runs `touch FILE`.
    static func config(socket: String, marker: String, extraRegion: Bool = false) -> String {
        DaemonLayout.yaml(keyboard: "", plugins: ["{ name: ui, type: socket, path: \(socket) }", "{ name: shell, type: exec }"], screens: """
            - name: home
              display: main
              handlers:
                - { plugin: shell, on: [touch-ended], command: [touch, \(marker)] }
              root:
                name: root
                frame: [0, 0, 1280, 800]
                handlers:
                  - { plugin: ui, on: [touch-began, touch-moved, touch-cancelled] }
            \(extraRegion ? "    regions: [{ name: added, frame: [0, 0, 10, 10] }]" : "")
            """, blocks: [DaemonLayout.logFallback])
    }

    /// A config whose line 9 names a display that does not exist.
    static let brokenConfig = """
        displays:
          - name: main
            size: [1280, 800]
        devices: []
        screens:
          - name: home
            display: main
            root: { name: root, frame: [0, 0, 1280, 800] }
          - name: other
            display: nowhere
            root: { name: root, frame: [0, 0, 1280, 800] }

        """

    struct Rig {
        let scratch = Scratch("evroute-daemon-test")
        let binary: String
        let notify: DaemonNotifySocket
        var control: String { scratch.file("control.sock") }
        var configPath: String { scratch.file("evroute.yaml") }
        var uiSocket: String { scratch.file("ui.sock") }
        var marker: String { scratch.file("exec-ran") }

        init() throws {
            guard let binary = evrouteBinaryPath() else { throw TestSupportError("the evroute binary is not next to the test bundle; run `swift build` first") }
            self.binary = binary
            notify = try DaemonNotifySocket(path: scratch.file("notify.sock"))
        }

        func start(_ arguments: [String], environment: [String: String] = [:]) throws -> TestProcess {
            var env = ["NOTIFY_SOCKET": notify.path]
            for (k, v) in environment { env[k] = v }
            return try TestProcess.daemon(binary, arguments: ["--config", configPath, "--control-socket", control] + arguments,
                                     environment: env, logPath: scratch.file("daemon.log"))
        }
    }

    static var demoTouchscreen: String { packageRoot + "/demo/touchscreen.events" }

    @Test("READY, STATUS, RELOADING + MONOTONIC_USEC, READY after reload, STOPPING, exit 0; control socket removed")
    func notifyLifecycle() throws {
        let rig = try Rig()
        defer { rig.scratch.cleanUp() }
        _ = rig.scratch.write("evroute.yaml", Self.config(socket: rig.uiSocket, marker: rig.marker))
        let started = monotonicSeconds()
        let daemon = try rig.start([])
        defer { daemon.kill9() }
        let ready = rig.notify.wait(for: "READY=1")
        let startup = monotonicSeconds() - started
        try #require(ready != nil, "no READY=1; log:\n\(daemon.log)")
        expect(ready!.contains("STATUS=routing 0 device(s)"))
        print("daemon startup to READY=1: \(Int(startup * 1000)) ms")

        _ = rig.scratch.write("evroute.yaml", Self.config(socket: rig.uiSocket, marker: rig.marker, extraRegion: true))
        daemon.signal(SIGHUP)
        let reloading = rig.notify.wait(for: "RELOADING=1")
        try #require(reloading != nil, "no RELOADING=1; log:\n\(daemon.log)")
        let usec = reloading!.split(separator: "\n").first { $0.hasPrefix("MONOTONIC_USEC=") }
        expectEqual(usec.flatMap { Int64($0.dropFirst("MONOTONIC_USEC=".count)) }.map { $0 > 0 }, true)
        expect(rig.notify.wait(for: "READY=1") != nil)
        let status = harnessControl("status", rig.control)
        expectEqual(status?["reloads"]?.intValue, 1)
        expectEqual(status?["layout"]?["regions"]?.intValue, 2)

        daemon.signal(SIGTERM)
        expect(rig.notify.wait(for: "STOPPING=1") != nil)
        expectEqual(daemon.waitForExit(seconds: 20), 0, "log:\n\(daemon.log)")
        expect(access(rig.control, F_OK) != 0, "the control socket is removed at exit")
    }

    @Test("WATCHDOG=1 every WATCHDOG_USEC/2")
    func watchdog() throws {
        let rig = try Rig()
        defer { rig.scratch.cleanUp() }
        _ = rig.scratch.write("evroute.yaml", Self.config(socket: rig.uiSocket, marker: rig.marker))
        let daemon = try rig.start([], environment: ["WATCHDOG_USEC": "200000"])
        defer { daemon.kill9() }
        try #require(rig.notify.wait(for: "READY=1") != nil, "log:\n\(daemon.log)")
        let messages = rig.notify.drain(seconds: 1.0)
        let pings = messages.filter { $0 == "WATCHDOG=1" }.count
        expect(pings >= 5 && pings <= 20, "\(pings) WATCHDOG=1 in 1 s at a 100 ms interval")
        daemon.signal(SIGTERM)
        expectEqual(daemon.waitForExit(seconds: 20), 0)
    }

    @Test("WATCHDOG_PID naming another process turns the watchdog off")
    func watchdogForAnotherProcess() throws {
        let rig = try Rig()
        defer { rig.scratch.cleanUp() }
        _ = rig.scratch.write("evroute.yaml", Self.config(socket: rig.uiSocket, marker: rig.marker))
        let daemon = try rig.start([], environment: ["WATCHDOG_USEC": "100000", "WATCHDOG_PID": "1"])
        defer { daemon.kill9() }
        try #require(rig.notify.wait(for: "READY=1") != nil)
        expect(rig.notify.drain(seconds: 0.5).filter { $0 == "WATCHDOG=1" }.isEmpty)
        daemon.signal(SIGTERM)
        expectEqual(daemon.waitForExit(seconds: 20), 0)
    }

    @Test("--replay into a socket plugin client and an exec handler; --exit-after-replay exits 0")
    func replayReachesPlugins() throws {
        try #require(access(Self.demoTouchscreen, R_OK) == 0, "demo/touchscreen.events is missing")
        let rig = try Rig()
        defer { rig.scratch.cleanUp() }
        _ = rig.scratch.write("evroute.yaml", Self.config(socket: rig.uiSocket, marker: rig.marker))
        let daemon = try rig.start(["--replay", Self.demoTouchscreen, "--replay-paused", "--exit-after-replay"])
        defer { daemon.kill9() }
        try #require(rig.notify.wait(for: "READY=1") != nil, "log:\n\(daemon.log)")
        let client = try LineClient(path: rig.uiSocket)
        expectEqual(harnessControl("replay", rig.control)?["ok"]?.boolValue, true)
        let began = client.wait { $0.contains("\"type\":\"touch\"") && $0.contains("\"phase\":\"began\"") }
        try #require(began != nil, "the socket client got no touch; log:\n\(daemon.log)")
        expect(began!.contains("\"region\":\"home/root\""))
        expect(began!.contains("\"handler\":\"ui\""))
        expectEqual(daemon.waitForExit(seconds: 30), 0, "log:\n\(daemon.log)")
        _ = client.wait(seconds: 10) { _ in false }   // the rest, up to EOF (the daemon closed the socket)
        // The demo's taps (back, title, search, nav-home, nav-info ×2, …) each begin a touch.
        expect(client.lines.filter { $0.contains("\"phase\":\"began\"") }.count >= 8)
        expect(client.lines.contains { $0.contains("\"phase\":\"moved\"") })
        expectEqual(access(rig.marker, F_OK), 0, "the exec handler ran `touch \(rig.marker)`")
    }

    @Test("a real recording replays through the daemon")
    func sharedRecording() throws {
        let dir = packageRoot + "/Tests/Fixtures/recordings/touchscreens"
        let name = "Atmel maXTouch Touchscreen.1-finger-drag-up-down.events"
        try #require(access(dir + "/" + name, R_OK) == 0, "\(dir)/\(name) is missing")
        let rig = try Rig()
        defer { rig.scratch.cleanUp() }
        _ = rig.scratch.write("evroute.yaml", Self.config(socket: rig.uiSocket, marker: rig.marker))
        let daemon = try rig.start(["--replay", dir + "/" + name, "--replay-paused", "--exit-after-replay"])
        defer { daemon.kill9() }
        try #require(rig.notify.wait(for: "READY=1") != nil, "log:\n\(daemon.log)")
        let client = try LineClient(path: rig.uiSocket)
        expectEqual(harnessControl("replay", rig.control)?["ok"]?.boolValue, true)
        expect(client.wait { $0.contains("\"phase\":\"began\"") } != nil, "log:\n\(daemon.log)")
        expectEqual(daemon.waitForExit(seconds: 60), 0)
        expectEqual(access(rig.marker, F_OK), 0, "the drag's end ran the exec handler")
    }

    @Test("SIGHUP with a broken config keeps routing on the old one; the reload answer names file:line:col")
    func brokenReloadKeepsOldConfig() throws {
        try #require(access(Self.demoTouchscreen, R_OK) == 0)
        let rig = try Rig()
        defer { rig.scratch.cleanUp() }
        _ = rig.scratch.write("evroute.yaml", Self.config(socket: rig.uiSocket, marker: rig.marker))
        let daemon = try rig.start(["--replay", Self.demoTouchscreen, "--replay-paused"])
        defer { daemon.kill9() }
        try #require(rig.notify.wait(for: "READY=1") != nil, "log:\n\(daemon.log)")
        let client = try LineClient(path: rig.uiSocket)

        _ = rig.scratch.write("evroute.yaml", Self.brokenConfig)
        daemon.signal(SIGHUP)
        expect(rig.notify.wait(for: "RELOADING=1") != nil)
        let after = rig.notify.wait(for: "READY=1")
        expectEqual(after?.contains("reload failed"), true)
        let answer = harnessControl("reload", rig.control)
        expectEqual(answer?["ok"]?.boolValue, false)
        let errors = (answer?["errors"]?.arrayValue ?? []).compactMap(\.stringValue)
        expect(errors.contains { $0.hasPrefix(rig.configPath + ":10:") && $0.contains("nowhere") }, "\(errors)")

        let status = harnessControl("status", rig.control)
        expectEqual(status?["failed_reloads"]?.intValue, 2)
        expectEqual(status?["layout"]?["screens"]?.intValue, 1, "still the old layout")
        expectEqual(status?["plugins"]?.arrayValue?.compactMap { $0["name"]?.stringValue }, ["ui", "shell", "log"])
        expect(daemon.log.contains(rig.configPath + ":10:"))

        // Routing goes on with the old layout and its plugins.
        expectEqual(harnessControl("replay", rig.control)?["ok"]?.boolValue, true)
        let began = client.wait { $0.contains("\"phase\":\"began\"") }
        expectEqual(began?.contains("\"region\":\"home/root\""), true, "log:\n\(daemon.log)")
        daemon.signal(SIGTERM)
        expectEqual(daemon.waitForExit(seconds: 20), 0)
    }

    @Test("SIGTERM while a touch is down: its cancelled reaches the handler, exit 0")
    func sigtermCancelsTouch() throws {
        try #require(access(Self.demoTouchscreen, R_OK) == 0)
        let rig = try Rig()
        defer { rig.scratch.cleanUp() }
        _ = rig.scratch.write("evroute.yaml", Self.config(socket: rig.uiSocket, marker: rig.marker))
        let recording = rig.scratch.write("finger-down.events", Self.fingerDown())
        let daemon = try rig.start(["--replay", recording, "--keep-replay-devices", "--replay-paused"])
        defer { daemon.kill9() }
        try #require(rig.notify.wait(for: "READY=1") != nil, "log:\n\(daemon.log)")
        let client = try LineClient(path: rig.uiSocket)
        expectEqual(harnessControl("replay", rig.control)?["ok"]?.boolValue, true)
        try #require(client.wait { $0.contains("\"phase\":\"began\"") } != nil, "log:\n\(daemon.log)")
        let status = harnessControl("status", rig.control)
        let touches = status?["touches"]?.arrayValue ?? []
        expectEqual(touches.count, 1)
        expectEqual(touches.first?["region"]?.stringValue, "home/root")
        expectEqual(touches.first?["device"]?.stringValue, "touch")

        daemon.signal(SIGTERM)
        let cancelled = client.wait { $0.contains("\"phase\":\"cancelled\"") }
        expect(cancelled != nil, "no cancelled phase reached the socket client; got \(client.lines.count) lines; log:\n\(daemon.log)")
        expect(rig.notify.wait(for: "STOPPING=1") != nil)
        expectEqual(daemon.waitForExit(seconds: 20), 0)
        expect(access(rig.marker, F_OK) != 0, "a cancelled touch did not end: the touch-ended handler did not run")
    }

    /// The demo recording cut after its third frame: one finger down, never lifted.
    static func fingerDown() -> String {
        var kept: [Substring] = []
        var reports = 0
        for line in readFile(demoTouchscreen)!.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("E:") {
                guard reports < 3 else { break }
                if line.contains(" 0000 0000 0000") { reports += 1 }
            }
            kept.append(line)
        }
        return kept.joined(separator: "\n") + "\n"
    }

    @Test("no devices: READY, idle without wakeups, `evroute status` shows devices and plugins")
    func idleWithoutDevices() throws {
        let rig = try Rig()
        defer { rig.scratch.cleanUp() }
        _ = rig.scratch.write("evroute.yaml", Self.config(socket: rig.uiSocket, marker: rig.marker))
        let daemon = try rig.start([])
        defer { daemon.kill9() }
        try #require(rig.notify.wait(for: "READY=1") != nil, "log:\n\(daemon.log)")
        // Let startup settle, then count the process's voluntary context switches over 5 s.
        _ = rig.notify.drain(seconds: 0.3)
        let before = daemon.threadSum("voluntary_ctxt_switches")
        let wakeupsBefore = harnessControl("status", rig.control)?["loop"]?["wakeups"]?.intValue ?? -1
        let afterControl = daemon.threadSum("voluntary_ctxt_switches")
        _ = rig.notify.drain(seconds: 5)
        let after = daemon.threadSum("voluntary_ctxt_switches")
        let rss = daemon.status("VmRSS") ?? -1
        print("idle daemon: \(after - afterControl) voluntary context switches in 5 s (status request: \(afterControl - before)); VmRSS \(rss) kB")
        expect(after - afterControl <= 2, "idle wakeups: \(after - afterControl)")

        let wakeupsAfter = harnessControl("status", rig.control)?["loop"]?["wakeups"]?.intValue ?? -1
        // Idle, the loop wakes only for the two status requests: the first one's close, the
        // second one's connection and its request (one wake-up, or two when the request's bytes
        // arrive after the loop took the connection). A timer left armed would be ~20 in 5 s.
        expect(wakeupsAfter - wakeupsBefore <= 3, "loop wakeups while idle: only the status requests'")

        // The CLI, as a user runs it.
        let out = rig.scratch.file("status.txt")
        let cli = try TestProcess.daemon(rig.binary, arguments: ["status", "--control-socket", rig.control], logPath: out + ".err")
        defer { cli.kill9() }
        expectEqual(cli.waitForExit(seconds: 20), 0)
        let text = readFile(out + ".err.out") ?? ""
        expect(text.contains("devices (0):"), "\(text)")
        expect(text.contains("plugins (3):"))
        expect(text.contains("ui (socket)"))
        expect(text.contains("shell (exec)"))
        let json = try TestProcess.daemon(rig.binary, arguments: ["status", "--control-socket", rig.control, "--format", "json"], logPath: out + ".json")
        defer { json.kill9() }
        expectEqual(json.waitForExit(seconds: 20), 0)
        let answer = try JSONValue.parse(readFile(out + ".json.out") ?? "")
        expectEqual(answer["devices"]?.arrayValue?.isEmpty, true)
        expectEqual(answer["displays"]?.arrayValue?.first?["active_screen"]?.stringValue, "home")

        daemon.signal(SIGTERM)
        expectEqual(daemon.waitForExit(seconds: 20), 0)
    }

    @Test("a config error at startup: exit 1, file:line:col on stderr, no READY")
    func badConfigAtStartup() throws {
        let rig = try Rig()
        defer { rig.scratch.cleanUp() }
        _ = rig.scratch.write("evroute.yaml", Self.brokenConfig)
        let daemon = try rig.start([])
        defer { daemon.kill9() }
        expectEqual(daemon.waitForExit(seconds: 20), 1)
        expect(daemon.log.contains(rig.configPath + ":10:"), "\(daemon.log)")
        expect(rig.notify.drain(seconds: 0.1).allSatisfy { !$0.contains("READY=1") })
    }

    @Test("`evroute reload` prints the errors and exits 1 on a broken config")
    func reloadCommand() throws {
        let rig = try Rig()
        defer { rig.scratch.cleanUp() }
        _ = rig.scratch.write("evroute.yaml", Self.config(socket: rig.uiSocket, marker: rig.marker))
        let daemon = try rig.start([])
        defer { daemon.kill9() }
        try #require(rig.notify.wait(for: "READY=1") != nil)
        let ok = try TestProcess.daemon(rig.binary, arguments: ["reload", "--control-socket", rig.control], logPath: rig.scratch.file("ok.err"))
        expectEqual(ok.waitForExit(seconds: 20), 0)
        _ = rig.scratch.write("evroute.yaml", Self.brokenConfig)
        let bad = try TestProcess.daemon(rig.binary, arguments: ["reload", "--control-socket", rig.control], logPath: rig.scratch.file("bad.err"))
        expectEqual(bad.waitForExit(seconds: 20), 1)
        expect(bad.log.contains(rig.configPath + ":10:"), "\(bad.log)")
        daemon.signal(SIGTERM)
        expectEqual(daemon.waitForExit(seconds: 20), 0)
    }
}
