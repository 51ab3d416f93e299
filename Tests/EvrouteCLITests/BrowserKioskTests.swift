import Foundation
import Testing
import EvrouteChecks
import EvrouteTestSupport

/// The browser kiosk (examples/browser-kiosk.yaml) on its recording
/// (examples/browser-kiosk.events): `check` accepts it; the dry-run keeps the admin corner's
/// touch (log, never forwarded), forwards the page's tap whole, and forwards the 3-finger
/// swipe's touches then cancels them when the swipe recognizes.
@Suite("The browser kiosk: forwarding in the dry-run")
struct BrowserKioskTests {
    @Test func theCornerIsKeptThePageForwardedAndTheSwipesTouchesCancelled() throws {
        let binary = try evrouteBinary()
        let config = packageRoot + "/examples/browser-kiosk.yaml"
        let check = try TestProcess.run(binary, ["check", "--config", config])
        expectEqual(check.status, 0, "\(check.out)\(check.err)")
        let run = try TestProcess.run(binary, ["--dry-run", "--config", config, "--replay", packageRoot + "/examples/browser-kiosk.events",
                                               "--format", "json"])
        expectEqual(run.status, 0, "\(run.err)")
        let lines = run.out.split(separator: "\n").map(String.init).filter { $0.contains("\"type\":\"touch\"") }
        func phases(_ touch: Int) -> [String] {
            lines.filter { $0.contains("\"touch\":\(touch),") && !$0.contains("\"moved\"") }.map { line in
                let phase = line.components(separatedBy: "\"phase\":\"")[1].prefix { $0 != "\"" }
                let handler = line.components(separatedBy: "\"handler\":")[1].prefix { $0 != "," }
                return "\(phase) \(handler)\(line.contains("\"forwarded\":true") ? " forwarded" : "")"
            }
        }
        expectEqual(phases(1), ["began \"log\"", "cancelled \"log\""])          // the corner: the long press took it
        expectEqual(phases(2), ["began \"desktop\" forwarded", "ended \"desktop\" forwarded"])
        for t in 3...5 {
            expectEqual(phases(t), ["began \"desktop\" forwarded", "cancelled \"desktop\" forwarded"])
        }
        expect(run.out.contains("\"action\":\"open-admin\"") && run.out.contains("\"action\":\"reload-page\""))
        expect(!lines.contains { $0.contains("\"touch\":1,") && $0.contains("forwarded") })
    }

    /// A recognizer giving up (`failed`, nearly every touch for a swipe) is not in the text trace
    /// unless `--verbose`; the JSON trace always has it.
    @Test func aGesturesFailureIsInTheTextTraceOnlyWithVerbose() throws {
        let binary = try evrouteBinary()
        let base = ["--dry-run", "--config", packageRoot + "/examples/browser-kiosk.yaml", "--replay", packageRoot + "/examples/browser-kiosk.events"]
        let json = try TestProcess.run(binary, base + ["--format", "json"])
        let failures = json.out.split(separator: "\n").filter { $0.contains("\"type\":\"gesture\"") && $0.contains("\"state\":\"failed\"") }.count
        expect(failures > 0, "the recording has no failed gesture: \(json.out)")
        func failedLines(_ out: String) -> Int {
            out.split(separator: "\n").filter { $0.contains(" gesture ") && $0.contains(" failed ") }.count
        }
        let quiet = try TestProcess.run(binary, base)
        let verbose = try TestProcess.run(binary, base + ["--verbose"])
        expect(quiet.status == 0 && verbose.status == 0, "\(quiet.err)\(verbose.err)")
        expectEqual(failedLines(quiet.out), 0, "\(quiet.out)")
        expectEqual(failedLines(verbose.out), failures, "\(verbose.out)")
    }

    /// The kiosk's idle (two minutes): the recording again after five minutes of nobody. The
    /// browser is sent back to its start page (the application's `desktop` pressing Alt+Home on `idle`), and the
    /// touch that wakes the screen reaches neither the page nor the corner: one `filtered` wake.
    @Test func afterTwoMinutesOfNobodyTheBrowserGoesHomeAndTheWakeTouchIsSwallowed() throws {
        let binary = try evrouteBinary()
        let scratch = Scratch("evroute-kiosk-idle")
        defer { scratch.cleanUp() }
        let config = packageRoot + "/examples/browser-kiosk.yaml"
        let gap = try #require(recordingWithGap(packageRoot + "/examples/browser-kiosk.events", shift: 300, in: scratch))
        let once = try TestProcess.run(binary, ["--dry-run", "--config", config, "--replay", packageRoot + "/examples/browser-kiosk.events", "--format", "json"])
        let twice = try TestProcess.run(binary, ["--dry-run", "--config", config, "--replay", gap, "--format", "json"])
        expect(once.status == 0 && twice.status == 0, "\(twice.err)")
        expect(!once.out.contains("\"type\":\"idle\""), "six seconds of input: never idle")
        let lines = twice.out.split(separator: "\n")
        let idle = lines.filter { $0.contains("\"type\":\"idle\"") }
        expect(idle.count == 1 && idle.first?.contains("\"handled_by\":\"application\",\"handler\":\"desktop\"") == true, "\(idle)")
        expectEqual(lines.filter { $0.contains("\"type\":\"active\"") }.count, 1)
        expectEqual(lines.filter { $0.contains("\"filter\":\"wake\"") }.count, 1)
        // The second run's touches: one fewer began than the first's twice (the wake touch).
        let began = lines.filter { $0.contains("\"type\":\"touch\"") && $0.contains("\"phase\":\"began\"") }.count
        let beganOnce = once.out.split(separator: "\n").filter { $0.contains("\"type\":\"touch\"") && $0.contains("\"phase\":\"began\"") }.count
        expectEqual(began, 2 * beganOnce - 1, "\(began) began, \(beganOnce) in one run")
    }

    /// The example's grabbed keyboard (default `text:`): letters and Ctrl+C reach the browser,
    /// the kept shortcuts (Ctrl+W, F12) do not; the swipe's reload is F5 pressed by `desktop`.
    @Test func lettersAndChordsGoTheKioskBreakingShortcutsStay() throws {
        let binary = try evrouteBinary()
        let dir = try Typist.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let recording = try Typist.write(["KEY_A", "KEY_B", "+KEY_LEFTCTRL", "KEY_C", "KEY_W", "-KEY_LEFTCTRL", "KEY_F12"],
                                         start: 1, name: "keys.events", in: dir)
        let config = packageRoot + "/examples/browser-kiosk.yaml"
        let run = try TestProcess.run(binary, ["--dry-run", "--config", config, "--replay", recording, "--format", "json"])
        expectEqual(run.status, 0, "\(run.err)")
        let keys = run.out.split(separator: "\n").filter { $0.contains("\"type\":\"key\"") && $0.contains("\"down\"") }.map { line in
            let key = line.components(separatedBy: "\"key\":\"")[1].prefix { $0 != "\"" }
            return "\(key) \(line.contains("\"forwarded\":true") ? "forwarded" : "kept")"
        }
        expectEqual(keys, ["KEY_A forwarded", "KEY_B forwarded", "KEY_LEFTCTRL forwarded", "KEY_C forwarded", "KEY_W kept", "KEY_F12 kept"], "\(keys)")
        let swipe = try TestProcess.run(binary, ["--dry-run", "--config", config, "--replay", packageRoot + "/examples/browser-kiosk.events", "--format", "json"])
        let reload = swipe.out.split(separator: "\n").filter { $0.contains("\"action\":\"reload-page\"") }
        expect(reload.count == 1 && reload.first?.contains("\"handler\":\"desktop\"") == true, "\(reload)")
    }
}
