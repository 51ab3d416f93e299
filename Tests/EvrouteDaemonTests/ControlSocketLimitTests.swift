#if canImport(Glibc)
import Glibc
#endif
import CLinux
import EvrouteCore
import EvrouteJSON
import EvrouteRuntime
import EvrouteSystem
import Testing
import EvrouteChecks
import EvrouteTestSupport

/// The control socket under abuse, on real sockets: idle clients are closed after
/// the idle timeout, a client beyond the limit is told "busy" at once instead of waiting
/// forever, `ControlClient` (every `evroute status`/`reload`/`ctl`) tries a busy daemon again,
/// and a client that pipelines requests without reading the answers is dropped at the
/// output bound.
@Suite("Control socket limits", .serialized)
struct ControlSocketLimitTests {
    /// An in-process control server on its own loop, logging to a file.
    final class Rig {
        let loop: EventLoop
        let path: String
        let logPath: String
        let logFD: Int32
        var server: ControlServer!
        var requests: [String] = []
        /// The requests whose command is `deferred`, not answered yet.
        var pending: [ControlServer.PendingAnswer] = []

        /// Answers every request `answer` at once, except those whose command is `deferred`,
        /// which wait in ``pending``.
        init(maximumClients: Int, idleTimeout: Timestamp.Duration, answer: JSONValue = .object([("ok", .bool(true))]),
             deferred: String? = nil) throws {
            loop = try EventLoop()
            path = temporaryPath("control.sock")
            logPath = temporaryPath("control.log")
            logFD = open(logPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            server = try ControlServer(path: path, loop: loop, log: Log(threshold: .info, fd: logFD),
                                       maximumClients: maximumClients, idleTimeout: idleTimeout,
                                       answering: { [unowned self] request, reply in
                requests.append(request.serialized)
                if let deferred, request["command"]?.stringValue == deferred { pending.append(reply) } else { reply.send(answer) }
            })
        }

        deinit {
            server.shutdown()
            close(logFD)
            unlink(logPath)
        }

        @discardableResult
        func run(upTo seconds: Double, until done: @escaping () -> Bool) -> Bool { runLoop(loop, upTo: seconds, until: done) }

        var log: String { readFile(logPath) ?? "" }

        /// A connected client (blocking; reads time out after 2 s).
        func connectClient() throws -> LineClient { try LineClient(path: path, receiveTimeout: 2) }
    }

    @Test func idleClientsAreClosedAfterTheIdleTimeoutAndActiveOnesStay() throws {
        let rig = try Rig(maximumClients: 8, idleTimeout: .milliseconds(300))
        let idle1 = try rig.connectClient(), idle2 = try rig.connectClient(), active = try rig.connectClient()
        defer { idle1.close(); idle2.close(); active.close() }
        // A partial line is not a request: it does not keep a connection alive.
        idle2.send("{\"command\":", wait: false)
        var lastSent = MonotonicClock.now()
        // Until the active client has made 8 requests, each more than 100 ms after the one before:
        // past two idle timeouts of 0.3 s (the wait is counted in requests, not timed).
        rig.run(upTo: 5) {
            if MonotonicClock.now() - lastSent > .milliseconds(100) {
                active.send("{\"command\":\"status\"}\n", wait: false)
                lastSent = MonotonicClock.now()
            }
            return rig.server.clientCount == 1 && rig.requests.count >= 8
        }
        expectEqual(rig.server.clientCount, 1, "only the active client is left")
        expect(idle1.isClosedByPeer && idle2.isClosedByPeer)
        expect(!active.isClosedByPeer)
        expect(rig.requests.count >= 8)
        expectEqual(rig.log.split(separator: "\n").filter { $0.contains("no request for 0.3 s") }.count, 2, "\(rig.log)")
    }

    @Test func aClientBeyondTheLimitIsToldBusyAtOnce() throws {
        let rig = try Rig(maximumClients: 2, idleTimeout: .seconds(30))
        let a = try rig.connectClient(), b = try rig.connectClient()
        defer { a.close(); b.close() }
        rig.run(upTo: 2) { rig.server.clientCount == 2 }
        let c = try rig.connectClient()
        defer { c.close() }
        rig.run(upTo: 2) { rig.log.contains("refused") }
        expectEqual(c.readAll(), "{\"ok\":false,\"error\":\"too many control clients (2 connected); try again\",\"busy\":true}\n")
        expect(rig.log.contains("control socket: refused 1 client(s): 2 connected, the most served at once"), "\(rig.log)")
        expectEqual(rig.server.clientCount, 2)
    }

