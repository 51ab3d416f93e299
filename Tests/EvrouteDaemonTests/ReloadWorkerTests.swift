import Testing
import EvrouteChecks
#if canImport(Glibc)
import Glibc
#endif
import EvrouteDaemon
import EvrouteJSON
import CLinux
import EvrouteSystem
import EvrouteTestSupport

/// A reload reads and compiles the config off the loop (a 4 MiB config stalled routing
/// and the control socket for the whole compile). The real daemon binary on a config large
/// enough that its compile takes far longer than a status round trip (20,000 regions chained
/// by `next`: seconds in a debug build): other requests are answered and input routed while it
/// compiles, the reload's client is answered when it ends, reloads asked for meanwhile coalesce,
/// and SIGTERM does not wait for it. Every check is on the order of events (systemd's
/// `RELOADING=1`, `status` saying `reloading`), none on how long anything took.
@Suite("Reload off the loop", .serialized)
struct ReloadWorkerTests {
    /// Regions in the large configs: far more than a status round trip to compile in any build.
    static let regions = 20_000

    /// Screen `screen` with `regions` children of its root, each `next` to the one after it,
    /// every touch to the `ui` socket (as ``DaemonProcessTests/config(socket:marker:extraRegion:)``
    /// does, so that plugin keeps running across the reload). `lastNext` is the last one's `next`.
    static func chainedConfig(socket: String, screen: String = "big", regions: Int = ReloadWorkerTests.regions,
                              lastNext: String = "root") -> String {
        var lines = [
            "- name: \(screen)", "  display: main", "  root:", "    name: root", "    frame: [0, 0, 1280, 800]",
            "    handlers: [{ plugin: ui, on: [touch-began, touch-moved, touch-cancelled] }]", "    regions:",
        ]
        lines.reserveCapacity(lines.count + regions)
        for i in 0..<regions {
            let next = i + 1 < regions ? "r\(i + 1)" : lastNext
            lines.append("      - { name: r\(i), frame: [\(i % 1000), \(i / 1000 * 10), 1, 1], next: \(next) }")
        }
        return DaemonLayout.yaml(plugins: ["{ name: ui, type: socket, path: \(socket) }"], screens: lines.joined(separator: "\n"))
    }

