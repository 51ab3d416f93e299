#if canImport(Glibc)
import Glibc
#endif
import Testing
import EvrouteChecks
import EvrouteDaemon
import EvrouteTestSupport

/// The one validator: the real daemon, started with a config whose plugin options are wrong,
/// refuses exactly what `evroute check` refuses, with the same file:line:col lines.
@Suite("The daemon refuses what check refuses")
struct DaemonRefusesWhatCheckRefusesTests {
    static let config = """
        displays:
          - { name: main, size: [100, 100] }
        plugins:
          - { name: ui, type: socket, deadline-ms: 40ms }
          - { name: shell, type: exec, command: "echo hi" }
        screens:
          - name: home
            root: { name: root, frame: [0, 0, 100, 100], handlers: [{ plugin: shell, on: tap }] }
        """

    /// The `FILE:LINE:COL: error: …` diagnostics in `text`, each from where it starts (the
    /// daemon's log writes a multi-line message on one line, joined by ` ⏎ `).
    static func errors(_ text: String, file: String) -> [String] {
        text.split(separator: "\n").flatMap { $0.split(separator: " ⏎ ") }.compactMap { line in
            line.indices.first { line[$0...].hasPrefix(file + ":") }.map { String(line[$0...]) }
        }.filter { $0.split(separator: " ").contains("error:") }
    }

    @Test func aBadPluginOptionAtStartup() throws {
        let binary = try #require(evrouteBinaryPath(), "no evroute binary")
        let scratch = Scratch("evroute-daemon-test")
        defer { scratch.cleanUp() }
        let path = scratch.write("evroute.yaml", Self.config)

        let check = try TestProcess.daemon(binary, arguments: ["check", path], logPath: scratch.file("check.err"))
        expectEqual(check.waitForExit(seconds: 20), 1)
        let checkErrors = Self.errors(check.log, file: path)
        expectEqual(checkErrors, [
            "\(path):4:13: error: plugin ui: `path` (the socket's file name) is required",
            "\(path):4:44: error: plugin ui: `deadline-ms` must be a whole number of milliseconds from 1 to 3600000, found '40ms'",
            "\(path):5:41: error: plugin shell: `command` must be a list (argv); to run a string through /bin/sh, add `shell: true`",
        ])

        // The daemon in this process (``InProcessDaemon``): its start refuses the same.
        var options = DaemonOptions(configPath: path)
        options.controlSocketPath = scratch.file("control.sock")
        let daemon = try InProcessDaemon(options, logPath: scratch.file("daemon.log"))
        expectEqual(daemon.waitForExit(seconds: 20), 1)
        expectEqual(Self.errors(daemon.log, file: path), checkErrors, "\(daemon.log)")
    }
}
