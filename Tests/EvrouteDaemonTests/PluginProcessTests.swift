#if canImport(Glibc)
import Glibc
#endif
import Testing
import EvrouteChecks
@testable import EvrouteDaemon
import EvrouteCore
import EvrouteSystem
import EvrouteTestSupport

/// A python helper: answers each event with `handled` = (touch id is even), after `prefix`.
private func answeringHelper(garbagePerEvent: Int = 0, exitAfter: Int? = nil) -> String {
    script("helper.py", """
    #!/usr/bin/env python3
    import json, sys
    n = 0
    for line in sys.stdin:
        event = json.loads(line)
        for i in range(\(garbagePerEvent)):
            sys.stdout.write("garbage %d ~~~ not json\\n" % i)
        sys.stdout.write(json.dumps({"id": event["id"], "handled": event["touch"] % 2 == 0}) + "\\n")
        sys.stdout.flush()
        n += 1
        print("answered", event["id"], file=sys.stderr, flush=True)
        if \(exitAfter.map(String.init) ?? "None") is not None and n >= \(exitAfter ?? 0):
            sys.exit(3)
    """)
}

func processPlugin(_ command: [String], _ options: [String: ConfigValue] = [:]) -> PluginSpec {
    var o = options
    o["command"] = .list(command.map { .string($0) })
    return PluginSpec(name: "helper", type: .process, options: o)
}

@Suite("Plugin process")
struct PluginProcessTests {
    @Test func helperAnswersHandledOrUnhandled() throws {
        let rig = try PluginRig(try pluginLayout(processPlugin([answeringHelper()], ["deadline-ms": .number(5000)])))
        expect(rig.run(upTo: 5) { rig.stats("helper")[gauge: .running] == 1 })
        let ids = (0..<6).map { _ in rig.tap() }
        expect(rig.run(upTo: 5) { rig.stats("helper")[gauge: .pending] == 0 })
        for id in ids {
            expectEqual(rig.outcomes.began[id], (id % 2 == 0 ? "home/root/button" : "home/root"), "touch \(id)")
        }
        let s = rig.stats("helper")
        expect(s.delivered == 6 && s.handled == 3 && s.declined == 3 && s.timedOut == 0)
        expect(rig.run(upTo: 2) { rig.logText.contains("answered") })   // stderr is logged
    }

    @Test func aCrashingHelperIsRestartedAndAnswersAgain() throws {
        let rig = try PluginRig(try pluginLayout(processPlugin([answeringHelper(exitAfter: 1)],
                                                               ["deadline-ms": .number(5000), "restart-min-ms": .number(20)])))
        expect(rig.run(upTo: 5) { rig.stats("helper")[gauge: .running] == 1 })
        let firstPID = rig.stats("helper")[gauge: .pid]
        let first = rig.tap()
        expect(rig.run(upTo: 5) { rig.stats("helper")[gauge: .running] == 0 })
        // While it is down its events are declined at once: they walk on.
        let whileDown = rig.tap()
        expectEqual(rig.outcomes.began[whileDown], "home/root")
        expect(rig.run(upTo: 5) { rig.stats("helper").restarts >= 1 && rig.stats("helper")[gauge: .running] == 1 })
        expect(rig.stats("helper")[gauge: .pid] != firstPID)
        var later: [Int] = []
        for _ in 0..<2 { later.append(rig.tap()) }   // the restarted helper answers the first, then exits again
        expect(rig.run(upTo: 5) { later.allSatisfy { rig.outcomes.began[$0] != nil } && rig.stats("helper")[gauge: .pending] == 0 })
        expectEqual(rig.outcomes.began[first], (first % 2 == 0 ? "home/root/button" : "home/root"))
        expectEqual(rig.outcomes.began[later[0]], (later[0] % 2 == 0 ? "home/root/button" : "home/root"))
        expect(rig.stats("helper").failures >= 1)
        expectEqual(rig.stats("helper").lastError?.contains("exited with status 3"), true)
    }