    /// A control connection of its own: a request sent now, its answer read later.
    final class Client {
        let connection: LineClient
        init(_ path: String, send request: String) throws {
            connection = try LineClient(path: path)
            let line = request + "\n"
            _ = line.withCString { Glibc.send(connection.fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
        }
        private var taken = 0
        /// The next answer line (waits up to `seconds` for it).
        func answer(seconds: Double = 60) -> JSONValue? {
            let index = taken
            _ = connection.wait(seconds: seconds) { [connection] _ in connection.lines.count > index }
            guard connection.lines.count > index else { return nil }
            taken += 1
            return try? JSONValue.parse(connection.lines[index])
        }
    }

    static func status(_ rig: DaemonProcessTests.Rig) -> JSONValue? { harnessControl("status", rig.control) }

    /// Replaces the config file at once (a new file renamed over it), as an editor or a package
    /// upgrade does.
    static func replace(_ rig: DaemonProcessTests.Rig, _ text: String) {
        let temporary = rig.scratch.write("evroute.yaml.new", text)
        expectEqual(rename(temporary, rig.configPath), 0)
    }

    @Test("status is answered, saying reloading, while a large config compiles; the reload's answer follows")
    func statusDuringReload() throws {
        let rig = try DaemonProcessTests.Rig()
        defer { rig.scratch.cleanUp() }
        _ = rig.scratch.write("evroute.yaml", DaemonProcessTests.config(socket: rig.uiSocket, marker: rig.marker))
        let daemon = try rig.start([])
        defer { daemon.kill9() }
        try #require(rig.notify.wait(for: "READY=1") != nil, "log:\n\(daemon.log)")
        expectEqual(Self.status(rig)?["reloading"]?.boolValue, false)

        _ = rig.scratch.write("evroute.yaml", Self.chainedConfig(socket: rig.uiSocket))
        let reload = try Client(rig.control, send: #"{"command":"reload"}"#)
        try #require(rig.notify.wait(for: "RELOADING=1") != nil, "log:\n\(daemon.log)")
        // The compile has started: status, on another connection, is answered before it ends.
        let during = Self.status(rig)
        expectEqual(during?["ok"]?.boolValue, true)
        expectEqual(during?["reloading"]?.boolValue, true, "\(during?.serialized ?? "no answer")")
        expectEqual(during?["reloads"]?.intValue, 0)
        expectEqual(during?["layout"]?["regions"]?.intValue, 1, "still the old layout")
        // And the layout commands.
        let state = RuntimeControlProcessTests.request([("command", .string("state"))], rig.control)
        expectEqual(state?["displays"]?.arrayValue?.first?["active_screen"]?.stringValue, "home")

        let answer = reload.answer()
        expectEqual(answer?["ok"]?.boolValue, true, "\(answer?.serialized ?? "no answer"); log:\n\(daemon.log)")
        expectEqual(answer?["reloads"]?.intValue, 1)
        expectEqual(answer?["config"]?.stringValue, rig.configPath)
        let after = Self.status(rig)
        expectEqual(after?["reloading"]?.boolValue, false)
        expectEqual(after?["reloads"]?.intValue, 1)
        expectEqual(after?["layout"]?["regions"]?.intValue, Self.regions + 1)
        expectEqual(after?["displays"]?.arrayValue?.first?["active_screen"]?.stringValue, "big")
        expect(rig.notify.wait(for: "READY=1") != nil, "READY=1 when the reload is done")
        expect(daemon.log.contains("off the loop"), "\(daemon.log)")

        daemon.signal(SIGTERM)
        expectEqual(daemon.waitForExit(seconds: 20), 0, "log:\n\(daemon.log)")
    }

    @Test("a replay is routed to a socket plugin client while a large config compiles")
    func routingDuringReload() throws {
        try #require(access(DaemonProcessTests.demoTouchscreen, R_OK) == 0)
        let rig = try DaemonProcessTests.Rig()
        defer { rig.scratch.cleanUp() }
        _ = rig.scratch.write("evroute.yaml", DaemonProcessTests.config(socket: rig.uiSocket, marker: rig.marker))
        let daemon = try rig.start(["--replay", DaemonProcessTests.demoTouchscreen, "--replay-paused"])
        defer { daemon.kill9() }
        try #require(rig.notify.wait(for: "READY=1") != nil, "log:\n\(daemon.log)")
        let ui = try LineClient(path: rig.uiSocket)

        _ = rig.scratch.write("evroute.yaml", Self.chainedConfig(socket: rig.uiSocket))
        let reload = try Client(rig.control, send: #"{"command":"reload"}"#)
        try #require(rig.notify.wait(for: "RELOADING=1") != nil, "log:\n\(daemon.log)")
        expectEqual(harnessControl("replay", rig.control)?["ok"]?.boolValue, true)
        let began = ui.wait { $0.contains("\"phase\":\"began\"") }
        try #require(began != nil, "no touch reached the socket client; log:\n\(daemon.log)")
        expect(began!.contains("\"region\":\"home/root\""), "routed on the running layout: \(began!)")
        // The touch was routed before this status, which still finds the reload compiling.
        let during = Self.status(rig)
        expectEqual(during?["reloading"]?.boolValue, true, "\(during?.serialized ?? "no answer")")
        expect((during?["events"]?["touch"]?.intValue ?? 0) > 0)

        expectEqual(reload.answer()?["ok"]?.boolValue, true, "log:\n\(daemon.log)")
        expectEqual(Self.status(rig)?["layout"]?["regions"]?.intValue, Self.regions + 1)
        daemon.signal(SIGTERM)
        expectEqual(daemon.waitForExit(seconds: 20), 0, "log:\n\(daemon.log)")
    }

    @Test("a large broken config: `evroute reload` waits for its compile and prints file:line:col; the old layout goes on routing")
    func brokenConfigInTheBackground() throws {
        try #require(access(DaemonProcessTests.demoTouchscreen, R_OK) == 0)
        let rig = try DaemonProcessTests.Rig()
        defer { rig.scratch.cleanUp() }
        _ = rig.scratch.write("evroute.yaml", DaemonProcessTests.config(socket: rig.uiSocket, marker: rig.marker))
        let daemon = try rig.start(["--replay", DaemonProcessTests.demoTouchscreen, "--replay-paused"])
        defer { daemon.kill9() }
        try #require(rig.notify.wait(for: "READY=1") != nil, "log:\n\(daemon.log)")
        let ui = try LineClient(path: rig.uiSocket)

        // The last region's `next` names no region: an error at that line, found at the end.
        let broken = Self.chainedConfig(socket: rig.uiSocket, lastNext: "nowhere")
        let line = broken.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.contains("next: nowhere") }! + 1
        _ = rig.scratch.write("evroute.yaml", broken)
        // `evroute reload`, as the unit's ExecReload= runs it.
        let cli = try TestProcess.daemon(rig.binary, arguments: ["reload", "--control-socket", rig.control], logPath: rig.scratch.file("reload.err"))
        defer { cli.kill9() }
        try #require(rig.notify.wait(for: "RELOADING=1") != nil, "log:\n\(daemon.log)")
        expectEqual(Self.status(rig)?["reloading"]?.boolValue, true)

        expectEqual(cli.waitForExit(seconds: 60), 1, "stderr: \(cli.log)")
        expect(cli.log.contains("\(rig.configPath):\(line):"), "stderr: \(cli.log)")
        expect(cli.log.contains("nowhere"))
        let failed = rig.notify.wait(for: "READY=1")
        expectEqual(failed?.contains("reload failed"), true, "\(failed ?? "no READY=1")")
        let after = Self.status(rig)
        expectEqual(after?["reloading"]?.boolValue, false)
        expectEqual(after?["failed_reloads"]?.intValue, 1)
        expectEqual(after?["reloads"]?.intValue, 0)
        expectEqual(after?["layout"]?["regions"]?.intValue, 1, "still the old layout")
        expect((after?["last_reload_errors"]?.arrayValue ?? []).contains { $0.stringValue?.hasPrefix("\(rig.configPath):\(line):") == true })
        // Routing goes on with it: the demo's taps (at least 8) begin on home/root.
        expectEqual(harnessControl("replay", rig.control)?["ok"]?.boolValue, true)
        func begins() -> [String] { ui.lines.filter { $0.contains("\"phase\":\"began\"") } }
        _ = ui.wait { _ in begins().count >= 8 }
        expect(begins().count >= 8 && begins().allSatisfy { $0.contains("\"region\":\"home/root\"") }, "\(begins()); log:\n\(daemon.log)")
        daemon.signal(SIGTERM)
        expectEqual(daemon.waitForExit(seconds: 20), 0, "log:\n\(daemon.log)")
    }

    @Test("reloads asked for while one compiles coalesce into one more compile; every client is answered by a compile that began after it asked")
    func coalescing() throws {
        let rig = try DaemonProcessTests.Rig()
        defer { rig.scratch.cleanUp() }
        _ = rig.scratch.write("evroute.yaml", DaemonProcessTests.config(socket: rig.uiSocket, marker: rig.marker))
        let daemon = try rig.start([])
        defer { daemon.kill9() }
        try #require(rig.notify.wait(for: "READY=1") != nil, "log:\n\(daemon.log)")

        _ = rig.scratch.write("evroute.yaml", Self.chainedConfig(socket: rig.uiSocket))
        let first = try Client(rig.control, send: #"{"command":"reload"}"#)
        try #require(rig.notify.wait(for: "RELOADING=1") != nil, "log:\n\(daemon.log)")
        // While the first compile runs: the file is replaced (two more regions, another screen
        // name; by rename, so no compile can read half a file), a storm of SIGHUPs, two more clients.
        Self.replace(rig, Self.chainedConfig(socket: rig.uiSocket, screen: "second", regions: Self.regions + 2))
        for _ in 0..<5 { daemon.signal(SIGHUP); usleep(2000) }
        let second = try Client(rig.control, send: #"{"command":"reload"}"#)
        let third = try Client(rig.control, send: #"{"command":"reload"}"#)
        let during = Self.status(rig)
        expectEqual(during?["reloading"]?.boolValue, true, "\(during?.serialized ?? "no answer")")
        expectEqual(during?["reloads"]?.intValue, 0, "the first compile is still running")

        let a = first.answer(), b = second.answer(), c = third.answer()
        expectEqual(a?["ok"]?.boolValue, true, "\(a?.serialized ?? "no answer"); log:\n\(daemon.log)")
        expectEqual(a?["reloads"]?.intValue, 1, "answered by the compile in flight when it asked")
        for answer in [b, c] {
            expectEqual(answer?["ok"]?.boolValue, true, "\(answer?.serialized ?? "no answer")")
            expectEqual(answer?["reloads"]?.intValue, 2, "answered by the one compile queued behind it")
        }
        let after = Self.status(rig)
        expectEqual(after?["reloading"]?.boolValue, false)
        expectEqual(after?["reloads"]?.intValue, 2, "one compile in flight plus one queued, whatever the number of requests")
        expectEqual(after?["failed_reloads"]?.intValue, 0)
        expectEqual(after?["layout"]?["regions"]?.intValue, Self.regions + 3, "the queued compile read the file again")
        expectEqual(after?["displays"]?.arrayValue?.first?["active_screen"]?.stringValue, "second")
        // systemd saw two reloads, each RELOADING=1 then READY=1.
        let messages = rig.notify.drain(seconds: 0.2)
        expectEqual(messages.filter { $0.split(separator: "\n").contains("RELOADING=1") }.count, 1, "the second's; the first's was taken above: \(messages)")
        expectEqual(messages.filter { $0.split(separator: "\n").contains("READY=1") }.count, 2, "\(messages)")
        daemon.signal(SIGTERM)
        expectEqual(daemon.waitForExit(seconds: 20), 0, "log:\n\(daemon.log)")
    }

    @Test("reloads pipelined on one connection are answered in order; one let in by an answer queues behind the compile that answer started")
    func pipelinedReloads() throws {
        let rig = try DaemonProcessTests.Rig()
        defer { rig.scratch.cleanUp() }
        _ = rig.scratch.write("evroute.yaml", DaemonProcessTests.config(socket: rig.uiSocket, marker: rig.marker))
        let daemon = try rig.start([])
        defer { daemon.kill9() }
        try #require(rig.notify.wait(for: "READY=1") != nil, "log:\n\(daemon.log)")

        _ = rig.scratch.write("evroute.yaml", Self.chainedConfig(socket: rig.uiSocket))
        // Two reloads on one connection: the second is read only once the first is answered.
        let pipelined = try Client(rig.control, send: #"{"command":"reload"}"# + "\n" + #"{"command":"reload"}"#)
        try #require(rig.notify.wait(for: "RELOADING=1") != nil, "log:\n\(daemon.log)")
        // A SIGHUP during the first compile queues a second compile. When the first ends, the
        // second starts, then the first answer goes out and lets the connection's second reload
        // in: it queues a third (it asked after the second began), rather than starting a compile
        // beside the second.
        daemon.signal(SIGHUP)
        expectEqual(Self.status(rig)?["reloading"]?.boolValue, true)
        let first = pipelined.answer()
        let second = pipelined.answer()
        expectEqual(first?["reloads"]?.intValue, 1, "\(first?.serialized ?? "no answer"); log:\n\(daemon.log)")
        expectEqual(second?["reloads"]?.intValue, 3, "\(second?.serialized ?? "no answer"); log:\n\(daemon.log)")
        let after = Self.status(rig)
        expectEqual(after?["reloads"]?.intValue, 3)
        expectEqual(after?["reloading"]?.boolValue, false)
        let reloadedLines = daemon.log.split(separator: "\n").filter { $0.contains("reloaded:") }
        expectEqual(reloadedLines.count, 3, "\(daemon.log)")
        daemon.signal(SIGTERM)
        expectEqual(daemon.waitForExit(seconds: 20), 0, "log:\n\(daemon.log)")
    }

    @Test("SIGTERM while a large config compiles: the held touch is cancelled, the waiting client told, exit 0")
    func sigtermDuringCompile() throws {
        try #require(access(DaemonProcessTests.demoTouchscreen, R_OK) == 0)
        let rig = try DaemonProcessTests.Rig()
        defer { rig.scratch.cleanUp() }
        _ = rig.scratch.write("evroute.yaml", DaemonProcessTests.config(socket: rig.uiSocket, marker: rig.marker))
        let recording = rig.scratch.write("finger-down.events", DaemonProcessTests.fingerDown())
        let daemon = try rig.start(["--replay", recording, "--keep-replay-devices", "--replay-paused"])
        defer { daemon.kill9() }
        try #require(rig.notify.wait(for: "READY=1") != nil, "log:\n\(daemon.log)")
        let ui = try LineClient(path: rig.uiSocket)
        expectEqual(harnessControl("replay", rig.control)?["ok"]?.boolValue, true)
        try #require(ui.wait { $0.contains("\"phase\":\"began\"") } != nil, "log:\n\(daemon.log)")

        _ = rig.scratch.write("evroute.yaml", Self.chainedConfig(socket: rig.uiSocket))
        let reload = try Client(rig.control, send: #"{"command":"reload"}"#)
        try #require(rig.notify.wait(for: "RELOADING=1") != nil, "log:\n\(daemon.log)")
        expectEqual(Self.status(rig)?["reloading"]?.boolValue, true)
        daemon.signal(SIGTERM)
        expect(ui.wait { $0.contains("\"phase\":\"cancelled\"") } != nil, "the held touch's cancel; log:\n\(daemon.log)")
        let answer = reload.answer(seconds: 20)
        expectEqual(answer?["ok"]?.boolValue, false, "\(answer?.serialized ?? "no answer")")
        expectEqual(answer?["error"]?.stringValue, "the daemon is stopping; the reload was not applied")
        expect(rig.notify.wait(for: "STOPPING=1") != nil)
        expectEqual(daemon.waitForExit(seconds: 20), 0, "log:\n\(daemon.log)")
        expect(daemon.log.contains("the reload being compiled is abandoned"), "\(daemon.log)")
        expect(!daemon.log.contains("reloaded:"), "the abandoned compile was not swapped in")
    }
}