    @Test func oneProcessKeepingEveryConnectionBusyCannotLockOutStatus() throws {
        // This test process opens as many connections as the socket has places and
        // keeps each busy (a request every 100 ms, well inside the idle timeout). It runs as root,
        // like `evroute status` below, so no room kept for root could let the status in: the
        // per-process cap is what leaves places free.
        let rig = try Rig(maximumClients: ControlServer.maximumClients, idleTimeout: .milliseconds(1000))
        var hogs: [LineClient] = []
        for _ in 0..<ControlServer.maximumClients { hogs.append(try rig.connectClient()) }
        var lastSent = MonotonicClock.now()
        func keepBusy() {
            guard MonotonicClock.now() - lastSent > .milliseconds(100) else { return }
            lastSent = MonotonicClock.now()
            var sink = [UInt8](repeating: 0, count: 4096)
            for hog in hogs {
                hog.send("{\"command\":\"status\"}\n", wait: false)
                while recv(hog.fd, &sink, sink.count, Int32(MSG_DONTWAIT)) > 0 {}
            }
        }
        rig.run(upTo: 3) { keepBusy(); return rig.log.contains("refused") && rig.server.clientCount <= ControlServer.maximumClientsPerProcess }
        expectEqual(rig.server.clientCount, ControlServer.maximumClientsPerProcess, "\(rig.server.clientCount) held")
        expect(rig.log.contains("too many control connections from process \(getpid()) (8 open, the most for one process)"), "\(rig.log)")

        let binary = try #require(evrouteBinaryPath(), "the evroute binary is not next to the test bundle")
        let logPath = temporaryPath("status.err")
        let cli = try TestProcess.daemon(binary, arguments: ["status", "--format", "json", "--control-socket", rig.path], logPath: logPath)
        defer { cli.kill9(); unlink(logPath); unlink(logPath + ".out") }
        rig.run(upTo: 15) { keepBusy(); return cli.waitForExit(seconds: 0.001) != nil }
        expectEqual(cli.waitForExit(seconds: 0.001), 0, "stderr: \(cli.log)")
        expectEqual(readFile(logPath + ".out"), "{\"ok\":true}\n")
        expect(rig.server.clientCount >= ControlServer.maximumClientsPerProcess - 1, "the busy ones stayed: \(rig.server.clientCount)")
    }

