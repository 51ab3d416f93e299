#if canImport(Glibc)
import Glibc
#endif
import Testing
import EvrouteChecks
@testable import EvrouteDaemon
import EvrouteCore
import EvrouteSystem
import EvrouteTestSupport

@Suite("Plugin exec")
struct PluginExecTests {
    @Test func runsTheHandlerCommandWithTheEventInItsEnvironment() throws {
        let out = temporaryPath("env.txt")
        let layout = try pluginLayout(PluginSpec(name: "shell", type: .exec),
                                      handlerOptions: ["command": .list([.string("/bin/sh"), .string("-c"), .string("env | grep ^EVROUTE_ | sort > \"$0.tmp\" && mv \"$0.tmp\" \"$0\""), .string(out)])])
        let rig = try PluginRig(layout)
        let id = rig.tap()
        expectEqual(rig.outcomes.began[id], "home/root/button")   // exec always handles
        expect(rig.run(upTo: 5) { readFile(out) != nil })
        let env = readFile(out) ?? ""
        expect(env.contains("EVROUTE_TYPE=touch\n"))
        expect(env.contains("EVROUTE_PHASE=began\n"))
        expect(env.contains("EVROUTE_REGION=home/root/button\n"))
        expect(env.contains("EVROUTE_X=50\n"))
        expect(env.contains("EVROUTE_Y=50\n"))
        expect(env.contains("EVROUTE_TOUCH=\(id)\n"))
        expect(env.contains("EVROUTE_DEVICE=touch\n"))
        expect(env.contains("EVROUTE_HANDLED_BY=home/root/button\n"))
        expect(env.contains("EVROUTE_HANDLER=shell\n"))
        expect(env.contains("EVROUTE_JSON={\"type\":\"touch\""))
        expect(env.contains("\"id\":"))
        expect(!env.contains("EVROUTE_KEY="))
        let s = rig.stats("shell")
        expect(s.delivered == 1 && s.handled == 1 && s.failures == 0)
        unlink(out)
    }

    @Test func shellStringAndPluginLevelCommandWithOutputLogged() throws {
        let layout = try pluginLayout(PluginSpec(name: "sh", type: .exec,
                                                 options: ["shell": .bool(true), "command": .string("echo \"hello from $EVROUTE_REGION\"; echo oops >&2")]))
        let rig = try PluginRig(layout)
        rig.tap()
        expect(rig.run(upTo: 5) { rig.logText.contains("oops") && rig.stats("sh")[gauge: .running] == 0 })
        expect(rig.logText.contains("hello from home/root/button"))
    }

    @Test func aCommandThatHangsIsKilledAfterItsTimeout() throws {
        let layout = try pluginLayout(PluginSpec(name: "slow", type: .exec,
                                                 options: ["command": .list([.string("sleep"), .string("30")]),
                                                           "timeout": .number(0.2), "kill-after": .number(0.2)]))
        let rig = try PluginRig(layout)
        // The timeout is one of the loop's timers, armed when the command is spawned: its
        // deadline is 0.2 s after a time between these two clock reads (checked exactly, not timed).
        let before = MonotonicClock.now()
        rig.tap()
        expect(rig.run(upTo: 5) { rig.stats("slow")[gauge: .running] == 1 })
        let after = MonotonicClock.now()
        let deadline = try #require(rig.loop.nextDeadline, "no timer armed for the timeout")
        expect(deadline >= before + .milliseconds(200) && deadline <= after + .milliseconds(200),
                "armed \((deadline - before).microseconds) µs after the tap, \((after - before).microseconds) µs to spawn")
        expect(rig.run(upTo: 5) { rig.stats("slow")[gauge: .running] == 0 })
        expectEqual(rig.stats("slow")[counter: .timeouts], 1)
        expectEqual(rig.stats("slow").failures, 1)
    }

    @Test func aCommandIgnoringSIGTERMIsKilled() throws {
        let path = script("stubborn.sh", "#!/bin/sh\ntrap '' TERM\nwhile :; do sleep 0.05; done\n")
        let layout = try pluginLayout(PluginSpec(name: "stubborn", type: .exec,
                                                 options: ["command": .list([.string(path)]), "timeout": .number(0.1), "kill-after": .number(0.1)]))
        let rig = try PluginRig(layout)
        rig.tap()
        expect(rig.run(upTo: 5) { rig.stats("stubborn")[gauge: .running] == 0 })
        expect(rig.logText.contains("killed by signal 9"))
    }

