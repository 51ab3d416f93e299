import Testing
import EvrouteChecks
#if canImport(Glibc)
import Glibc
#endif
import EvrouteDaemon
import EvrouteJSON
import EvrouteRuntime
import EvrouteSystem
import EvrouteTestSupport

/// The run-time control of docs/ui-control.md against real processes: the daemon and a dry-run serve the run-time layout commands
/// on the control socket (`evroute ctl`), and a socket plugin peer sends them on its own
/// connection.
@Suite("Run-time control: daemon, dry-run, plugin peers", .serialized)
struct RuntimeControlProcessTests {
    /// Two pages and a modal on the demo touchscreen's display; every touch to the `ui` socket.
    static func config(socket: String) -> String {
        DaemonLayout.yaml(plugins: ["{ name: ui, type: socket, path: \(socket) }"], screens: """
            - name: home
              display: main
              root:
                name: root
                frame: [0, 0, 1280, 800]
                handlers: [{ plugin: ui, on: [touch], page: home }]
                regions:
                  - { name: left, frame: [0, 0, 640, 800] }
                  - { name: right, frame: [640, 0, 640, 800], focusable: true }
            - name: confirm
              display: main
              root:
                name: root
                frame: [0, 0, 1280, 800]
                handlers: [{ plugin: ui, on: [touch], page: confirm }]
            """, blocks: [DaemonLayout.logFallback])
    }

    static func request(_ fields: [(String, JSONValue)], _ socket: String) -> JSONValue? {
        try? ControlClient.request(.object(fields), to: socket, timeoutSeconds: 10)
    }

    static func evroute(_ arguments: [String]) throws -> TestProcess.Result {
        try TestProcess.run(try evrouteBinary(), arguments)
    }

    /// The daemon on ``config(socket:)``, the demo touchscreen's replay paused, ready
    /// (`READY=1`); `body` runs with it, then SIGTERM ends it (exit 0).
    static func withPausedDaemon(_ body: (DaemonProcessTests.Rig, TestProcess) throws -> Void) throws {
        let rig = try DaemonProcessTests.Rig()
        defer { rig.scratch.cleanUp() }
        _ = rig.scratch.write("evroute.yaml", Self.config(socket: rig.uiSocket))
        let daemon = try rig.start(["--replay", DaemonProcessTests.demoTouchscreen, "--replay-paused"])
        defer { daemon.kill9() }
        try #require(rig.notify.wait(for: "READY=1") != nil, "log:\n\(daemon.log)")
        try body(rig, daemon)
        daemon.signal(SIGTERM)
        expectEqual(daemon.waitForExit(seconds: 20), 0)
    }

