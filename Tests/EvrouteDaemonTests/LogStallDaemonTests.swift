import Testing
import EvrouteChecks
#if canImport(Glibc)
import Glibc
#endif
import CLinux
import EvrouteJSON
import EvrouteSystem
import EvrouteTestSupport

/// The real daemon with its stderr (the log) to a pipe nobody reads: the replay's log lines
/// fill the pipe, and the control socket (`evroute status`) and SIGTERM still answer.
@Suite("Daemon: a log nobody reads", .serialized)
struct LogStallDaemonTests {
    /// Every touch to the `log` plugin: one line per event.
    static let config = DaemonLayout.yaml(screens: """
        - name: home
          display: main
          root: { name: root, frame: [0, 0, 1280, 800] }
        """, blocks: [DaemonLayout.logFallback])

    /// The demo touchscreen three times over: ~100 KB of log lines.
    static var replays: [String] { Array(repeating: ["--replay", packageRoot + "/demo/touchscreen.events"], count: 3).flatMap { $0 } }

    /// The daemon on ``config`` replaying ``replays``, its stderr (the log) a pipe of one page
    /// that nobody reads until the test does; ready (`READY=1`) when made. `close()` ends it.
    final class StalledLog {
        let binary: String
        let scratch = Scratch("evroute-daemon-test")
        let control: String
        let notify: DaemonNotifySocket
        /// The pipe: the test reads `fds[0]`; the daemon's stderr is `fds[1]` (kept open here,
        /// never written, to see when the pipe is full).
        var fds: [Int32] = [-1, -1]
        var daemon: TestProcess?

        init(arguments: [String]) throws {
            guard let binary = evrouteBinaryPath() else {
                throw TestSupportError("the evroute binary is not next to the test bundle; run `swift build` first")
            }
            self.binary = binary
            notify = try DaemonNotifySocket(path: scratch.file("notify.sock"))
            control = scratch.file("control.sock")
            let configPath = scratch.write("evroute.yaml", LogStallDaemonTests.config)
            guard evroute_pipe2(&fds, O_CLOEXEC) == 0 else { throw TestSupportError("pipe2 failed") }
            _ = fcntl(fds[1], setPipeSize, 4096)   // a page: full after a few dozen lines
            daemon = try TestProcess.daemon(binary, arguments: ["--config", configPath, "--control-socket", control] + arguments
                                                + LogStallDaemonTests.replays,
                                            environment: ["NOTIFY_SOCKET": notify.path], logPath: scratch.file("unused.log"), stderr: fds[1])
            guard notify.wait(for: "READY=1") != nil else { close(); throw TestSupportError("the daemon did not say READY=1") }
        }

        func close() {
            daemon?.kill9()
            for fd in fds where fd >= 0 { Glibc.close(fd) }
            fds = [-1, -1]
            scratch.cleanUp()
        }
    }

    @Test("status and SIGTERM answer while stderr's reader does not read; its lines come once it reads")
    func daemonGoesOnWhileItsLogIsNotRead() throws {
        let rig = try StalledLog(arguments: ["--replay-paused"])
        defer { rig.close() }
        let (binary, scratch, control, fds, daemon) = (rig.binary, rig.scratch, rig.control, rig.fds, rig.daemon!)
        expectEqual(harnessControl("replay", control)?["ok"]?.boolValue, true)

        // The replays log a line per touch event (~100 KB: past 64 KB the log writes during the
        // replay) into the pipe nobody reads (4 KB); the daemon replays to the end and answers
        // `status` all along.
        var input: String?
        let deadline = monotonicSeconds() + 60   // a guard only
        repeat {
            input = harnessControl("status", control)?["input"]?.stringValue
            if input == nil || input == "replay finished" { break }
            usleep(10_000)
        } while monotonicSeconds() < deadline
        expectEqual(input, "replay finished", "status: \(input ?? "no answer")")
        expect(waitUntilFull(fds[1]), "the pipe is full: nobody read it")

        // `evroute status`, the command.
        let status = try TestProcess.daemon(binary, arguments: ["status", "--control-socket", control], logPath: scratch.file("status.err"))
        expectEqual(status.waitForExit(seconds: 20), 0, "evroute status: \(scratch.read("status.err") ?? "")")
        expect((scratch.read("status.err.out") ?? "").contains("replay finished"), "\(scratch.read("status.err.out") ?? "")")

        // The reader is back: the backlog comes out, up to the replay's end.
        var text: [UInt8] = []
        let readDeadline = monotonicSeconds() + 30   // a guard only
        while !String(decoding: text, as: UTF8.self).contains("replay finished:"), waitReadable(fds[0], until: readDeadline) {
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = read(fds[0], &chunk, chunk.count)
            if n <= 0 { break }
            text += chunk[0..<n]
        }
        let log = String(decoding: text, as: UTF8.self)
        expect(log.contains("replay finished:"), "\(log.suffix(500))")
        expect(log.contains("touch 1 began"))

        daemon.signal(SIGTERM)
        expectEqual(daemon.waitForExit(seconds: 20), 0)
    }

    @Test("SIGTERM ends the daemon while its log's pipe is full")
    func sigtermWhileTheLogIsFull() throws {
        let rig = try StalledLog(arguments: [])
        defer { rig.close() }
        let daemon = rig.daemon!
        // The pipe fills with the replay's lines (nobody reads it).
        try #require(waitUntilFull(rig.fds[1]), "the pipe did not fill")
        daemon.signal(SIGTERM)
        expectEqual(daemon.waitForExit(seconds: 20), 0)
    }
}

/// Waits (up to 30 s, a guard) until the pipe whose write end is `fd` takes no more: poll(2)
/// reports it not writable. Returns whether it is full.
func waitUntilFull(_ fd: Int32) -> Bool {
    let deadline = monotonicSeconds() + 30
    while true {
        var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        if poll(&p, 1, 0) == 0 { return true }
        if monotonicSeconds() >= deadline { return false }
        usleep(10_000)
    }
}

/// `F_SETPIPE_SZ` (linux/fcntl.h: 1024 + 7), not exported by Glibc's module.
let setPipeSize: Int32 = 1031