    @Test func aHelperThatNeverAnswersTimesOutAndRoutingGoesOn() throws {
        // Reads its stdin (so writes succeed) but never answers.
        let rig = try PluginRig(try pluginLayout(processPlugin(["/bin/sh", "-c", "cat > /dev/null"], ["deadline-ms": .number(50)])))
        expect(rig.run(upTo: 5) { rig.stats("helper")[gauge: .running] == 1 })
        let ids = (0..<300).map { _ in rig.tap() }
        // Routing of the burst completed without waiting on the helper (counted, not timed):
        // every event is in flight and none has waited out its deadline, for the loop did not run.
        expectEqual(rig.stats("helper")[gauge: .pending], 300)
        expectEqual(rig.stats("helper").timedOut, 0)
        expectEqual(rig.outcomes.began.count, 300)
        expect(rig.run(upTo: 5) { rig.stats("helper").timedOut == 300 })
        expect(ids.allSatisfy { rig.outcomes.began[$0] == "home/root" })
        expectEqual(rig.stats("helper").handled, 0)
        expect(rig.logText.contains("within 50 ms"))
    }

    @Test func floodingAndGarbageAreCountedAndAnswersStillArrive() throws {
        let rig = try PluginRig(try pluginLayout(processPlugin([answeringHelper(garbagePerEvent: 2000)], ["deadline-ms": .number(5000)])))
        expect(rig.run(upTo: 5) { rig.stats("helper")[gauge: .running] == 1 })
        let ids = (0..<10).map { _ in rig.tap() }
        expect(rig.run(upTo: 10) { rig.stats("helper")[gauge: .pending] == 0 })
        let s = rig.stats("helper")
        expectEqual(s.handled + s.declined, 10)
        expectEqual(s[counter: .garbageLines], 20_000)
        expect(ids.allSatisfy { rig.outcomes.began[$0] == ($0 % 2 == 0 ? "home/root/button" : "home/root") })
        // Rate-limited: a handful of garbage lines logged, not 20,000.
        let logged = rig.logText.split(separator: "\n").filter { $0.contains("not an answer") }.count
        expect(logged >= 1 && logged <= 10)
    }

    @Test func aHelperThatDoesNotReadItsStdinGetsEventsDropped() throws {
        let rig = try PluginRig(try pluginLayout(processPlugin(["sleep", "30"], ["deadline-ms": .number(20), "max-buffer": .number(1024)])))
        expect(rig.run(upTo: 5) { rig.stats("helper")[gauge: .running] == 1 })
        let ids = (0..<2000).map { _ in rig.tap() }
        // Routing went on while nothing was read (counted, not timed): what did not fit was
        // dropped, none of it waited out its deadline (the loop did not run).
        let s = rig.stats("helper")
        expectEqual(s.timedOut, 0)
        expect(s.dropped > 0)
        expect(s[gauge: .queuedBytes]! <= 1024)
        expect(rig.run(upTo: 5) { rig.stats("helper")[gauge: .pending] == 0 })
        expect(ids.allSatisfy { rig.outcomes.began[$0] == "home/root" })
    }

    @Test func aHelperThatCannotBeStartedIsRetriedWithBackoff() throws {
        let rig = try PluginRig(try pluginLayout(processPlugin(["/nonexistent/evroute-helper"], ["restart-min-ms": .number(10), "restart-max-ms": .number(40)])))
        let id = rig.tap()
        expectEqual(rig.outcomes.began[id], "home/root")
        expect(rig.run(upTo: 5) { rig.stats("helper").restarts >= 4 })
        let s = rig.stats("helper")
        expect(s.failures >= 5)
        expectEqual(s.lastError?.contains("evroute-helper"), true)
    }

    @Test func shutdownStopsTheHelper() throws {
        // The helper says a line (not an answer: counted as garbage) once it ignores SIGTERM.
        let rig = try PluginRig(try pluginLayout(processPlugin(["/bin/sh", "-c", "trap '' TERM; echo ready; while :; do sleep 0.05; done"])))
        expect(rig.run(upTo: 5) { rig.stats("helper")[gauge: .running] == 1 && rig.stats("helper")[counter: .garbageLines] >= 1 })
        let pid = pid_t(rig.stats("helper")[gauge: .pid]!)
        expect(processExists(pid))
        rig.host.shutdown(grace: .milliseconds(200))
        // The grace ran out once and the helper was killed (counted, not timed).
        expectEqual(rig.logText.split(separator: "\n").filter { $0.contains("ignored SIGTERM; SIGKILL") }.count, 1, "\(rig.logText)")
        // Reaped: not even a zombie with that pid left.
        expect(!processExists(pid))
    }

