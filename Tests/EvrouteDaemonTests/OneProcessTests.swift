import Testing
import EvrouteChecks
#if canImport(Glibc)
import Glibc
#endif
import EvrouteConfig
import EvrouteCore
import EvrouteSystem
import EvrouteDaemon
import EvrouteTestSupport

/// The daemon is one process: the one that was started, with its command line as given; the
/// config is read in it (start and reload), and no child process appears for that.
@Suite("One process")
struct OneProcessTests {
    /// The daemon's children right now (`/proc/PID/task/PID/children`).
    static func children(of pid: pid_t) -> [String] {
        (readFile("/proc/\(pid)/task/\(pid)/children") ?? "").split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init)
    }

    @Test("the running daemon is the process started, its command line unchanged; no child at start or reload")
    func oneProcess() throws {
        let rig = try DaemonProcessTests.Rig()
        defer { rig.scratch.cleanUp() }
        // No exec or process plugin: whatever child appeared would be the daemon's own doing.
        _ = rig.scratch.write("evroute.yaml", """
            displays: [{ name: main, size: [800, 480] }]
            screens: [{ name: home, display: main, root: { name: root, frame: [0, 0, 800, 480] } }]
            """)
        let daemon = try rig.start(["--verbose"])
        defer { daemon.kill9() }
        try #require(rig.notify.wait(for: "READY=1") != nil, "log:\n\(daemon.log)")
        let cmdline = (readFile("/proc/\(daemon.pid)/cmdline") ?? "").split(separator: "\0").map(String.init)
        expectEqual(Array(cmdline.dropFirst()), ["--config", rig.configPath, "--control-socket", rig.control, "--verbose"], "\(cmdline)")
        var exe = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/\(daemon.pid)/exe", &exe, exe.count - 1)
        expect(n > 0 && String(decoding: exe[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) == rig.binary)
        let status = harnessControl("status", rig.control)
        expectEqual(status?["pid"]?.intValue, Int(daemon.pid))
        expectEqual(status?["version"]?.stringValue, evrouteVersion, "status names the version --version prints")
        let regions = status?["layout"]?["regions"]?.intValue
        expect(regions != nil)
        expect(Self.children(of: daemon.pid).isEmpty)
        for _ in 0..<5 {
            expectEqual(harnessControl("reload", rig.control)?["ok"]?.boolValue, true)
            expect(Self.children(of: daemon.pid).isEmpty)
        }
        // A bad reload answers with file:line:col from this process, and keeps the old layout.
        _ = rig.scratch.write("evroute.yaml", "displays: [{ name: main, size: [800] }]\n")
        let answer = harnessControl("reload", rig.control)
        expectEqual(answer?["ok"]?.boolValue, false)
        let first = answer?["errors"]?.arrayValue?.first?.stringValue ?? ""
        expect(first.hasPrefix(rig.configPath + ":1:"), "\(first)")
        expectEqual(harnessControl("status", rig.control)?["layout"]?["regions"]?.intValue, regions)
        expect(Self.children(of: daemon.pid).isEmpty)
        daemon.signal(SIGTERM)
        expectEqual(daemon.waitForExit(seconds: 20), 0)
    }

    @Test("the config's warnings (what `evroute check` warns about) are logged at start and at each reload")
    func warningsLoggedAtStartAndReload() throws {
        let rig = try DaemonProcessTests.Rig()
        defer { rig.scratch.cleanUp() }
        _ = rig.scratch.write("evroute.yaml", """
            displays: [{ name: main, size: [100, 100] }]
            screens:
              - name: home
                root:
                  name: root
                  frame: [0, 0, 100, 100]
                  regions: [{ name: a, frame: [90, 0, 20, 20] }]
            """)
        // The daemon in this process (``InProcessDaemon``).
        var options = DaemonOptions(configPath: rig.configPath)
        options.controlSocketPath = rig.control
        let daemon = try InProcessDaemon(options, logPath: rig.scratch.file("daemon.log"))
        try #require(daemon.waitForLog("ready: "), "log:\n\(daemon.log)")
        let line = "warning: \(rig.configPath):7:25: region 'a' sticks out of its parent 'root'"
        expectEqual(daemon.log.split(separator: "\n").filter { $0.contains(line) }.count, 1, "\(daemon.log)")
        expectEqual(harnessControl("reload", rig.control)?["ok"]?.boolValue, true)
        daemon.signal(SIGTERM)
        expectEqual(daemon.waitForExit(seconds: 20), 0)
        expectEqual(daemon.log.split(separator: "\n").filter { $0.contains(line) }.count, 2, "\(daemon.log)")
    }
}
