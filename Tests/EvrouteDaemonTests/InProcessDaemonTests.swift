import Testing
import EvrouteChecks
#if canImport(Glibc)
import Glibc
#endif
import EvrouteDaemon
import EvrouteJSON
import EvrouteRuntime
import EvrouteTestSupport

/// The in-process harness itself (``InProcessDaemon``): the daemon's own run on a thread of this
/// process, reached over its real control socket, reloaded and stopped by real signals sent to
/// its thread, its log collected.
@Suite("In-process daemon harness")
struct InProcessDaemonTests {
    static let config = """
        displays: [{ name: main, size: [1280, 800] }]
        devices: [{ name: touch, match: { kind: touchscreen } }]
        screens: [{ name: home, root: { name: root, frame: [0, 0, 1280, 800] } }]
        application:
          handlers: [{ plugin: log, on: [touch] }]
        """

    /// Connects to `path` once the daemon has made it (bounded wait).
    static func connect(_ path: String, seconds: Double = 20) -> LineClient? {
        let deadline = monotonicSeconds() + seconds
        while monotonicSeconds() < deadline {
            if let client = try? LineClient(path: path, receiveTimeout: 10) {
                client.close()
                return client
            }
            usleep(5_000)
        }
        return nil
    }

    @Test("a held replay: status and replay over the control socket, SIGHUP reloads, SIGTERM stops with 0 and removes the socket")
    func controlSignalsAndStop() throws {
        let scratch = Scratch("evroute-inprocess")
        defer { scratch.cleanUp() }
        var options = DaemonOptions(configPath: scratch.write("evroute.yaml", Self.config))
        options.controlSocketPath = scratch.file("control.sock")
        options.replayPaths = [packageRoot + "/demo/touchscreen.events"]
        options.replayPaused = true
        let daemon = try InProcessDaemon(options, logPath: scratch.file("daemon.log"))
        let socket = scratch.file("control.sock")
        try #require(Self.connect(socket) != nil, "no control socket; log:\n\(daemon.log)")
        let status = try ControlClient.request(.object([("command", .string("status"))]), to: socket, timeoutSeconds: 10)
        expect(status["ok"]?.boolValue == true && status["input"]?.stringValue == "replay paused", "\(status.serialized)")
        let replay = try ControlClient.request(.object([("command", .string("replay"))]), to: socket, timeoutSeconds: 10)
        expectEqual(replay["ok"]?.boolValue, true, "\(replay.serialized)")
        let deadline = monotonicSeconds() + 30
        while !daemon.log.contains("replay finished") && monotonicSeconds() < deadline { usleep(5_000) }
        expect(daemon.log.contains("replay finished: "), "log:\n\(daemon.log)")
        daemon.signal(SIGHUP)
        while !daemon.log.contains("reloaded: ") && monotonicSeconds() < deadline { usleep(5_000) }
        expect(daemon.log.contains("SIGHUP: reloading"), "log:\n\(daemon.log)")
        daemon.signal(SIGTERM)
        expectEqual(daemon.waitForExit(seconds: 30), 0, "log:\n\(daemon.log)")
        expect(daemon.log.contains("signal SIGTERM: stopping"), "log:\n\(daemon.log)")
        expect(access(scratch.file("control.sock"), F_OK) != 0)
    }

    @Test("a config with errors: run returns 1, the error named file:line:col in the log")
    func startFailure() throws {
        let scratch = Scratch("evroute-inprocess")
        defer { scratch.cleanUp() }
        let config = scratch.write("evroute.yaml", "displays: [{ name: main, size: [1280, 800] }]\nscreens: nope\n")
        var options = DaemonOptions(configPath: config)
        options.controlSocketPath = nil
        let daemon = try InProcessDaemon(options, logPath: scratch.file("daemon.log"))
        expectEqual(daemon.waitForExit(seconds: 30), 1)
        expect(daemon.log.contains("\(config):2:"), "log:\n\(daemon.log)")
    }
}
