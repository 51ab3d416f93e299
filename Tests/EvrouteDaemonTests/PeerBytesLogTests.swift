#if canImport(Glibc)
import Glibc
#endif
import Testing
import EvrouteChecks
@testable import EvrouteDaemon
import EvrouteCore
import EvrouteSystem
import EvrouteTestSupport

/// A peer's control bytes never reach the log raw (a terminal showing the log could be made to
/// clear the screen and show forged lines): a process helper's stderr and stdout and a socket
/// client's lines are logged escaped.
@Suite("Peer bytes in the log")
struct PeerBytesLogTests {
    /// What a forging peer sends: clear screen, carriage return, a made-up line; a title
    /// sequence with BEL, a C1 CSI, and a byte that is not UTF-8.
    static let forged = "\\033[2J\\rforged: evroute: error: fake"
    static let garbage = "not json \\033]0;pwned\\007 \\302\\233 \\377 done"

    /// The log holds none of the raw bytes.
    static func expectNoRawControls(_ log: String) {
        expect(!log.utf8.contains(0x1B) && !log.utf8.contains(0x0D) && !log.utf8.contains(0x07), "\(log)")
        expect(!log.unicodeScalars.contains("\u{9B}") && !log.contains("\u{FFFD}"), "\(log)")
    }

    @Test func aProcessHelpersStderrAndStdoutAreLoggedEscaped() throws {
        let helper = script("forger.sh", """
            #!/bin/sh
            printf '\(Self.forged)\\n' >&2
            printf '\(Self.garbage)\\n'
            exec cat > /dev/null

            """)
        let spec = PluginSpec(name: "helper", type: .process, options: ["command": .list([.string(helper)])])
        let rig = try PluginRig(try pluginLayout(spec))
        expect(rig.run(upTo: 10) { rig.logText.contains("not an answer") && rig.logText.contains("forged") })
        let log = rig.logText
        expect(log.contains("]: \\x1b[2J\\rforged: evroute: error: fake\n"), "\(log)")
        expect(log.contains("not an answer: not json \\x1b]0;pwned\\x07 \\xc2\\x9b \\xff done\n"), "\(log)")
        Self.expectNoRawControls(log)
    }

    @Test func aSocketClientsLineIsLoggedEscaped() throws {
        let path = temporaryPath("ui.sock")
        let spec = PluginSpec(name: "ui", type: .socket, options: ["path": .string(path)])
        let rig = try PluginRig(try pluginLayout(spec))
        rig.run(for: 0.05)
        let client = try LineClient(path: path)
        defer { client.close() }
        let line: [UInt8] = Array("\u{1b}[2J\rforged: evroute: error: fake \u{9b}".utf8) + [0xFF, 0x0A]
        expectEqual(client.send(line[...]), line.count)
        expect(rig.run(upTo: 10) { rig.logText.contains("not an answer") })
        let log = rig.logText
        expect(log.contains("not an answer: \\x1b[2J\\rforged: evroute: error: fake \\xc2\\x9b\\xff\n"), "\(log)")
        Self.expectNoRawControls(log)
        unlink(path)
    }
}
