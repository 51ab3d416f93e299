import Testing
import EvrouteChecks
import Foundation
import EvrouteCore
import EvrouteDaemon
import EvrouteTestSupport

/// What the daemon logs about a touch device's input besides routing, on a replayed recording
/// (the Atmel panel's description, events written here): a filtered contact's line, made of the
/// encoder's words as every event's line is (a stuck one a warning with its hint, the others at
/// debug level), and `SYN_DROPPED` — its own warning naming the rule and the recording, at most
/// one a device per 10 s of event time.
@Suite("The daemon's input lines")
struct DaemonInputLogTests {
    static let atmel = packageRoot + "/Tests/Fixtures/recordings/touchscreens/Atmel maXTouch Touchscreen.1-finger-fast-taps.events"

    static let config = """
        displays: [{ name: main, size: [800, 480] }]
        devices:
          - name: panel
            match: { kind: touchscreen }
            filters: { stuck-after-s: 1, ignore: [[0, 0, 100, 100]] }
        screens: [{ name: home, root: { name: root, frame: [0, 0, 800, 480] } }]
        application:
          handlers: [{ plugin: log, on: [touch] }]
        """

    /// `E:` lines at `time`: `(type, code, value)` in hex as evemu writes them.
    static func events(_ time: Double, _ events: [(Int, Int, Int)]) -> String {
        events.map { String(format: "E: %.6f %04x %04x %d\n", time, $0.0, $0.1, $0.2) }.joined()
    }

    static let report = (0, 0, 0), dropped = (0, 3, 0)
    static func down(_ slot: Int, _ id: Int, _ x: Int, _ y: Int) -> [(Int, Int, Int)] {
        [(3, 0x2f, slot), (3, 0x39, id), (3, 0x35, x), (3, 0x36, y), (1, 0x14a, 1)]
    }
    static func up(_ slot: Int) -> [(Int, Int, Int)] { [(3, 0x2f, slot), (3, 0x39, -1)] }

    /// The Atmel panel holding a finger still for 2 s at (400, 240) (stuck after 1 s), one
    /// touching down in the ignored corner, then a finger down and four drops: at 5.1 s, two
    /// within 10 s of it, one at 16 s.
    static func recording() throws -> String {
        let description = try String(contentsOfFile: atmel, encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.hasPrefix("E:") }.joined(separator: "\n")
        return description
            + events(1.0, down(0, 1, 400, 240) + [report])
            + events(3.0, down(1, 2, 50, 50) + [report])
            + events(3.1, up(0) + up(1) + [(1, 0x14a, 0), report])
            + events(5.0, down(0, 3, 300, 300) + [report])
            + events(5.1, [dropped, (3, 0x35, 310), report])
            + events(6.0, [dropped, report])
            + events(7.0, [dropped, report])
            + events(16.0, [dropped, report])
            + events(17.0, [report])
    }

    @Test("filtered contacts: the encoder's words, the device and time as a routed event's line ends; a stuck one warns with its hint; SYN_DROPPED: one warning per 10 s naming rule and node, the count so far, the folded drops, what evroute did")
    func filteredAndDroppedLines() throws {
        let rig = try DaemonProcessTests.Rig()
        defer { rig.scratch.cleanUp() }
        _ = rig.scratch.write("evroute.yaml", Self.config)
        let path = rig.scratch.write("panel.events", try Self.recording())
        // In this process (``InProcessDaemon``): the daemon's own run, no binary to spawn.
        var options = DaemonOptions(configPath: rig.configPath)
        options.controlSocketPath = rig.control
        options.replayPaths = [path]
        options.exitAfterReplay = true
        options.logLevel = .debug
        let daemon = try InProcessDaemon(options, logPath: rig.scratch.file("daemon.log"))
        expectEqual(daemon.waitForExit(seconds: 60), 0, "log:\n\(daemon.log)")
        let lines = daemon.log.split(separator: "\n").map(String.init)

        expectEqual(lines.filter { $0.contains("filtered") }, [
            "evroute: warning: filtered stuck (400, 240) device panel t=2.0: cancelled, it did not move for its stuck-after-s (dirt on the frame? a contact that never lifts)",
            "evroute: debug: filtered ignore (50, 50) device panel t=3.0",
        ], "log:\n\(daemon.log)")

        let drops = lines.filter { $0.contains("SYN_DROPPED") }
        let head = "evroute: warning: input: device \"Atmel maXTouch Touchscreen\" (rule panel, \(path)): the kernel dropped its events (SYN_DROPPED: evroute read too slowly and the kernel's buffer overflowed), "
        let recovery = "the events up to the next SYN_REPORT were discarded and every touch down was cancelled"
        expectEqual(drops, [
            head + "1 time so far; " + recovery + " (1 touch)",
            head + "4 times so far (2 of them folded into this line: one line per 10 s); " + recovery + " (0 touches)",
        ], "log:\n\(daemon.log)")
    }
}
