import Testing
import EvrouteChecks
#if canImport(Glibc)
import Glibc
#endif
import EvrouteDaemon
import EvrouteSystem
import EvrouteTestSupport

/// The real `evroute` daemon under a stand-in journald: its stderr is a file that
/// `JOURNAL_STREAM` names, `EVROUTE_JOURNAL_SOCKET` a datagram socket of the test's. Its
/// entries come through the native protocol with their `MESSAGE_ID` and `EVROUTE_*` fields;
/// nothing is written to stderr.
@Suite("Daemon process: the journal", .serialized)
struct DaemonJournalTests {
    @Test("a replay under journald: ready, the device opened (EVROUTE_DEVICE=touch); stderr empty")
    func entriesWithFields() throws {
        let rig = try DaemonProcessTests.Rig()
        defer { rig.scratch.cleanUp() }
        _ = rig.scratch.write("evroute.yaml", DaemonProcessTests.config(socket: rig.uiSocket, marker: rig.marker))
        let logPath = rig.scratch.write("daemon.log", "")
        var st = stat()
        try #require(stat(logPath, &st) == 0)
        let journal = try DaemonNotifySocket(path: rig.scratch.file("journal.sock"))
        let daemon = try rig.start(["--replay", DaemonProcessTests.demoTouchscreen, "--exit-after-replay"],
                                   environment: ["JOURNAL_STREAM": "\(st.st_dev):\(st.st_ino)", "EVROUTE_JOURNAL_SOCKET": journal.path])
        defer { daemon.kill9() }
        let ready = journal.wait(for: "MESSAGE_ID=\(LogKind.ready.id)")
        try #require(ready != nil, "no ready entry; stderr:\n\(daemon.log)")
        expect(ready!.contains("PRIORITY=5\n"))
        expect(ready!.contains("SYSLOG_IDENTIFIER=evroute\n"))
        expect(ready!.contains("MESSAGE=ready: "))
        let added = journal.wait(for: "MESSAGE_ID=\(LogKind.deviceAdded.id)")
        try #require(added != nil, "no device-added entry")
        expect(added!.split(separator: "\n").contains("EVROUTE_DEVICE=touch"))
        expect(added!.contains("PRIORITY=6\n"))
        // journald reads on (its queue is short: net.unix.max_dgram_qlen) until the daemon exits.
        var status: Int32?
        for _ in 0..<600 where status == nil {
            _ = journal.drain(seconds: 0.1)
            status = daemon.waitForExit(seconds: 0)
        }
        expectEqual(status, 0)
        expect(daemon.log.isEmpty, "under a journald that reads, nothing goes to stderr: \(daemon.log)")
    }

    /// journald behind (its socket bound, never read): the stop's notice and the entries still
    /// waiting are not lost at exit — what journald does not take within the bounded wait goes
    /// to stderr (the journal's stream) as its `<N>` lines, with the count of what was not sent.
    @Test("journald behind at a stop: the backlog and the stop notice reach stderr, counted")
    func stopWithJournaldBehind() throws {
        let rig = try DaemonProcessTests.Rig()
        defer { rig.scratch.cleanUp() }
        _ = rig.scratch.write("evroute.yaml", DaemonLayout.yaml(screens: """
            - name: home
              display: main
              root:
                name: root
                frame: [0, 0, 1280, 800]
                handlers:
                  - { plugin: log, on: [touch] }
            """))
        let logPath = rig.scratch.write("daemon.log", "")
        var st = stat()
        try #require(stat(logPath, &st) == 0)
        // A datagram socket standing in for journald's, never read: its queue fills up.
        let socketPath = rig.scratch.file("journal.sock")
        let journal = socket(AF_UNIX, SocketType.datagram | SocketType.nonBlocking, 0)
        defer { close(journal) }
        guard let address = UnixSocketAddress(socketPath), address.withSockaddr({ bind(journal, $0, $1) }) == 0 else {
            throw TestSupportError("bind \(socketPath)")
        }
        let replays = Array(repeating: ["--replay", DaemonProcessTests.demoTouchscreen], count: 3).flatMap { $0 }
        let daemon = try rig.start(replays, environment: ["JOURNAL_STREAM": "\(st.st_dev):\(st.st_ino)", "EVROUTE_JOURNAL_SOCKET": socketPath])
        defer { daemon.kill9() }
        try #require(rig.notify.wait(for: "READY=1") != nil, "no READY=1; stderr:\n\(daemon.log)")
        for _ in 0..<200 where harnessControl("status", rig.control)?["input"]?.stringValue != "replay finished" { usleep(50_000) }
        expectEqual(harnessControl("status", rig.control)?["input"]?.stringValue, "replay finished")
        daemon.signal(SIGTERM)
        expectEqual(daemon.waitForExit(seconds: 30), 0, "stderr:\n\(daemon.log)")
        // What journald got: the queue's worth.
        var received = 0
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while recv(journal, &buffer, buffer.count, 0) >= 0 { received += 1 }
        let lines = daemon.log.split(separator: "\n")
        expect(received > 0, "journald got the first entries")
        expect(lines.contains { $0 == "<5>signal SIGTERM: stopping" }, "the stop's notice; stderr:\n\(daemon.log.suffix(2000))")
        let summary = lines.filter { $0.hasPrefix("<4>journal: ") && $0.contains("not sent to \(socketPath) before exit (journald behind); written to stderr") }
        expectEqual(summary.count, 1, "\(daemon.log.suffix(2000))")
        let unsent = summary.first.flatMap { Int($0.dropFirst("<4>journal: ".count).split(separator: " ")[0]) } ?? -1
        let dropped = lines.first { $0.hasPrefix("<4>") && $0.hasSuffix("dropped while the journal was not reading") }
            .flatMap { Int($0.dropFirst(3).split(separator: " ")[0]) } ?? 0
        expectEqual(unsent, lines.count - 1 - (dropped > 0 ? 1 : 0), "every unsent entry is a stderr line")
        expect(lines.filter { $0.hasPrefix("<6>") && $0.contains("touch") }.count > 0, "the backlog's event lines")
        print("journald behind: \(received) entries sent, \(unsent) to stderr, \(dropped) dropped and counted")
    }
}
