#if canImport(Glibc)
import Glibc
#endif
import Testing
import EvrouteChecks
@testable import EvrouteDaemon
import EvrouteCore
import EvrouteSystem
import EvrouteTestSupport

/// A `process` helper's background children do not outlive it: they survived its
/// exit, its restart and the daemon's shutdown. The helper leads its own process group; when
/// it exits, what is left of the group is killed.
@Suite("Process helpers' leftovers", .serialized)
struct ProcessGroupTests {
    /// Whether `pid` is a live process (not gone, not a zombie waiting for its new parent).
    static func isAlive(_ pid: pid_t) -> Bool {
        guard pid > 0, let stat = readFile("/proc/\(pid)/stat"), let close = stat.lastIndex(of: ")") else { return false }
        let state = stat[stat.index(close, offsetBy: 2)...].first
        return state != nil && state != "Z"
    }

    static func readPID(_ path: String) -> pid_t? {
        readFile(path).flatMap { pid_t(String($0.filter(\.isNumber))) }
    }

    static func plugin(_ script: String) -> PluginSpec {
        PluginSpec(name: "helper", type: .process,
                   options: ["command": .list([.string("/bin/sh"), .string("-c"), .string(script)]),
                             "restart-min-ms": .number(5000)])
    }

    @Test func aHelperThatExitsTakesItsBackgroundChildrenWithIt() throws {
        let pidFile = temporaryPath("bg.pid")
        defer { if let pid = Self.readPID(pidFile) { kill(pid, SIGKILL) }; unlink(pidFile) }
        // Starts a background sleep and exits at once (then waits 5 s for its restart).
        let rig = try PluginRig(try pluginLayout(Self.plugin("sleep 300 & echo $! > \(pidFile); exit 0")))
        expect(rig.run(upTo: 5) { rig.stats("helper").failures >= 1 }, "the helper's exit was noticed")
        let pid = try #require(Self.readPID(pidFile))
        expect(rig.run(upTo: 3) { !Self.isAlive(pid) }, "background child \(pid) outlived the helper")
        expect(rig.logText.contains("killed what it left running in its process group"), "\(rig.logText)")
    }

    @Test func shutdownKillsBackgroundChildrenThatIgnoreSIGTERM() throws {
        let pidFile = temporaryPath("bg.pid")
        defer { if let pid = Self.readPID(pidFile) { kill(pid, SIGKILL) }; unlink(pidFile) }
        // A background child that ignores SIGTERM; the helper itself reads its stdin until EOF.
        let rig = try PluginRig(try pluginLayout(Self.plugin("(trap '' TERM; exec sleep 300) & echo $! > \(pidFile); exec cat >/dev/null")))
        expect(rig.run(upTo: 5) { Self.readPID(pidFile) != nil && rig.stats("helper")[gauge: .running] == 1 })
        let pid = try #require(Self.readPID(pidFile))
        expect(Self.isAlive(pid))
        rig.host.shutdown(grace: .milliseconds(500))
        var waited = 0
        while Self.isAlive(pid) && waited < 200 { usleep(10_000); waited += 1 }
        expect(!Self.isAlive(pid), "background child \(pid) outlived the daemon's shutdown")
    }
}
