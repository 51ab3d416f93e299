import Foundation
import Testing
import EvrouteChecks
import EvrouteTestSupport

/// A kiosk's grabbed keyboard (default `text:`) whose keys a fallback forwards: the real
/// binary's dry-run on a synthesized recording (the Razer keyboard typing `a`, `b`, then
/// Ctrl+C) forwards every key, the chord too; with `key:ctrl+KEY_C` kept by a `log` handler,
/// C stays, Ctrl is released at the forwarder, and the letters still go.
@Suite("Keys of a grabbed keyboard forwarded in the dry-run")
struct KeyForwardingReplayTests {
    static func yaml(keep: String = "") -> String {
        """
        displays: [{ name: main, size: [800, 480] }]
        devices:
          - { name: keys, match: { kind: keyboard }, grab: true }
        plugins: [{ name: desktop, type: forward }]
        screens:
          - name: home
            root: { name: root, frame: [0, 0, 800, 480] }
        application: { handlers: [\(keep)] }
        fallback: { handlers: [{ plugin: desktop, on: [key] }] }
        """
    }

    func run(_ yaml: String) throws -> (check: TestProcess.Result, run: TestProcess.Result) {
        let dir = try Typist.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let config = dir.appendingPathComponent("kiosk.yaml")
        try yaml.write(to: config, atomically: true, encoding: .utf8)
        let recording = try Typist.write(["KEY_A", "KEY_B", "+KEY_LEFTCTRL", "KEY_C", "-KEY_LEFTCTRL"], start: 1, name: "typing.events", in: dir)
        let binary = try evrouteBinary()
        let check = try TestProcess.run(binary, ["check", "--config", config.path])
        let run = try TestProcess.run(binary, ["--dry-run", "--config", config.path, "--replay", recording, "--format", "json"])
        return (check, run)
    }

    /// `KEY_X phase handler[ forwarded]` per key event.
    func keys(_ out: String) -> [String] {
        out.split(separator: "\n").filter { $0.contains("\"type\":\"key\"") }.map { line in
            func field(_ name: String) -> String {
                let parts = line.components(separatedBy: "\"\(name)\":")
                guard parts.count > 1 else { return "-" }
                return String(parts[1].prefix { $0 != "," && $0 != "}" }).replacingOccurrences(of: "\"", with: "")
            }
            return "\(field("key")) \(field("phase")) \(field("handler"))\(line.contains("\"forwarded\":true") ? " forwarded" : "")"
        }
    }

    @Test func lettersAndTheChordAreForwarded() throws {
        let (check, run) = try run(Self.yaml())
        expect(check.status == 0 && !check.out.contains("warning") && !check.err.contains("warning"), "\(check.out)\(check.err)")
        expectEqual(run.status, 0, "\(run.err)")
        expectEqual(keys(run.out), [
            "KEY_A down desktop forwarded", "KEY_A up desktop forwarded", "KEY_B down desktop forwarded", "KEY_B up desktop forwarded",
            "KEY_LEFTCTRL down desktop forwarded", "KEY_C down desktop forwarded", "KEY_C up desktop forwarded",
            "KEY_LEFTCTRL up desktop forwarded",
        ], "\(run.out)")
        expect(!run.out.contains("\"type\":\"text\""))
    }

    @Test func aKeptChordStaysAndTheLettersStillGo() throws {
        let (check, run) = try run(Self.yaml(keep: #"{ plugin: log, on: ["key:ctrl+KEY_C"] }"#))
        expectEqual(check.status, 0, "\(check.out)\(check.err)")
        expectEqual(run.status, 0, "\(run.err)")
        expectEqual(keys(run.out), [
            "KEY_A down desktop forwarded", "KEY_A up desktop forwarded", "KEY_B down desktop forwarded", "KEY_B up desktop forwarded",
            "KEY_LEFTCTRL down desktop forwarded", "KEY_C down log", "KEY_LEFTCTRL up desktop forwarded", "KEY_C up log",
        ], "\(run.out)")
    }

    /// Right Alt is AltGr on `de` (AltGr+Q types "@", taken as text), an Alt on `us` (Right
    /// Alt+Q is a chord: a key, forwarded, no text).
    @Test func altGrTypesWhereTheKeymapMakesItAltGr() throws {
        for (keymap, expected) in [("de", ["KEY_RIGHTALT down desktop forwarded", "KEY_Q down null"]),
                                   ("us", ["KEY_RIGHTALT down desktop forwarded", "KEY_Q down desktop forwarded"])] {
            let yaml = Self.yaml(keep: "{ plugin: log, on: [text] }")
                .replacingOccurrences(of: "grab: true }", with: "grab: true, keymap: \(keymap) }")
            let dir = try Typist.scratch()
            defer { try? FileManager.default.removeItem(at: dir) }
            let config = dir.appendingPathComponent("kiosk.yaml")
            try yaml.write(to: config, atomically: true, encoding: .utf8)
            let recording = try Typist.write(["+KEY_RIGHTALT", "KEY_Q", "-KEY_RIGHTALT"], start: 1, name: "altgr.events", in: dir)
            let run = try TestProcess.run(try evrouteBinary(), ["--dry-run", "--config", config.path, "--replay", recording, "--format", "json"])
            expectEqual(run.status, 0, "\(run.err)")
            expectEqual(keys(run.out).filter { $0.contains(" down ") }, expected, "\(keymap): \(run.out)")
            expectEqual(run.out.contains("\"type\":\"text\""), (keymap == "de"), "\(keymap)")
        }
    }
}
