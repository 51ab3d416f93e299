#if canImport(Glibc)
import Glibc
#endif
import CLinux
import EvrouteJSON
import EvrouteRuntime
import EvrouteSystem
import Testing
import EvrouteChecks
import EvrouteTestSupport

/// The real daemon under hostile use: idle control clients do not lock out
/// `evroute status`, a client that floods requests and reads nothing costs bounded memory,
/// and contacts past the decoder's limits are logged and counted in `status`.
@Suite("Daemon under hostile use", .serialized)
struct HostileDaemonTests {
    static let config = DaemonLayout.yaml(screens: """
        - name: home
          display: main
          root: { name: root, frame: [0, 0, 1280, 800], handlers: [{ plugin: log, on: [touch-ended] }] }
        """)

    struct Rig {
        let scratch = Scratch("evroute-daemon-test")
        let binary: String
        let notify: DaemonNotifySocket
        var control: String { scratch.file("control.sock") }

        init() throws {
            guard let binary = evrouteBinaryPath() else { throw TestSupportError("the evroute binary is not next to the test bundle; run `swift build` first") }
            self.binary = binary
            notify = try DaemonNotifySocket(path: scratch.file("notify.sock"))
            _ = scratch.write("evroute.yaml", HostileDaemonTests.config)
        }

        func start(_ arguments: [String] = []) throws -> TestProcess {
            try TestProcess.daemon(binary, arguments: ["--config", scratch.file("evroute.yaml"), "--control-socket", control] + arguments,
                              environment: ["NOTIFY_SOCKET": notify.path], logPath: scratch.file("daemon.log"))
        }
    }

    @Test func idleControlClientsDoNotLockOutStatus() throws {
        let rig = try Rig()
        defer { rig.scratch.cleanUp() }
        let daemon = try rig.start()
        defer { daemon.kill9() }
        try #require(rig.notify.wait(for: "READY=1") != nil, "log:\n\(daemon.log)")
        // 20 connections that never say a word (16 locked the socket out before).
        let idle = try (0..<20).map { _ in try LineClient(path: rig.control) }
        defer { for client in idle { client.close() } }
        let out = rig.scratch.file("status")
        let cli = try TestProcess.daemon(rig.binary, arguments: ["status", "--control-socket", rig.control, "--format", "json"], logPath: out)
        defer { cli.kill9() }
        expectEqual(cli.waitForExit(seconds: 20), 0, "\(cli.log)")
        // Answered while the idle clients still sat there: the per-process places (8) were still
        // held, none yet closed by the 10 s idle timeout (an answer only after it would find fewer).
        let stillOpen = idle.filter { !$0.isClosedByPeer && !$0.hasData }.count
        expectEqual(stillOpen, ControlServer.maximumClientsPerProcess, "status answered while 20 clients sat idle (\(stillOpen) still held)")
        let answer = try JSONValue.parse(readFile(out + ".out") ?? "")
        expectEqual(answer["ok"]?.boolValue, true)
        // One process holds at most 8 places: its other 12 were told "busy" and closed at once.
        // The 8 idle ones are closed after 10 s without a request, each with a log line.
        var closed = 0, busy = 0
        let deadline = monotonicSeconds() + 20
        while closed < idle.count && monotonicSeconds() < deadline {
            closed = 0
            for client in idle {
                let fd = client.fd
                var buffer = [UInt8](repeating: 0, count: 512)
                var n = 0
                repeat {
                    n = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
                    if n > 0, String(decoding: buffer[0..<n], as: UTF8.self).contains("\"busy\":true") { busy += 1 }
                } while n > 0
                if n == 0 { closed += 1 }
            }
            usleep(100_000)
        }
        expectEqual(closed, idle.count, "idle clients closed: \(closed)")
        expectEqual(busy, idle.count - ControlServer.maximumClientsPerProcess, "refused at once: \(busy)")
        // Info lines are written in batches (at most 250 ms after the first one waits).
        let logged = monotonicSeconds() + 3
        while !daemon.log.contains("no request for 10.0 s") && monotonicSeconds() < logged { usleep(50_000) }
        expect(daemon.log.contains("no request for 10.0 s"), "\(daemon.log)")
        daemon.signal(SIGTERM)
        expectEqual(daemon.waitForExit(seconds: 20), 0)
    }