    @Test("the daemon: present, focus, hide, frame, regions (and its errors as file:line:col), action, state; refusals change nothing; ctl exits 0/1")
    func daemon() throws { try Self.withPausedDaemon { rig, _ in
        let ctl = rig.control

        expectEqual(Self.request([("command", .string("present")), ("screen", .string("confirm"))], ctl)?["ok"]?.boolValue, true)
        var state = Self.request([("command", .string("state"))], ctl)
        expectEqual(state?["displays"]?.arrayValue?.first?["stack"], .array([.string("home"), .string("confirm")]))
        // Refused: unknown screen, already presented; nothing changes.
        let unknown = Self.request([("command", .string("present")), ("screen", .string("confirn"))], ctl)
        expectEqual(unknown?["ok"]?.boolValue, false)
        expectEqual(unknown?["error"]?.stringValue?.contains("unknown screen 'confirn'"), true, "\(String(describing: unknown))")
        expectEqual(Self.request([("command", .string("dismiss"))], ctl)?["ok"]?.boolValue, true)
        expectEqual(Self.request([("command", .string("dismiss"))], ctl)?["ok"]?.boolValue, false, "nothing presented any more")

        expectEqual(Self.request([("command", .string("focus")), ("region", .string("home/root/right"))], ctl)?["ok"]?.boolValue, true)
        for command in ["disable", "enable", "hide", "show"] {
            expectEqual(Self.request([("command", .string(command)), ("region", .string("home/root/left"))], ctl)?["ok"]?.boolValue, true, "\(command)")
        }
        expectEqual(Self.request([("command", .string("action")), ("name", .string("nothing-takes-it"))], ctl)?["ok"]?.boolValue, true)
        let resign = try Self.evroute(["ctl", "--control-socket", ctl, "focus", "--resign"])
        expectEqual(resign.status, 0, "\(resign.err)")
        expectEqual(Self.request([("command", .string("state"))], ctl)?["displays"]?.arrayValue?.first?["first_responder"], .null)
        expectEqual(Self.request([("command", .string("focus")), ("region", .string("home/root/right"))], ctl)?["ok"]?.boolValue, true)
        expectEqual(Self.request([("command", .string("hide")), ("region", .string("home/root/left"))], ctl)?["ok"]?.boolValue, true)
        expectEqual(Self.request([("command", .string("frame")), ("region", .string("home/root/right")),
                              ("frame", .array([.number(600), .number(0), .number(680), .number(800)]))], ctl)?["ok"]?.boolValue, true)
        let badFrame = Self.request([("command", .string("frame")), ("region", .string("home/root/right")), ("frame", .array([.number(1)]))], ctl)
        expectEqual(badFrame?["ok"]?.boolValue, false)
        state = Self.request([("command", .string("state"))], ctl)
        let changed = state?["changed_regions"]?.arrayValue ?? []
        expect(changed.contains { $0["region"]?.stringValue == "home/root/left" && $0["hidden"]?.boolValue == true }, "\(changed)")
        expect(changed.contains { $0["region"]?.stringValue == "home/root/right" && $0["frame"] != nil }, "\(changed)")
        expectEqual(state?["displays"]?.arrayValue?.first?["first_responder"]?.stringValue, "home/root/right")

        // `ctl regions` with a file: errors name FILE:line:col and change nothing.
        let bad = rig.scratch.write("bad-regions.yaml", "- { name: a, frame: [0, 0, 10, 10] }\n- { name: a, frame: [0, 0, 10] }\n")
        let refused = try Self.evroute(["ctl", "--control-socket", ctl, "regions", "home/root", bad])
        expectEqual(refused.status, 1)
        expect(refused.err.contains("\(bad):2:"), "\(refused.err)")
        let good = rig.scratch.write("regions.yaml", "regions:\n  - { name: wide, frame: [0, 0, 1280, 800] }\n")
        let replaced = try Self.evroute(["ctl", "--control-socket", ctl, "regions", "home/root", good])
        expectEqual(replaced.status, 0, "\(replaced.err)")
        let text = try Self.evroute(["ctl", "--control-socket", ctl, "state"])
        expect(text.status == 0 && text.out.contains("home/root: children replaced"), "\(text.out)")
        let usage = try Self.evroute(["ctl", "--control-socket", ctl, "frame", "home/root/wide", "1", "2"])
        expectEqual(usage.status, 2, "a missing argument is a usage error")

        // `status` shows the stacks, first responders and changed regions too.
        let status = harnessControl("status", ctl)
        expectEqual(status?["changed_regions"]?.arrayValue?.isEmpty, false)
        expect(status?["events"]?["region_changes"]?.intValue ?? 0 >= 3)
        // A reload starts from the config again.
        expectEqual(harnessControl("reload", ctl)?["ok"]?.boolValue, true)
        expectEqual(Self.request([("command", .string("state"))], ctl)?["changed_regions"]?.arrayValue?.isEmpty, true)
    } }

