import Testing
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
        #expect(ready!.contains("PRIORITY=5\n"))
        #expect(ready!.contains("SYSLOG_IDENTIFIER=evroute\n"))
        #expect(ready!.contains("MESSAGE=ready: "))
        let added = journal.wait(for: "MESSAGE_ID=\(LogKind.deviceAdded.id)")
        try #require(added != nil, "no device-added entry")
        #expect(added!.split(separator: "\n").contains("EVROUTE_DEVICE=touch"))
        #expect(added!.contains("PRIORITY=6\n"))
        #expect(daemon.waitForExit(seconds: 60) == 0)
        #expect(daemon.log.isEmpty, "under journald nothing goes to stderr: \(daemon.log)")
    }
}