    @Test func aClientThatFloodsRequestsAndReadsNothingCostsBoundedMemory() throws {
        let rig = try Rig()
        defer { rig.scratch.cleanUp() }
        let daemon = try rig.start()
        defer { daemon.kill9() }
        try #require(rig.notify.wait(for: "READY=1") != nil, "log:\n\(daemon.log)")
        _ = harnessControl("status", rig.control)
        let before = daemon.status("VmRSS") ?? 0
        let client = try LineClient(path: rig.control)
        defer { client.close() }
        try client.setNonBlocking()
        let fd = client.fd
        // 200,000 status requests (4 MB) without reading an answer: ~300 MB of answers unbounded.
        let request = Array(String(repeating: "{\"command\":\"status\"}\n", count: 1000).utf8)
        var batches = 0
        let deadline = monotonicSeconds() + 30
        while batches < 200 && monotonicSeconds() < deadline {
            var offset = 0
            while offset < request.count && monotonicSeconds() < deadline {
                let n = request.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
                if n > 0 { offset += n } else if errno == EAGAIN { usleep(1000) } else { break }
            }
            if offset < request.count { break }   // the daemon hung up
            batches += 1
        }
        let deadline2 = monotonicSeconds() + 10
        while !daemon.log.contains("does not read its answers") && monotonicSeconds() < deadline2 { usleep(50_000) }
        let after = daemon.status("VmRSS") ?? 0
        print("control flood: \(batches) × 1000 requests sent; VmRSS \(before) kB → \(after) kB")
        expect(daemon.log.contains("control socket: dropped client"), "\(daemon.log)")
        expect(after - before < 32 * 1024, "RSS grew by \(after - before) kB")
        expectEqual(harnessControl("status", rig.control)?["ok"]?.boolValue, true, "still serving")
        daemon.signal(SIGTERM)
        expectEqual(daemon.waitForExit(seconds: 20), 0)
    }

    /// An evemu recording of a touchscreen that declares `slots` slots and puts a finger in each.
    static func manySlots(_ slots: Int) -> String {
        func hex(_ bytes: [UInt8]) -> String { bytes.map { $0 < 16 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined(separator: " ") }
        var keyBits = [UInt8](repeating: 0, count: 42)
        keyBits[330 / 8] |= 1 << (330 % 8)                       // BTN_TOUCH
        var absBits = [UInt8](repeating: 0, count: 8)
        for code in [0, 1, 0x2f, 0x35, 0x36, 0x39] { absBits[code / 8] |= UInt8(1 << (code % 8)) }
        var lines = ["# EVEMU 1.3", "N: hostile \(slots)-slot panel", "I: 0003 1209 0001 0001",
                     "P: 02 00 00 00 00 00 00 00",               // INPUT_PROP_DIRECT
                     "B: 00 " + hex([0x0b, 0, 0, 0, 0, 0, 0, 0]),  // EV_SYN, EV_KEY, EV_ABS
                     "B: 01 " + hex(keyBits), "B: 03 " + hex(absBits),
                     "A: 00 0 999 0 0 0", "A: 01 0 999 0 0 0", "A: 2f 0 \(slots - 1) 0 0 0",
                     "A: 35 0 999 0 0 0", "A: 36 0 999 0 0 0", "A: 39 0 65535 0 0 0"]
        for s in 0..<slots {
            lines += ["E: 1.000000 0003 002f \(s)", "E: 1.000000 0003 0039 \(s)",
                      "E: 1.000000 0003 0035 \(s * 3 % 1000)", "E: 1.000000 0003 0036 500"]
        }
        lines += ["E: 1.000000 0001 014a 1", "E: 1.000000 0000 0000 0"]
        for s in 0..<slots { lines += ["E: 1.100000 0003 002f \(s)", "E: 1.100000 0003 0039 -1"] }
        lines += ["E: 1.100000 0001 014a 0", "E: 1.100000 0000 0000 0"]
        return lines.joined(separator: "\n") + "\n"
    }

    @Test func contactsPastTheSlotLimitAreLoggedAndCountedInStatus() throws {
        let rig = try Rig()
        defer { rig.scratch.cleanUp() }
        let recording = rig.scratch.write("panel.events", Self.manySlots(300))
        let daemon = try rig.start(["--replay", recording, "--keep-replay-devices"])
        defer { daemon.kill9() }
        try #require(rig.notify.wait(for: "READY=1") != nil, "log:\n\(daemon.log)")
        var status: JSONValue?
        let deadline = monotonicSeconds() + 20
        while monotonicSeconds() < deadline {
            status = harnessControl("status", rig.control)
            if status?["input"]?.stringValue == "replay finished" { break }
            usleep(50_000)
        }
        expectEqual(status?["events"]?["contacts_dropped"]?.intValue, 44, "\(status?["events"]?.serialized ?? "no status")")
        expect(status?["events"]?["touch"]?.intValue ?? 0 >= 256)
        let warnings = daemon.log.split(separator: "\n").filter { $0.contains("slots per device") }
        expectEqual(warnings.count, 1, "\(daemon.log)")
        expectEqual(warnings.first?.contains("warning: input: device \"hostile 300-slot panel\" (rule touch): a contact in slot 256 is ignored"), true,
                "\(warnings)")
        daemon.signal(SIGTERM)
        expectEqual(daemon.waitForExit(seconds: 20), 0)
    }
}
