#if canImport(Glibc)
import Glibc
#endif
import Testing
import EvrouteChecks
@testable import EvrouteDaemon
import CLinux
import EvrouteSystem
import EvrouteCore
import EvrouteTestSupport

/// A client of the plugin's socket (a ``LineClient``), served by the rig's loop: collects lines,
/// and answers each event with `answer(line)` when given (twice, the second contradicting the
/// first, with `answerTwice`). Not `reading`: connected, never read.
func socketClient(_ path: String, _ rig: PluginRig, reading: Bool = true, answerTwice: Bool = false,
                  answer: ((String) -> Bool?)? = nil) throws -> LineClient {
    let client = try LineClient(path: path)
    try client.setNonBlocking()
    guard reading else { return client }
    try client.attach(to: rig.loop, answer: answer.map { decide in
        { line in
            guard let id = eventID(in: line), let handled = decide(line) else { return nil }
            var reply = "{\"id\":\(id),\"handled\":\(handled)}\n"
            if answerTwice { reply += "{\"handled\":\(!handled), \"id\":\(id)}\n" }
            return reply
        }
    })
    return client
}

/// The event id of a plugin event line.
func eventID(in line: String) -> Int? { eventField("id", in: line) }

/// The digits after `"name":` in a line.
func eventField(_ name: String, in line: String) -> Int? {
    let key = Array("\"\(name)\":".utf8), bytes = Array(line.utf8)
    guard bytes.count >= key.count else { return nil }
    for i in 0...(bytes.count - key.count) where bytes[i..<(i + key.count)].elementsEqual(key) {
        return Int(String(decoding: bytes[(i + key.count)...].prefix { $0 >= 0x30 && $0 <= 0x39 }, as: UTF8.self))
    }
    return nil
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
        expect(stat(path, &st) == 0 && st.st_mode & 0o777 == 0o600)
        let a = try socketClient(path, rig)
        let b = try socketClient(path, rig)
        expect(rig.run(upTo: 5) { rig.stats("ui")[gauge: .clients] == 2 })
        let ids = (0..<3).map { _ in rig.tap() }
        expect(rig.run(upTo: 5) { a.lines.count == 3 && b.lines.count == 3 })
        expectEqual(a.lines, b.lines)
        expect(a.lines[0].hasPrefix("{\"type\":\"touch\""))
        expect(a.lines[0].contains("\"touch\":\(ids[0]),\"phase\":\"began\",\"x\":50.0,\"y\":50.0,\"region\":\"home/root/button\",\"handled_by\":\"home/root/button\",\"handler\":\"ui\""))
        let eventIDs = a.lines.compactMap(eventID(in:))
        expectEqual(Set(eventIDs).count, 3)
        // Without `answers`, the socket handles what it delivers.
        expect(ids.allSatisfy { rig.outcomes.began[$0] == "home/root/button" })
        expectEqual(rig.stats("ui").handled, 3)
    }

    /// A frame's lines are written into one buffer during the walk and leave at the end of the
    /// wake-up, one write per client: nothing reaches a client before, and each gets the
    /// frame's lines, in order, the same bytes (encoded once).
    @Test func aFramesLinesLeaveAtItsEnd() throws {
        let path = temporaryPath("ui.sock")
        let rig = try PluginRig(try pluginLayout(socketPlugin(path)))
        let a = try socketClient(path, rig, reading: false), b = try socketClient(path, rig, reading: false)
        expect(rig.run(upTo: 5) { rig.stats("ui")[gauge: .clients] == 2 })
        rig.router.handle(TouchFrameInput(device: DeviceID(1), time: Timestamp(microseconds: 5_000_000), contacts: [
            ContactSample(contact: 101, change: .began, location: Point(x: 10, y: 10)),
            ContactSample(contact: 102, change: .began, location: Point(x: 20, y: 20)),
            ContactSample(contact: 103, change: .began, location: Point(x: 30, y: 30)),
        ]))
        expect(!a.hasData && !b.hasData)   // nothing written during the walk
        expectEqual(rig.stats("ui").handled, 3)
        rig.host.writeFrame()
        let text = a.readAll()
        expectEqual(text, b.readAll())
        let lines = text.split(separator: "\n")
        expect(lines.count == 3 && text.hasSuffix("\n"))
        expectEqual(lines.map { eventField("x", in: String($0)) }, [10, 20, 30])
        expectEqual(lines.compactMap { eventID(in: String($0)) }.count, 3)
    }

    @Test func withNoClientEventsAreDeclined() throws {
        let path = temporaryPath("ui.sock")
        let rig = try PluginRig(try pluginLayout(socketPlugin(path)))
        let id = rig.tap()
        expectEqual(rig.outcomes.began[id], "home/root")
        expectEqual(rig.stats("ui").declined, 1)
    }

    @Test func aClientCanDeclineAndTheFirstAnswerWins() throws {
        let path = temporaryPath("ui.sock")
        let rig = try PluginRig(try pluginLayout(socketPlugin(path, ["answers": .bool(true), "deadline-ms": .number(5000)])))
        // Declines odd touches' events, then answers the opposite: the first answer wins.
        let decider = try socketClient(path, rig, answerTwice: true) { line in
            eventField("touch", in: line).map { $0 % 2 == 0 }
        }
        expect(rig.run(upTo: 5) { rig.stats("ui")[gauge: .clients] == 1 })
        let ids = (0..<4).map { _ in rig.tap() }
        expect(rig.run(upTo: 5) { decider.lines.count == 4 })
        expect(rig.run(upTo: 5) { rig.stats("ui")[gauge: .pending] == 0 })
        let s = rig.stats("ui")
        expectEqual(s.handled + s.declined, 4)
        expectEqual(s.declined, 2)
        expect(rig.run(upTo: 5) { rig.stats("ui")[counter: .lateAnswers] == 4 })
        for id in ids {
            expectEqual(rig.outcomes.began[id], (id % 2 == 0 ? "home/root/button" : "home/root"))
        }
    }

    @Test func withoutAnAnswerByTheDeadlineTheEventCountsAsHandled() throws {
        let path = temporaryPath("ui.sock")
        let rig = try PluginRig(try pluginLayout(socketPlugin(path, ["answers": .bool(true), "deadline-ms": .number(20)])))
        let silent = try socketClient(path, rig)
        expect(rig.run(upTo: 5) { rig.stats("ui")[gauge: .clients] == 1 })
        let id = rig.tap()
        expect(rig.run(upTo: 5) { rig.stats("ui").timedOut == 1 })
        expectEqual(rig.outcomes.began[id], "home/root/button")
        expectEqual(silent.lines.count, 1)
    }

    @Test func aSlowClientIsDroppedAndRoutingGoesOn() throws {
        let path = temporaryPath("ui.sock")
        let rig = try PluginRig(try pluginLayout(socketPlugin(path, ["max-buffer": .number(4096)])))
        let slow = try socketClient(path, rig, reading: false)
        let fast = try socketClient(path, rig)
        expect(rig.run(upTo: 5) { rig.stats("ui")[gauge: .clients] == 2 })
        var routed = 0
        // Enough to fill the kernel's socket buffer and then ours.
        // Enough to fill the kernel's socket buffer and then ours; the loop runs between
        // bursts so the reading client keeps up.
        for _ in 0..<100 {
            for _ in 0..<50 { rig.tap(); routed += 1 }
            rig.run(upTo: 1) { fast.lines.count == routed }
            if rig.stats("ui")[counter: .clientsDropped] == 1 { break }
        }
        expectEqual(rig.stats("ui")[counter: .clientsDropped], 1)
        expectEqual(rig.stats("ui")[gauge: .clients], 1)
        // Counted, not timed: dropped while bursts were left (not at the end of all 5,000 events).
        expect(routed < 100 * 50, "\(routed) events routed")
        expectEqual(rig.outcomes.began.count, routed)
        expect(rig.run(upTo: 5) { fast.lines.count == routed })
        _ = slow
    }

    @Test("at shutdown, what a client never read goes with its connection after the grace, said so: a warning names the client and the bytes")
    func unreadAtShutdownIsLogged() throws {
        let path = temporaryPath("ui.sock")
        let rig = try PluginRig(try pluginLayout(socketPlugin(path, ["max-buffer": .number(8_388_608)])))
        let idle = try socketClient(path, rig, reading: false)
        expect(rig.run(upTo: 5) { rig.stats("ui")[gauge: .clients] == 1 })
        // Far more than the kernel's socket buffer takes: the rest waits in the plugin's queue.
        for _ in 0..<20 {
            for _ in 0..<200 { rig.tap() }
            rig.run(upTo: 0.05) { false }
        }
        expectEqual(rig.stats("ui")[counter: .clientsDropped], 0)
        expect(!rig.logText.contains("did not read"))
        rig.host.shutdown()
        let warning = try #require(rig.logText.split(separator: "\n").first { $0.contains("did not read") }, "\(rig.logText.suffix(500))")
        expect(warning.contains("socket ui: client 1 did not read its last "), "\(warning)")
        expect(warning.hasSuffix("bytes within 3 s of the stop; closed with them unread"), "\(warning)")
        _ = idle
    }

    @Test func aStaleSocketFileIsReplacedAndRemovedAtShutdown() throws {
        let path = temporaryPath("ui.sock")
        // A stale socket: bound, then its owner went away.
        let stale = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        _ = UnixSocketAddress(path)!.withSockaddr { bind(stale, $0, $1) }
        close(stale)
        expectEqual(access(path, F_OK), 0)
        let rig = try PluginRig(try pluginLayout(socketPlugin(path)))
        expectEqual(rig.stats("ui").failures, 0)
        let client = try socketClient(path, rig)
        expect(rig.run(upTo: 5) { rig.stats("ui")[gauge: .clients] == 1 })
        _ = client
        rig.host.shutdown()
        expect(access(path, F_OK) != 0)
    }

    @Test func aPathThatIsNotASocketIsLeftAloneAndTheEventsDecline() throws {
        let path = temporaryPath("not-a-socket")
        let f = fopen(path, "w")!
        fputs("keep me", f)
        fclose(f)
        let rig = try PluginRig(try pluginLayout(socketPlugin(path)))
        expectEqual(rig.stats("ui").failures, 1)
        expectEqual(rig.stats("ui").lastError?.contains("not a socket"), true)
        let id = rig.tap()
        expectEqual(rig.outcomes.began[id], "home/root")
        expectEqual(readFile(path), "keep me")
        unlink(path)
    }
}