    @Test func atTheDescriptorLimitTheDaemonDoesNotSpinAndAnswersOnceDescriptorsAreFree() throws {
        // A daemon limited to 40 descriptors (soft and hard, so raising its soft
        // limit gains nothing), and more control clients than it can hold. It must not spin on
        // its readable listener: few loop wake-ups and little CPU while the limit lasts; once the
        // clients leave, `status` is answered again.
        let rig = try DaemonProcessTests.Rig()
        defer { rig.scratch.cleanUp() }
        _ = rig.scratch.write("evroute.yaml", RuntimeControlProcessTests.config(socket: rig.uiSocket))
        let daemon = try TestProcess.daemon("/bin/sh", arguments: Array(TestProcess.withDescriptorLimit(40, [rig.binary,
                                                              "--config", rig.configPath, "--control-socket", rig.control,
                                                              "--replay", DaemonProcessTests.demoTouchscreen, "--replay-paused"]).dropFirst()),
                                       environment: ["NOTIFY_SOCKET": rig.notify.path], logPath: rig.scratch.file("daemon.log"))
        defer { daemon.kill9() }
        try #require(rig.notify.wait(for: "READY=1") != nil, "log: \(daemon.log)")
        let before = try #require(harnessControl("status", rig.control)?["loop"]?["wakeups"]?.intValue)

        // The `ui` socket plugin's clients (up to its max-clients, 64) use up the descriptors; then
        // control clients come (a few: one process holds at most 8 control places anyway).
        var clients: [LineClient] = []
        func connectClients(_ count: Int, to path: String) {
            for _ in 0..<count {
                guard let client = try? LineClient(path: path) else { return }
                clients.append(client)
            }
        }
        connectClients(50, to: rig.uiSocket)
        connectClients(4, to: rig.control)
        expectEqual(clients.count, 54, "the listen backlog takes what the daemon cannot accept")
        let deadline = monotonicSeconds() + 10
        while !daemon.log.contains("control socket: refused") && monotonicSeconds() < deadline { usleep(20_000) }
        expect(daemon.log.contains("socket ui: out of file descriptors (Too many open files)"), "\(daemon.log)")
        expect(daemon.log.contains("control socket: refused 1 client(s): out of file descriptors (Too many open files)"), "\(daemon.log)")

        // Two seconds at the limit: CPU time (utime + stime, /proc/PID/stat) stays far below
        // what spinning takes (a whole core: ~2 s).
        func cpuSeconds() -> Double {
            let stat = readFile("/proc/\(daemon.pid)/stat") ?? ""
            let fields = stat[stat.index(after: stat.lastIndex(of: ")")!)...].split(separator: " ")
            return ((Double(fields[11]) ?? 0) + (Double(fields[12]) ?? 0)) / Double(sysconf(Int32(_SC_CLK_TCK)))
        }
        let cpuBefore = cpuSeconds()
        usleep(2_000_000)
        let cpu = cpuSeconds() - cpuBefore
        expect(cpu < 0.3, "\(cpu) s of CPU in 2 s at the descriptor limit")

        clients.removeAll()
        let status = harnessControl("status", rig.control)
        expectEqual(status?["ok"]?.boolValue, true, "answered again once descriptors are free; log: \(daemon.log)")
        let wakeups = (status?["loop"]?["wakeups"]?.intValue ?? Int.max) - before
        expect(wakeups < 2000, "\(wakeups) loop wake-ups: the listener was not watched while the limit lasted")
        daemon.signal(SIGTERM)
        expectEqual(daemon.waitForExit(seconds: 20), 0)
    }

    @Test func atTheDescriptorLimitStatusIsStillAnswered() throws {
        // A socket plugin allowing 4,096 clients under a limit of 64 descriptors: its clients take
        // every descriptor the daemon has. The control socket's reserve descriptor is its place:
        // `evroute status` is answered while they stay, not refused as busy.
        let rig = try DaemonProcessTests.Rig()
        defer { rig.scratch.cleanUp() }
        let config = RuntimeControlProcessTests.config(socket: rig.uiSocket)
            .replacingOccurrences(of: "{ name: ui, type: socket, path: \(rig.uiSocket) }",
                                  with: "{ name: ui, type: socket, path: \(rig.uiSocket), max-clients: 4096 }")
        try #require(config.contains("max-clients: 4096"))
        _ = rig.scratch.write("evroute.yaml", config)
        let daemon = try TestProcess.daemon("/bin/sh", arguments: Array(TestProcess.withDescriptorLimit(64, [rig.binary,
                                                              "--config", rig.configPath, "--control-socket", rig.control,
                                                              "--replay", DaemonProcessTests.demoTouchscreen, "--replay-paused"]).dropFirst()),
                                       environment: ["NOTIFY_SOCKET": rig.notify.path], logPath: rig.scratch.file("daemon.log"))
        defer { daemon.kill9() }
        try #require(rig.notify.wait(for: "READY=1") != nil, "log: \(daemon.log)")
        var clients: [LineClient] = []
        for _ in 0..<80 {
            guard let client = try? LineClient(path: rig.uiSocket) else { break }
            clients.append(client)
        }
        defer { clients.removeAll() }
        let deadline = monotonicSeconds() + 10
        while !daemon.log.contains("socket ui: out of file descriptors") && monotonicSeconds() < deadline { usleep(20_000) }
        try #require(daemon.log.contains("socket ui: out of file descriptors (Too many open files)"), "\(daemon.log)")

        let binary = try #require(evrouteBinaryPath(), "the evroute binary is not next to the test bundle")
        let logPath = rig.scratch.file("status.err")
        let cli = try TestProcess.daemon(binary, arguments: ["status", "--format", "json", "--control-socket", rig.control], logPath: logPath)
        defer { cli.kill9() }
        expectEqual(cli.waitForExit(seconds: 20), 0, "stderr: \(cli.log); daemon log: \(daemon.log)")
        let answer = try? JSONValue.parse(readFile(logPath + ".out") ?? "")
        expectEqual(answer?["ok"]?.boolValue, true, "\(readFile(logPath + ".out") ?? "")")
        expectEqual(clients.count, 80, "the plugin's clients stayed connected")
        daemon.signal(SIGTERM)
        expectEqual(daemon.waitForExit(seconds: 20), 0)
    }