    @Test func theKioskHelperExample() throws {
        let example = String(#filePath).split(separator: "/").dropLast(3).joined(separator: "/")
        let path = "/" + example + "/examples/kiosk-helper.py"
        try #require(access(path, R_OK) == 0, "missing \(path)")
        let rig = try PluginRig(try pluginLayout(processPlugin(["python3", path, "--regions", "home/root/button"], ["deadline-ms": .number(5000)]),
                                                 buttonOn: [.touchBegan]))
        expect(rig.run(upTo: 5) { rig.stats("helper")[gauge: .running] == 1 })
        let onButton = rig.tap(50, 50)
        expect(rig.run(upTo: 5) { rig.stats("helper")[gauge: .pending] == 0 })
        expectEqual(rig.outcomes.began[onButton], "home/root/button")
        expectEqual(rig.stats("helper").handled, 1)

        // Regions it does not list: it declines, the event walks on to the root.
        let other = try PluginRig(try pluginLayout(processPlugin(["python3", path, "--regions", "home/root/elsewhere"], ["deadline-ms": .number(5000)])))
        expect(other.run(upTo: 5) { other.stats("helper")[gauge: .running] == 1 })
        let declined = other.tap(50, 50)
        expect(other.run(upTo: 5) { other.stats("helper")[gauge: .pending] == 0 })
        expectEqual(other.outcomes.began[declined], "home/root")
        expectEqual(other.stats("helper").declined, 1)
    }
}

/// A helper that declines every event: the walk reaches the same plugin again while its answer
/// is being settled (this aborted the daemon with an exclusivity conflict).
private func decliningHelper(exitAfter: Int? = nil) -> String {
    script("decline.py", """
    #!/usr/bin/env python3
    import json, sys
    n = 0
    for line in sys.stdin:
        event = json.loads(line)
        sys.stdout.write(json.dumps({"id": event["id"], "handled": False}) + "\\n")
        sys.stdout.flush()
        n += 1
        if \(exitAfter.map(String.init) ?? "None") is not None and n >= \(exitAfter ?? 0):
            sys.exit(0)
    """)
}

@Suite("Plugin process: a decline that comes back to the same plugin")
struct PluginProcessReentryTests {
    @Test func onARegionAndItsParent() throws {
        let rig = try PluginRig(try ReentryLayout.regionAndParent(processPlugin([decliningHelper()], ["deadline-ms": .number(5000)])))
        expect(rig.run(upTo: 5) { rig.stats("helper")[gauge: .running] == 1 })
        let ids = (0..<3).map { _ in rig.tap(50, 50) }
        expect(rig.run(upTo: 5) { rig.stats("helper").declined == 6 })
        expectEqual(rig.stats("helper")[gauge: .pending], 0)
        for id in ids { expectEqual(rig.outcomes.began[id], "home/root") }
    }

    @Test func forKeysOnAScreenAndTheApplication() throws {
        let rig = try PluginRig(try ReentryLayout.twoScreens(processPlugin([decliningHelper()], ["deadline-ms": .number(5000)])))
        expect(rig.run(upTo: 5) { rig.stats("helper")[gauge: .running] == 1 })
        rig.press()
        expect(rig.run(upTo: 5) { rig.stats("helper").declined == 4 })
        expectEqual(rig.stats("after").handled, 2)
    }

