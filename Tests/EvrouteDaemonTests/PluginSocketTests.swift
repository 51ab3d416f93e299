#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import EvrouteDaemon
import EvrouteSystem
import EvrouteCore

/// A client of the plugin's socket, served by the test's loop: collects lines, and answers
/// each event with `answer(id)` when given.
final class TestClient {
    let fd: Int32
    var lines: [String] = []
    private var partial: [UInt8] = []

    init(path: String, loop: EventLoop, reading: Bool = true, answerTwice: Bool = false, answer: ((String) -> Bool?)? = nil) throws {
        fd = socket(AF_UNIX, SocketType.stream, 0)
        let r = UnixSocketAddress(path)!.withSockaddr { connect(fd, $0, $1) }
        guard r == 0 else { throw SystemError(errno: errno, call: "connect", path: path) }
        try SystemCall.setNonBlocking(FileDescriptor(rawValue: fd))
        guard reading else { return }
        try loop.watch(FileDescriptor(rawValue: fd)) { [unowned self] _ in
            var buf = [UInt8](repeating: 0, count: 65536)
            let n = read(self.fd, &buf, buf.count)
            if n <= 0 { loop.unwatch(FileDescriptor(rawValue: self.fd)); return }
            self.partial += buf[0..<n]
            while let nl = self.partial.firstIndex(of: 10) {
                let line = String(decoding: self.partial[..<nl], as: UTF8.self)
                self.partial.removeSubrange(...nl)
                self.lines.append(line)
                if let answer, let id = TestClient.id(in: line), let handled = answer(line) {
                    var reply = "{\"id\":\(id),\"handled\":\(handled)}\n"
                    if answerTwice { reply += "{\"handled\":\(!handled), \"id\":\(id)}\n" }
                    _ = reply.withCString { send(self.fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
                }
            }
        }
    }

    static func id(in line: String) -> Int? { field("id", in: line) }

    static func field(_ name: String, in line: String) -> Int? {
        let key = Array("\"\(name)\":".utf8), bytes = Array(line.utf8)
        guard bytes.count >= key.count else { return nil }
        for i in 0...(bytes.count - key.count) where bytes[i..<(i + key.count)].elementsEqual(key) {
            return Int(String(decoding: bytes[(i + key.count)...].prefix { $0 >= 0x30 && $0 <= 0x39 }, as: UTF8.self))
        }
        return nil
    }

    deinit { close(fd) }
}

func socketPlugin(_ path: String, _ options: [String: ConfigValue] = [:]) -> PluginSpec {
    var o = options
    o["path"] = .string(path)
    return PluginSpec(name: "ui", type: .socket, options: o)
}

@Suite("Plugin socket")
struct PluginSocketTests {
    @Test func clientsReceiveEveryEventAsAJSONLine() throws {
        let path = temporaryPath("ui.sock")
        let rig = try PluginRig(try pluginLayout(socketPlugin(path, ["mode": .string("0600")])))
        var st = stat()
        #expect(stat(path, &st) == 0 && st.st_mode & 0o777 == 0o600)
        let a = try TestClient(path: path, loop: rig.loop)
        let b = try TestClient(path: path, loop: rig.loop)
        #expect(rig.run(upTo: 5) { rig.stats("ui")[gauge: .clients] == 2 })
        let ids = (0..<3).map { _ in rig.tap() }
        #expect(rig.run(upTo: 5) { a.lines.count == 3 && b.lines.count == 3 })
        #expect(a.lines == b.lines)
        #expect(a.lines[0].hasPrefix("{\"type\":\"touch\""))
        #expect(a.lines[0].contains("\"touch\":\(ids[0]),\"phase\":\"began\",\"x\":50.0,\"y\":50.0,\"region\":\"home/root/button\",\"handled_by\":\"home/root/button\",\"handler\":\"ui\""))
        let eventIDs = a.lines.compactMap(TestClient.id(in:))
        #expect(Set(eventIDs).count == 3)
        // Without `answers`, the socket handles what it delivers.
        #expect(ids.allSatisfy { rig.outcomes.began[$0] == "home/root/button" })
        #expect(rig.stats("ui").handled == 3)
    }

    @Test func withNoClientEventsAreDeclined() throws {
        let path = temporaryPath("ui.sock")
        let rig = try PluginRig(try pluginLayout(socketPlugin(path)))
        let id = rig.tap()
        #expect(rig.outcomes.began[id] == "home/root")
        #expect(rig.stats("ui").declined == 1)
    }

    @Test func aClientCanDeclineAndTheFirstAnswerWins() throws {
        let path = temporaryPath("ui.sock")
        let rig = try PluginRig(try pluginLayout(socketPlugin(path, ["answers": .bool(true), "deadline-ms": .number(5000)])))
        // Declines odd touches' events, then answers the opposite: the first answer wins.
        let decider = try TestClient(path: path, loop: rig.loop, answerTwice: true) { line in
            TestClient.field("touch", in: line).map { $0 % 2 == 0 }
        }
        #expect(rig.run(upTo: 5) { rig.stats("ui")[gauge: .clients] == 1 })
        let ids = (0..<4).map { _ in rig.tap() }
        #expect(rig.run(upTo: 5) { decider.lines.count == 4 })
        #expect(rig.run(upTo: 5) { rig.stats("ui")[gauge: .pending] == 0 })
        let s = rig.stats("ui")
        #expect(s.handled + s.declined == 4)
        #expect(s.declined == 2)
        #expect(rig.run(upTo: 5) { rig.stats("ui")[counter: .lateAnswers] == 4 })
        for id in ids {
            #expect(rig.outcomes.began[id] == (id % 2 == 0 ? "home/root/button" : "home/root"))
        }
    }

    @Test func withoutAnAnswerByTheDeadlineTheEventCountsAsHandled() throws {
        let path = temporaryPath("ui.sock")
        let rig = try PluginRig(try pluginLayout(socketPlugin(path, ["answers": .bool(true), "deadline-ms": .number(20)])))
        let silent = try TestClient(path: path, loop: rig.loop)
        #expect(rig.run(upTo: 5) { rig.stats("ui")[gauge: .clients] == 1 })
        let id = rig.tap()
        #expect(rig.run(upTo: 5) { rig.stats("ui").timedOut == 1 })
        #expect(rig.outcomes.began[id] == "home/root/button")
        #expect(silent.lines.count == 1)
    }

    @Test func aSlowClientIsDroppedAndRoutingGoesOn() throws {
        let path = temporaryPath("ui.sock")
        let rig = try PluginRig(try pluginLayout(socketPlugin(path, ["max-buffer": .number(4096)])))
        let slow = try TestClient(path: path, loop: rig.loop, reading: false)
        let fast = try TestClient(path: path, loop: rig.loop)
        #expect(rig.run(upTo: 5) { rig.stats("ui")[gauge: .clients] == 2 })
        let start = MonotonicClock.now()
        var routed = 0
        // Enough to fill the kernel's socket buffer and then ours.
        // Enough to fill the kernel's socket buffer and then ours; the loop runs between
        // bursts so the reading client keeps up.
        for _ in 0..<100 {
            for _ in 0..<50 { rig.tap(); routed += 1 }
            rig.run(upTo: 1) { fast.lines.count == routed }
            if rig.stats("ui")[counter: .clientsDropped] == 1 { break }
        }
        let took = (MonotonicClock.now() - start).seconds
        #expect(rig.stats("ui")[counter: .clientsDropped] == 1)
        #expect(rig.stats("ui")[gauge: .clients] == 1)
        #expect(took < 3)
        #expect(rig.outcomes.began.count == routed)
        #expect(rig.run(upTo: 5) { fast.lines.count == routed })
        _ = slow
    }

    @Test func aStaleSocketFileIsReplacedAndRemovedAtShutdown() throws {
        let path = temporaryPath("ui.sock")
        // A stale socket: bound, then its owner went away.
        let stale = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        _ = UnixSocketAddress(path)!.withSockaddr { bind(stale, $0, $1) }
        close(stale)
        #expect(access(path, F_OK) == 0)
        let rig = try PluginRig(try pluginLayout(socketPlugin(path)))
        #expect(rig.stats("ui").failures == 0)
        let client = try TestClient(path: path, loop: rig.loop)
        #expect(rig.run(upTo: 5) { rig.stats("ui")[gauge: .clients] == 1 })
        _ = client
        rig.host.shutdown()
        #expect(access(path, F_OK) != 0)
    }

    @Test func aPathThatIsNotASocketIsLeftAloneAndTheEventsDecline() throws {
        let path = temporaryPath("not-a-socket")
        let f = fopen(path, "w")!
        fputs("keep me", f)
        fclose(f)
        let rig = try PluginRig(try pluginLayout(socketPlugin(path)))
        #expect(rig.stats("ui").failures == 1)
        #expect(rig.stats("ui").lastError?.contains("not a socket") == true)
        let id = rig.tap()
        #expect(rig.outcomes.began[id] == "home/root")
        #expect(readFile(path) == "keep me")
        unlink(path)
    }
}

/// A client that declines every event walks it on to another handler of the same plugin:
/// the plugin is delivered to again while it settles the answer (this aborted the daemon with
/// "Simultaneous accesses … Fatal access conflict detected").
@Suite("Plugin socket: a decline that comes back to the same plugin")
struct PluginSocketReentryTests {
    private func decliningRig(_ layout: (PluginSpec) throws -> Layout) throws -> (PluginRig, TestClient) {
        let path = temporaryPath("ui.sock")
        let rig = try PluginRig(try layout(socketPlugin(path, ["answers": .bool(true), "deadline-ms": .number(5000)])))
        let client = try TestClient(path: path, loop: rig.loop) { _ in false }
        #expect(rig.run(upTo: 5) { rig.stats("ui")[gauge: .clients] == 1 })
        return (rig, client)
    }

    @Test func onARegionAndItsParent() throws {
        let (rig, client) = try decliningRig(ReentryLayout.regionAndParent)
        let ids = (0..<3).map { _ in rig.tap(50, 50) }
        // Each began: declined on the button, delivered again on the root, declined, taken by `after`.
        #expect(rig.run(upTo: 5) { rig.stats("ui").declined == 6 })
        #expect(client.lines.count == 6)
        #expect(rig.stats("ui")[gauge: .pending] == 0)
        for id in ids { #expect(rig.outcomes.began[id] == "home/root") }
    }

    @Test func onTwoScreensOnePresentedOverTheOther() throws {
        let (rig, _) = try decliningRig(ReentryLayout.twoScreens)
        rig.router.present(screen: 1)
        let id = rig.tap(50, 50)
        // over (declined) → home, its presenter (declined) → the application's `after`.
        #expect(rig.run(upTo: 5) { rig.stats("ui").declined == 2 })
        #expect(rig.outcomes.began[id] == "application")
    }

    @Test func forKeysOnAScreenAndTheApplication() throws {
        let (rig, client) = try decliningRig(ReentryLayout.twoScreens)
        rig.press()
        // down and up, each: screen `home` (declined) → application (declined) → `after`.
        #expect(rig.run(upTo: 5) { rig.stats("ui").declined == 4 })
        #expect(client.lines.count == 4)
        #expect(rig.stats("after").handled == 2)
    }
}