    @Test func thePlacesOfOneUserAndTheRoomKeptForRootAndOperators() {
        func refusal(uid: uid_t = 1000, privileged: Bool = true, open: Int = 10, ofProcess: Int = 0, ofUser: Int = 0) -> String? {
            ControlServer.placeRefusal(pid: 42, uid: uid, privileged: privileged, open: open, ofProcess: ofProcess, ofUser: ofUser,
                                       maximumClients: 64)
        }
        expect(refusal() == nil)
        expect(refusal(ofProcess: 7) == nil)
        expectEqual(refusal(ofProcess: 8), "too many control connections from process 42 (8 open, the most for one process)")
        expect(refusal(uid: 0, ofProcess: 8) != nil, "root's processes too")
        expect(refusal(ofUser: 31) == nil)
        expectEqual(refusal(ofUser: 32), "too many control connections from user 1000 (32 open, the most for one user)")
        expect(refusal(uid: 0, ofUser: 60) == nil, "root has no per-user cap")
        // The daemon's own user (its plugin helpers): not the last 8 places.
        expect(refusal(privileged: false, open: 56) == nil)
        expectEqual(refusal(privileged: false, open: 57), "too many control clients (56 connected; the last 8 places are kept for root and the socket's group)")
        expect(refusal(privileged: true, open: 64) == nil)
    }

    @Test func theClientTriesABusyDaemonAgainUntilAPlaceFrees() throws {
        // One place, held by an idle client for 0.5 s: `evroute reload` (ControlClient) is told
        // "busy", tries again, and is served once the idle client is closed.
        let rig = try Rig(maximumClients: 1, idleTimeout: .milliseconds(500),
                          answer: .object([("ok", .bool(true)), ("config", .string("x.yaml")), ("reloads", .int(1))]))
        let holder = try rig.connectClient()
        defer { holder.close() }
        rig.run(upTo: 2) { rig.server.clientCount == 1 }
        let binary = try #require(evrouteBinaryPath(), "the evroute binary is not next to the test bundle")
        let logPath = temporaryPath("reload.err")
        let cli = try TestProcess.daemon(binary, arguments: ["reload", "--control-socket", rig.path], logPath: logPath)
        defer { cli.kill9(); unlink(logPath); unlink(logPath + ".out") }
        rig.run(upTo: 8) { cli.waitForExit(seconds: 0.001) != nil }
        expectEqual(cli.waitForExit(seconds: 0.001), 0, "stderr: \(cli.log); server log: \(rig.log)")
        expectEqual(readFile(logPath + ".out"), "reloaded x.yaml\n")
        // It had to wait for the place: told busy first, served after the holder's idle timeout.
        expectEqual(rig.requests, ["{\"command\":\"reload\"}"])
        let log = rig.log.split(separator: "\n")
        let refusedAt = try #require(log.firstIndex { $0.contains("refused") }, "\(log)")
        let freedAt = try #require(log.firstIndex { $0.contains("no request for 0.5 s") }, "\(log)")
        expect(refusedAt < freedAt, "\(log)")
        expect(holder.isClosedByPeer)
    }