/// A client that declines every event walks it on to another handler of the same plugin:
/// the plugin is delivered to again while it settles the answer (this aborted the daemon with
/// "Simultaneous accesses … Fatal access conflict detected").
@Suite("Plugin socket: a decline that comes back to the same plugin")
struct PluginSocketReentryTests {
    private func decliningRig(_ layout: (PluginSpec) throws -> Layout) throws -> (PluginRig, LineClient) {
        let path = temporaryPath("ui.sock")
        let rig = try PluginRig(try layout(socketPlugin(path, ["answers": .bool(true), "deadline-ms": .number(5000)])))
        let client = try socketClient(path, rig) { _ in false }
        expect(rig.run(upTo: 5) { rig.stats("ui")[gauge: .clients] == 1 })
        return (rig, client)
    }

    @Test func onARegionAndItsParent() throws {
        let (rig, client) = try decliningRig(ReentryLayout.regionAndParent)
        let ids = (0..<3).map { _ in rig.tap(50, 50) }
        // Each began: declined on the button, delivered again on the root, declined, taken by `after`.
        expect(rig.run(upTo: 5) { rig.stats("ui").declined == 6 })
        expectEqual(client.lines.count, 6)
        expectEqual(rig.stats("ui")[gauge: .pending], 0)
        for id in ids { expectEqual(rig.outcomes.began[id], "home/root") }
    }

    @Test func onTwoScreensOnePresentedOverTheOther() throws {
        let (rig, _) = try decliningRig(ReentryLayout.twoScreens)
        rig.router.present(screen: 1)
        let id = rig.tap(50, 50)
        // over (declined) → home, its presenter (declined) → the application's `after`.
        expect(rig.run(upTo: 5) { rig.stats("ui").declined == 2 })
        expectEqual(rig.outcomes.began[id], "application")
    }

    @Test func forKeysOnAScreenAndTheApplication() throws {
        let (rig, client) = try decliningRig(ReentryLayout.twoScreens)
        rig.press()
        // down and up, each: screen `home` (declined) → application (declined) → `after`.
        expect(rig.run(upTo: 5) { rig.stats("ui").declined == 4 })
        expectEqual(client.lines.count, 4)
        expectEqual(rig.stats("after").handled, 2)
    }
}