    @Test func overTheConcurrencyCapEventsQueueThenDrop() throws {
        let layout = try pluginLayout(PluginSpec(name: "cap", type: .exec,
                                                 options: ["command": .list([.string("sleep"), .string("0.2")]),
                                                           "max-concurrent": .number(1), "max-queued": .number(1)]))
        let rig = try PluginRig(layout)
        for _ in 0..<4 { rig.tap() }
        var s = rig.stats("cap")
        expect(s[gauge: .running] == 0 && s[gauge: .queued] == 2 && s.dropped == 2)   // nothing spawned while routing
        expectEqual(s.handled, 4)   // exec always answers handled
        expectEqual(rig.outcomes.count("home/root/button"), 4)
        expect(rig.run(upTo: 5) { rig.stats("cap")[counter: .started] == 2 && rig.stats("cap")[gauge: .running] == 0 })
        s = rig.stats("cap")
        expectEqual(s.dropped, 2)
        expectEqual(s[gauge: .peakRunning], 1)
    }

    @Test func outputBeyondTheLimitIsDropped() throws {
        let layout = try pluginLayout(PluginSpec(name: "chatty", type: .exec,
                                                 options: ["shell": .bool(true), "output-limit": .number(100),
                                                           "command": .string("i=0; while [ $i -lt 2000 ]; do echo line-$i; i=$((i+1)); done")]))
        let rig = try PluginRig(layout)
        rig.tap()
        expect(rig.run(upTo: 5) { rig.stats("chatty")[gauge: .running] == 0 && rig.logText.contains("dropped") })
        let text = rig.logText
        expect(text.contains("line-0"))
        expect(!text.contains("line-1999"))
        expectEqual(rig.stats("chatty")[counter: .outputTruncated], 1)
    }

    @Test func aMissingProgramIsAFailureNotACrash() throws {
        let layout = try pluginLayout(PluginSpec(name: "missing", type: .exec,
                                                 options: ["command": .list([.string("/nonexistent/evroute-test-program")])]))
        let rig = try PluginRig(layout)
        rig.tap()
        rig.tap()
        expect(rig.run(upTo: 5) { rig.stats("missing").failures == 2 })
        let s = rig.stats("missing")
        expectEqual(s.failures, 2)
        expectEqual(s.lastError?.contains("evroute-test-program"), true)
        expectEqual(rig.outcomes.count("home/root/button"), 2)
    }

    /// Not a timed assertion: prints what spawning costs the routing thread, for the report.
    @Test func spawnCost() throws {
        let layout = try pluginLayout(PluginSpec(name: "t", type: .exec, options: ["command": .list([.string("true")]), "max-concurrent": .number(64)]))
        let rig = try PluginRig(layout)
        let n = 20
        let start = MonotonicClock.now()
        for _ in 0..<n { rig.tap() }
        let perTap = Double((MonotonicClock.now() - start).microseconds) / Double(n)
        expect(rig.run(upTo: 5) { rig.stats("t")[gauge: .running] == 0 })
        let all = Double((MonotonicClock.now() - start).microseconds) / 1000
        print("exec: \(perTap) µs routing time per spawned command; \(n) commands run and reaped in \(all) ms")
        expectEqual(rig.stats("t")[counter: .started], n)
    }

    /// Bad options never compile (the one validator, in the layout's compilation); a handler
    /// without a command compiles for routing but the host refuses it.
    @Test func badCommandOptionsAreRejectedUpFront() throws {
        let loop = try EventLoop()
        #expect(throws: Diagnostics.self) { try pluginLayout(PluginSpec(name: "x", type: .exec, options: ["command": .string("echo hi")])) }
        let noCommand = try pluginLayout(PluginSpec(name: "x", type: .exec))
        let refusal = #expect(throws: Diagnostic.self) { try PluginHost(layout: noCommand, loop: loop, log: Log(fd: -1)) }
        expectEqual(refusal?.kind, .plugin)
        // A plugin's refusal prints as it always has: no place (the spec was built in code), no `error:`.
        expectEqual(refusal?.description, "plugin x: no `command`: give one on the handler or on the plugin")
        #expect(throws: Diagnostics.self) {
            try pluginLayout(PluginSpec(name: "x", type: .exec, options: ["command": .list([.string("true")]), "max-concurrent": .number(0)]))
        }
    }
}