    @Test func everyControlCommandReportsARefusalOnStandardErrorWithStatus1() throws {
        // A daemon that refuses everything: the real binary's status (text and json), reload and
        // ctl commands all print nothing on stdout, the refusal on stderr, and exit 1.
        let rig = try Rig(maximumClients: 8, idleTimeout: .seconds(30),
                          answer: .object([("ok", .bool(false)), ("error", .string("not now")), ("errors", .array([.string("f.yaml:1:2: error: e")]))]))
        let binary = try #require(evrouteBinaryPath(), "the evroute binary is not next to the test bundle")
        for command in [["status"], ["status", "--format", "json"], ["reload"], ["ctl", "state"], ["ctl", "state", "--format", "json"],
                        ["ctl", "present", "x"]] {
            let logPath = temporaryPath("cli.err")
            defer { unlink(logPath); unlink(logPath + ".out") }
            let cli = try TestProcess.daemon(binary, arguments: command + ["--control-socket", rig.path], logPath: logPath)
            defer { cli.kill9() }
            rig.run(upTo: 10) { cli.waitForExit(seconds: 0.001) != nil }
            let what = command[0] == "ctl" ? "evroute ctl \(command[1])" : "evroute \(command[0])"
            expectEqual(cli.waitForExit(seconds: 0.001), 1, "\(command)")
            expectEqual(readFile(logPath + ".out"), "", "\(command): stdout \(readFile(logPath + ".out") ?? "")")
            expectEqual(cli.log, "f.yaml:1:2: error: e\n\(what): not now\n", "\(command): stderr \(cli.log)")
        }
    }

    @Test func anAnswerSentLaterHoldsItsConnectionsNextRequestsAndTheIdleTimeoutLetsItWait() throws {
        // A slow request (answered later, as the daemon answers a reload when its compile ends)
        // pipelined with a status, and the client's end of input right after them (as
        // `evroute reload` sends). Meanwhile another client is served at once, and an idle one
        // is closed by the idle timeout: the waiting client is not.
        let rig = try Rig(maximumClients: 8, idleTimeout: .milliseconds(200), answer: .object([("ok", .bool(true)), ("n", .int(1))]),
                          deferred: "slow")
        let waiting = try rig.connectClient()
        defer { waiting.close() }
        waiting.send("{\"command\":\"slow\"}\n{\"command\":\"status\"}\n", wait: false)
        waiting.shutdownWriting()
        rig.run(upTo: 5) { rig.pending.count == 1 }
        // Connected after the waiting client's last line: once it is closed as idle, the waiting
        // one has gone at least as long without a line.
        let idle = try rig.connectClient(), other = try rig.connectClient()
        defer { idle.close(); other.close() }
        other.send("{\"command\":\"status\"}\n", wait: false)
        // Clients 1 (waiting), 2 (idle) and 3 (other, idle too once answered).
        rig.run(upTo: 10) { rig.log.contains("closed client 2: no request for 0.2 s") && rig.requests.count == 2 }
        expect(rig.log.contains("closed client 2: no request for 0.2 s"), "\(rig.log)")
        expect(!rig.log.contains("closed client 1:"), "the waiting client is not idle: \(rig.log)")
        expect(idle.isClosedByPeer)
        expectEqual(rig.requests, ["{\"command\":\"slow\"}", "{\"command\":\"status\"}"], "the waiting client's status waits behind its slow request")
        var byte: UInt8 = 0
        expectEqual(recv(other.fd, &byte, 1, Int32(MSG_DONTWAIT | MSG_PEEK)), 1, "the other client was answered at once")
        expect(recv(waiting.fd, &byte, 1, Int32(MSG_DONTWAIT | MSG_PEEK)) == -1 && errno == EAGAIN, "nothing yet for the waiting client, and not closed")

        // The answer comes: then its status is answered, then the connection closes.
        rig.pending[0].send(.object([("ok", .bool(true)), ("slow", .bool(true))]))
        rig.run(upTo: 5) { rig.requests.count == 3 }
        expectEqual(rig.requests.count, 3)
        expectEqual(waiting.readAll(), "{\"ok\":true,\"slow\":true}\n{\"ok\":true,\"n\":1}\n")
        expect(waiting.isClosedByPeer, "closed after its answers (its end of input came while it waited)")
        // Answering twice, or after the client left, sends nothing and does not trap.
        rig.pending[0].send(.object([("ok", .bool(false))]))
        expect(!rig.pending[0].isConnected)
    }

