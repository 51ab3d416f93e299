#if canImport(Glibc)
import Glibc
#endif
import CLinux
import EvrouteJSON
import EvrouteSystem
import Testing

/// The real daemon under hostile use (issue 16): idle control clients do not lock out
/// `evroute status`, a client that floods requests and reads nothing costs bounded memory,
/// and contacts past the decoder's limits are logged and counted in `status`.
@Suite("Daemon under hostile use", .serialized)
struct HostileDaemonTests {
    static let config = """
        displays:
          - { name: main, size: [1280, 800] }
        devices:
          - { name: touch, match: { kind: touchscreen }, display: main }
        screens:
          - name: home
            display: main
            root: { name: root, frame: [0, 0, 1280, 800], handlers: [{ plugin: log, on: [touch-ended] }] }

        """

    struct Rig {
        let scratch = DaemonScratch()
        let binary: String
        let notify: DaemonNotifySocket
        var control: String { scratch.file("control.sock") }

        init() throws {
            guard let binary = harnessBinary() else { throw DaemonHarnessError("the evroute binary is not next to the test bundle; run `swift build` first") }
            self.binary = binary
            notify = try DaemonNotifySocket(path: scratch.file("notify.sock"))
            _ = scratch.write("evroute.yaml", HostileDaemonTests.config)
        }

        func start(_ arguments: [String] = []) throws -> DaemonProcess {
            try DaemonProcess(binary, arguments: ["--config", scratch.file("evroute.yaml"), "--control-socket", control] + arguments,
                              environment: ["NOTIFY_SOCKET": notify.path], logPath: scratch.file("daemon.log"))
        }
    }

    static func connect(_ path: String) -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        _ = UnixSocketAddress(path)!.withSockaddr { Glibc.connect(fd, $0, $1) }
        return fd
    }

    @Test func idleControlClientsDoNotLockOutStatus() throws {
        let rig = try Rig()
        defer { rig.scratch.cleanUp() }
        let daemon = try rig.start()
        defer { daemon.kill9() }
        try #require(rig.notify.wait(for: "READY=1") != nil, "log:\n\(daemon.log)")
        // 20 connections that never say a word (16 locked the socket out before).
        let idle = (0..<20).map { _ in Self.connect(rig.control) }
        defer { for fd in idle { close(fd) } }
        let start = harnessNow()
        let out = rig.scratch.file("status")
        let cli = try DaemonProcess(rig.binary, arguments: ["status", "--control-socket", rig.control, "--format", "json"], logPath: out)
        defer { cli.kill9() }
        #expect(cli.waitForExit(seconds: 20) == 0, "\(cli.log)")
        #expect(harnessNow() - start < 5, "status answered while 20 clients sat idle")
        let answer = try JSONValue.parse(harnessRead(out + ".out") ?? "")
        #expect(answer["ok"]?.boolValue == true)
        // The idle ones are closed after 10 s without a request, each with a log line.
        var closed = 0
        let deadline = harnessNow() + 20
        while closed < idle.count && harnessNow() < deadline {
            closed = idle.filter { fd in var b: UInt8 = 0; return recv(fd, &b, 1, Int32(MSG_DONTWAIT | MSG_PEEK)) == 0 }.count
            usleep(100_000)
        }
        #expect(closed == idle.count, "idle clients closed: \(closed)")
        #expect(daemon.log.contains("no request for 10.0 s"), "\(daemon.log)")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit(seconds: 20) == 0)
    }

    @Test func aClientThatFloodsRequestsAndReadsNothingCostsBoundedMemory() throws {
        let rig = try Rig()
        defer { rig.scratch.cleanUp() }
        let daemon = try rig.start()
        defer { daemon.kill9() }
        try #require(rig.notify.wait(for: "READY=1") != nil, "log:\n\(daemon.log)")
        _ = harnessControl("status", rig.control)
        let before = daemon.status("VmRSS") ?? 0
        let fd = Self.connect(rig.control)
        defer { close(fd) }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        // 200,000 status requests (4 MB) without reading an answer: ~300 MB of answers unbounded.
        let request = Array(String(repeating: "{\"command\":\"status\"}\n", count: 1000).utf8)
        var batches = 0
        let deadline = harnessNow() + 30
        while batches < 200 && harnessNow() < deadline {
            var offset = 0
            while offset < request.count && harnessNow() < deadline {
                let n = request.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
                if n > 0 { offset += n } else if errno == EAGAIN { usleep(1000) } else { break }
            }
            if offset < request.count { break }   // the daemon hung up
            batches += 1
        }
        let deadline2 = harnessNow() + 10
        while !daemon.log.contains("does not read its answers") && harnessNow() < deadline2 { usleep(50_000) }
        let after = daemon.status("VmRSS") ?? 0
        print("control flood: \(batches) × 1000 requests sent; VmRSS \(before) kB → \(after) kB")
        #expect(daemon.log.contains("control socket: dropped client"), "\(daemon.log)")
        #expect(after - before < 32 * 1024, "RSS grew by \(after - before) kB")
        #expect(harnessControl("status", rig.control)?["ok"]?.boolValue == true, "still serving")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit(seconds: 20) == 0)
    }
}
