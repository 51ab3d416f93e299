import Testing
#if canImport(Glibc)
import Glibc
#endif
import EvrouteCore
import EvrouteSystem
import EvrouteJSON

/// Hostile control-socket clients (issue 16): idle connections that fill every place must not
/// lock out `evroute status`; a client that pipelines requests and never reads is dropped, not
/// buffered without bound. Real daemon, real sockets.
@Suite("Control socket limits")
struct ControlLimitsTests {
    static func connectRaw(_ path: String) -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        let ok = UnixSocketAddress(path)!.withSockaddr { connect(fd, $0, $1) } == 0
        return ok ? fd : -1
    }

    @Test("twenty idle connections do not lock out status; they are closed after the idle timeout")
    func idleConnectionsDoNotLockOut() throws {
        let rig = try DaemonProcessTests.Rig()
        defer { rig.scratch.cleanUp() }
        _ = rig.scratch.write("evroute.yaml", """
            displays: [{ name: main, size: [800, 480] }]
            screens: [{ name: home, display: main, root: { name: root, frame: [0, 0, 800, 480] } }]
            """)
        let daemon = try rig.start([])
        defer { daemon.kill9() }
        try #require(rig.notify.wait(for: "READY=1") != nil, "log:\n\(daemon.log)")
        let idle = (0..<20).map { _ in Self.connectRaw(rig.control) }
        defer { for fd in idle where fd >= 0 { close(fd) } }
        #expect(idle.allSatisfy { $0 >= 0 })
        let start = MonotonicClock.now()
        let status = harnessControl("status", rig.control)
        let waited = (MonotonicClock.now() - start).seconds
        #expect(status?["ok"]?.boolValue == true, "status was locked out (waited \(waited) s)")
        #expect(waited < 9, "status took \(waited) s")
        // The first idle connections were closed by the daemon: reading them gives end of file.
        var byte: UInt8 = 0
        var timeout = timeval(tv_sec: 8, tv_usec: 0)
        _ = setsockopt(idle[0], SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        #expect(read(idle[0], &byte, 1) == 0, "an idle connection stays open")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit(seconds: 20) == 0)
    }

    @Test("a client that pipelines requests and never reads is dropped; the daemon's memory stays bounded")
    func pipelinedUnreadAnswersAreBounded() throws {
        let rig = try DaemonProcessTests.Rig()
        defer { rig.scratch.cleanUp() }
        _ = rig.scratch.write("evroute.yaml", """
            displays: [{ name: main, size: [800, 480] }]
            screens: [{ name: home, display: main, root: { name: root, frame: [0, 0, 800, 480] } }]
            """)
        let daemon = try rig.start([])
        defer { daemon.kill9() }
        try #require(rig.notify.wait(for: "READY=1") != nil, "log:\n\(daemon.log)")
        let fd = Self.connectRaw(rig.control)
        defer { close(fd) }
        var flags = fcntl(fd, F_GETFL)
        flags |= O_NONBLOCK
        _ = fcntl(fd, F_SETFL, flags)
        let request = Array(#"{"command":"status"}"#.utf8) + [0x0A]
        var sent = 0
        let deadline = MonotonicClock.now() + .seconds(20)
        // Send until the daemon stops reading or drops the connection.
        while sent < 200_000, MonotonicClock.now() < deadline {
            let n = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 { if errno == EAGAIN { usleep(2000); continue }; break }
            sent += 1
        }
        usleep(300_000)
        let rss = (harnessRead("/proc/\(daemon.pid)/status") ?? "").split(separator: "\n")
            .first { $0.hasPrefix("VmRSS:") }.flatMap { Int($0.split(separator: " ")[1]) } ?? 0
        #expect(rss < 64 * 1024, "daemon RSS \(rss) kB after \(sent) unread requests")
        #expect(daemon.log.contains("dropped a client that does not read its answers"), "log:\n\(daemon.log)")
        #expect(harnessControl("status", rig.control)?["ok"]?.boolValue == true, "status after the hostile client")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit(seconds: 20) == 0)
    }
}