    @Test func aClientThatHangsUpWhileItsAnswerWaitsIsClosed() throws {
        let rig = try Rig(maximumClients: 8, idleTimeout: .seconds(30), deferred: "slow")
        let client = try rig.connectClient()
        client.send("{\"command\":\"slow\"}\n", wait: false)
        rig.run(upTo: 5) { rig.pending.count == 1 }
        expect(rig.pending[0].isConnected)
        client.close()
        let wakeupsBefore = rig.loop.wakeups
        rig.run(upTo: 5) { rig.server.clientCount == 0 }
        expectEqual(rig.server.clientCount, 0)
        expect(!rig.pending[0].isConnected)
        rig.pending[0].send(.object([("ok", .bool(true))]))
        // Closed, not left reporting its hang-up on every turn of the loop: a few wakeups, not thousands.
        expect(rig.loop.wakeups - wakeupsBefore < 50, "\(rig.loop.wakeups - wakeupsBefore) wakeups")
    }

    @Test func anOverlongRequestIsRefusedWholeWithItsTagAndNeverExecuted() throws {
        // The first 64 KiB of this line are a valid request on their own (spaces after it): it
        // must not run. The answer carries the tag, read from the line's first part.
        let rig = try Rig(maximumClients: 4, idleTimeout: .seconds(30))
        let client = try rig.connectClient()
        defer { client.close() }
        let line = #"{"command":"status","tag":"t1"}"# + String(repeating: " ", count: ControlServer.maximumRequest + 100) + "x\n"
        var sent = 0
        rig.run(upTo: 5) {
            while sent < line.utf8.count {
                let n = line.utf8.withContiguousStorageIfAvailable { p in
                    Glibc.send(client.fd, p.baseAddress! + sent, p.count - sent, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
                } ?? -1
                if n <= 0 { break }
                sent += n
            }
            return rig.server.clientCount == 0
        }
        expectEqual(client.readAll(), #"{"ok":false,"error":"request line too long (the most is 65536 bytes)","tag":"t1"}"# + "\n")
        expect(rig.requests.isEmpty, "nothing of the line was executed: \(rig.requests)")
        expect(client.isClosedByPeer)
    }

    @Test func aClientThatDoesNotReadItsAnswersIsDroppedAtTheBound() throws {
        // 2 KB answers to 4000 pipelined requests: 8 MB if buffered; the bound is 1 MiB.
        let big = String(repeating: "x", count: 2000)
        let rig = try Rig(maximumClients: 4, idleTimeout: .seconds(30), answer: .object([("ok", .bool(true)), ("pad", .string(big))]))
        let client = try rig.connectClient()
        defer { client.close() }
        var sent = 0
        let request = "{\"command\":\"status\"}\n"
        rig.run(upTo: 10) {
            while sent < 4000, Glibc.send(client.fd, request, request.utf8.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) > 0 { sent += 1 }
            return rig.log.contains("does not read its answers")
        }
        expect(rig.log.contains("control socket: dropped client 1: it does not read its answers"), "\(rig.log)")
        expectEqual(rig.server.clientCount, 0)
        expect(rig.requests.count < 4000, "answering stopped with the client")
    }

    @Test func aSocketLeftByADeadDaemonIsReportedAfterAShortRetry() throws {
        // Bound but not listening: connect says ECONNREFUSED (a daemon restarting looks the same
        // for a moment). Tried again for 2 s, then reported with the hint.
        let path = temporaryPath("stale.sock")
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd); unlink(path) }
        expectEqual(UnixSocketAddress(path)!.withSockaddr { bind(fd, $0, $1) }, 0)
        let refused = #expect(throws: ControlClient.Failure.self) {
            _ = try ControlClient.request(.object([("command", .string("status"))]), to: path)
        }
        expectEqual(refused?.description, "cannot connect to \(path): Connection refused (is the evroute daemon running? see `systemctl status evroute`)")
        // Counted, not timed: tried again with the backoff (50, 100, 200, 400, 500, 500 ms fit in
        // the 2 s, so at most 7 tries); a client that gave up at once would try once, one that
        // took the 10 s retry time for a refusal (~24 tries) more than 7.
        let attempts = refused?.attempts ?? 0
        expect(attempts >= 2 && attempts <= 7, "\(attempts) attempts")
        // No socket at all: at once (one try).
        let none = #expect(throws: ControlClient.Failure.self) { _ = try ControlClient.request(.object([]), to: path + ".none") }
        expectEqual(none?.attempts, 1)
    }
}