    @Test("a socket plugin peer sends commands on its own connection and gets tagged answers; options travel with its events")
    func pluginPeer() throws { try Self.withPausedDaemon { rig, _ in
        let peer = try LineClient(path: rig.uiSocket)
        peer.sendAll(#"{"command":"present","screen":"confirm","tag":"p1"}"# + "\n" + #"{"command":"status","tag":2}"# + "\n")
        let presented = peer.wait { $0.contains("\"p1\"") }
        expectEqual(presented?.contains("\"ok\":true"), true, "\(String(describing: presented))")
        let refused = peer.wait { $0.contains("\"tag\":2") }
        expect(refused?.contains("\"ok\":false") == true && refused?.contains("not a layout command") == true, "\(String(describing: refused))")
        // The replay's touches now begin on the modal, and carry its handler's options.
        expectEqual(harnessControl("replay", rig.control)?["ok"]?.boolValue, true)
        let began = peer.wait { $0.contains("\"phase\":\"began\"") }
        expectEqual(began?.contains("\"region\":\"confirm/root\""), true, "\(String(describing: began))")
        expectEqual(began?.contains("\"options\":{\"page\":\"confirm\"}"), true, "\(String(describing: began))")
    } }

    @Test("a plugin peer's long command (150 regions, > 4 KiB) is answered; one past the limit is refused whole, with its tag when it can be read")
    func pluginPeerLongLines() throws { try Self.withPausedDaemon { rig, _ in
        let peer = try LineClient(path: rig.uiSocket)
        func send(_ line: String) { peer.sendAll(line) }
        func children(_ n: Int) -> String {
            (0..<n).map { #"{"name":"cell\#($0)","frame":[\#($0 % 10 * 100),\#($0 / 10 * 10),90,9]}"# }.joined(separator: ",")
        }
        let long = #"{"command":"regions","region":"home/root","tag":"long","regions":["# + children(150) + "]}\n"
        expect(long.utf8.count > 4096 && long.utf8.count < ControlServer.maximumRequest)
        send(long)
        let replaced = peer.wait(seconds: 10) { $0.contains("\"long\"") }
        expectEqual(replaced, #"{"ok":true,"tag":"long"}"#, "\(String(describing: replaced))")

        let tooLong = #"{"command":"regions","region":"home/root","tag":"huge","regions":["# + children(3000) + "]}\n"
        expect(tooLong.utf8.count > ControlServer.maximumRequest)
        send(tooLong)
        let refused = peer.wait(seconds: 10) { $0.contains("\"huge\"") }
        expectEqual(refused, #"{"ok":false,"error":"request line too long (the most is 65536 bytes)","tag":"huge"}"#, "\(String(describing: refused))")
        // The tag after the cut: an untagged error. The connection goes on.
        send(#"{"command":"state","pad":""# + String(repeating: "x", count: ControlServer.maximumRequest) + #"","tag":"late"}"# + "\n")
        send(#"{"command":"state","tag":"after"}"# + "\n")
        let after = peer.wait(seconds: 10) { $0.contains("\"after\"") }
        expectEqual(after?.contains("\"ok\":true"), true, "\(String(describing: after))")
        expect(peer.lines.contains(#"{"ok":false,"error":"request line too long (the most is 65536 bytes)"}"#), "\(peer.lines)")
        expect(!peer.lines.contains { $0.contains("\"late\"") })
        // Only the 150 regions were applied.
        let state = Self.request([("command", .string("state"))], rig.control)
        expectEqual(state?["changed_regions"]?.arrayValue?.count, 1, "\(String(describing: state))")
    } }

    @Test("a dry-run with --control-socket and --replay-paused: present before the replay, the trace shows it and the touches land on the modal")
    func dryRun() throws {
        let scratch = Scratch("evroute-daemon-test")
        defer { scratch.cleanUp() }
        guard let binary = evrouteBinaryPath() else { throw TestSupportError("no evroute binary") }
        let config = scratch.write("evroute.yaml", Self.config(socket: scratch.file("ui.sock")))
        let ctl = scratch.file("ctl.sock")
        let run = try TestProcess.daemon(binary, arguments: ["--dry-run", "--config", config, "--replay", DaemonProcessTests.demoTouchscreen,
                                                        "--format", "json", "--control-socket", ctl, "--replay-paused", "--exit-after-replay"],
                                    logPath: scratch.file("dry.log"))
        defer { run.kill9() }
        let deadline = monotonicSeconds() + 10
        while access(ctl, F_OK) != 0 && monotonicSeconds() < deadline { usleep(10_000) }
        expectEqual(Self.request([("command", .string("present")), ("screen", .string("confirm"))], ctl)?["ok"]?.boolValue, true)
        expectEqual(Self.request([("command", .string("hide")), ("region", .string("home/root/nope"))], ctl)?["error"]?.stringValue?
            .contains("home/root/nope"), true)
        expectEqual(Self.request([("command", .string("hide")), ("region", .string("home/root/left"))], ctl)?["ok"]?.boolValue, true)
        // Both replay commands on one connection, in one write: the server takes them in order in
        // one read, before the replay the first starts on the loop can run to its end and exit
        // (two connections raced that exit: a second request could find the socket gone).
        let client = try LineClient(path: ctl)
        defer { client.close() }
        client.sendAll(#"{"command":"replay"}"# + "\n" + #"{"command":"replay"}"# + "\n")
        expectEqual(client.readLine(), #"{"ok":true}"#)
        expectEqual(client.readLine(), #"{"ok":false,"error":"the replay has already started"}"#)
        expectEqual(run.waitForExit(seconds: 20), 0, "\(run.log)")
        let trace = (readFile(scratch.file("dry.log.out")) ?? "").split(separator: "\n").map(String.init)
        expect(trace.contains { $0.contains("\"type\":\"present\"") && $0.contains("\"screen\":\"confirm\"") }, "\(trace.prefix(5))")
        expect(trace.contains { $0.contains("\"type\":\"region\"") && $0.contains("\"region\":\"home/root/left\"")
            && $0.contains("\"change\":\"hidden\"") }, "a trace line per region change")
        let began = trace.filter { $0.contains("\"phase\":\"began\"") }
        expect(!began.isEmpty && began.allSatisfy { $0.contains("\"region\":\"confirm/root\"") }, "\(began.prefix(3))")
        expect(access(ctl, F_OK) != 0, "the socket is removed at exit")
    }
}