    /// The helper declines and exits: its last answers are read while it is taken down (the
    /// walk then comes back to the plugin with no helper), and events delivered while it is
    /// gone are declined at once — inside the router's walk.
    @Test func aHelperThatDeclinesAndDies() throws {
        let rig = try PluginRig(try ReentryLayout.regionAndParent(processPlugin([decliningHelper(exitAfter: 1)],
                                                                                ["deadline-ms": .number(5000)])))
        expect(rig.run(upTo: 5) { rig.stats("helper")[gauge: .running] == 1 })
        let first = rig.tap(50, 50)
        expect(rig.run(upTo: 5) { rig.stats("helper").failures == 1 })
        expect(rig.run(upTo: 5) { rig.outcomes.began[first] == "home/root" })
        let second = rig.tap(50, 50)
        expectEqual(rig.outcomes.began[second], "home/root")
        expect(rig.stats("helper").delivered >= 3)
    }
}

/// A helper that reads one event, leaves it unanswered and closes its stdin (but lives on).
private func stdinClosingHelper() -> String {
    script("close-stdin.py", """
    #!/usr/bin/env python3
    import os, sys, time
    sys.stdin.readline()
    os.close(0)
    print("stdin closed", file=sys.stderr, flush=True)
    time.sleep(30)
    """)
}

extension PluginProcessReentryTests {
    /// The second touch's line, written at the end of its frame (a frame's lines leave in one
    /// write), finds the helper's stdin broken: the helper is taken down and both events still
    /// waiting walk on, in the order they were delivered — after the second touch's walk ended.
    @Test func aHelperFoundGoneWhenItsFrameIsWritten() throws {
        let rig = try PluginRig(try ReentryLayout.regionAndParent(processPlugin([stdinClosingHelper()], ["deadline-ms": .number(5000)])))
        expect(rig.run(upTo: 5) { rig.stats("helper")[gauge: .running] == 1 })
        let first = rig.tap(50, 50)
        expect(rig.run(upTo: 5) { rig.logText.contains("stdin closed") })
        let second = rig.tap(50, 50)
        expect(rig.run(upTo: 5) { rig.outcomes.began[first] == "home/root" })
        expectEqual(rig.outcomes.began[second], "home/root")
        // The second touch's walk ended (taken, its answer awaited) before the waiting events went on.
        expectEqual(rig.outcomes.beganOrder, [first, second, first, second])
        expectEqual(rig.stats("helper").failures, 1)
        expectEqual(rig.stats("helper")[gauge: .pending], 0)
    }
}

/// A helper that records, for each read(2) of its stdin, how many lines it got, one number per
/// line in `path`; it never answers.
private func chunkRecordingHelper(_ path: String) -> String {
    script("chunks.py", """
    #!/usr/bin/env python3
    import os
    out = open("\(path)", "w")
    while True:
        chunk = os.read(0, 65536)
        if not chunk:
            break
        out.write("%d\\n" % chunk.count(b"\\n"))
        out.flush()
    """)
}

/// The write(2) calls this thread made so far (`syscw` of /proc/thread-self/io: the loop runs
/// on the calling thread).
private func writeCalls() throws -> Int {
    let io = try #require(readFile("/proc/thread-self/io"))
    let line = try #require(io.split(separator: "\n").first { $0.hasPrefix("syscw:") })
    return try #require(Int(line.dropFirst("syscw:".count).filter { $0 != " " }))
}

extension PluginProcessTests {
    /// A frame's lines reach the helper in one write(2) to its stdin, at the end of the wake-up
    /// (not one per event): three touches beginning in one frame make one write, and the
    /// helper's first read gets the three lines.
    @Test func aFramesLinesLeaveInOneWrite() throws {
        let chunks = temporaryPath("chunks")
        defer { unlink(chunks) }
        let rig = try PluginRig(try pluginLayout(processPlugin([chunkRecordingHelper(chunks)], ["deadline-ms": .number(5000)])))
        expect(rig.run(upTo: 5) { rig.stats("helper")[gauge: .running] == 1 })
        let before = try writeCalls()
        rig.router.handle(TouchFrameInput(device: DeviceID(1), time: Timestamp(microseconds: 5_000_000), contacts: [
            ContactSample(contact: 101, change: .began, location: Point(x: 10, y: 10)),
            ContactSample(contact: 102, change: .began, location: Point(x: 20, y: 20)),
            ContactSample(contact: 103, change: .began, location: Point(x: 30, y: 30)),
        ]))
        try expectEqual(try writeCalls(), before)   // nothing written during the walk
        rig.host.writeFrame()
        try expectEqual(try writeCalls(), before + 1)
        expectEqual(rig.stats("helper")[gauge: .pending], 3)
        expect(rig.run(upTo: 5) { (readFile(chunks) ?? "").hasSuffix("\n") })
        expectEqual(readFile(chunks), "3\n")
    }
}
