import Testing
import EvrouteChecks
#if canImport(Glibc)
import Glibc
#endif
import EvrouteCore
import EvrouteDaemon
import EvrouteInput
import EvrouteTestSupport

/// Typed keys stay out of the daemon's log: the `log` plugin writes typing keys
/// (letters, digits, symbols, keypad) as `KEY_***` unless the run (`--show-keycodes`), the device
/// rule or the handler (`log-keys: true`) lets it name them. On the real keyboard recordings
/// and the demo's typing.
@Suite("Typed keys in the log")
struct KeyPrivacyTests {
    static let keyboards = packageRoot + "/Tests/Fixtures/recordings/keyboards"
    static let recordings = [
        "Lenovo ThinkPad Compact USB Keyboard with TrackPoint.keyboard.events",
        "Logitech K400 Plus.events",
        "Microsoft Surface Type Cover.events",
    ]

    static func config(ruleLogKeys: Bool = false, handlerLogKeys: Bool = false) -> String {
        DaemonLayout.yaml(size: (800, 480), touchscreen: false, keyboard: ruleLogKeys ? "log-keys: true" : "",
                          screens: "- { name: home, root: { name: root, frame: [0, 0, 800, 480], focusable: true } }",
                          blocks: ["application:\n  handlers: [{ plugin: log, on: [key, text]\(handlerLogKeys ? ", log-keys: true" : "") }]"])
    }

    /// The `text …` part of the log's text lines, up to the region.
    static func loggedTexts(_ log: String) -> [String] {
        log.split(separator: "\n").compactMap { line -> String? in
            guard let r = line.firstRange(of: ": text ") else { return nil }
            let rest = line[r.upperBound...]
            guard let end = rest.firstRange(of: " (no region)") ?? rest.firstRange(of: " home/") else { return String(rest) }
            return String(rest[..<end.lowerBound])
        }
    }

    /// Key names in the log's `key NAME phase` lines.
    static func loggedKeys(_ log: String) -> [String] {
        log.split(separator: "\n").compactMap { line -> String? in
            let words = line.split(separator: " ")
            guard let i = words.firstIndex(of: "key"), i > 0, words[i - 1].hasSuffix(":"), i + 1 < words.count else { return nil }
            return String(words[i + 1])
        }
    }

    func run(config: String, extra: [String] = []) throws -> [String] {
        try runLog(config: config, extra: extra).keys
    }

    func runLog(config: String, extra: [String] = []) throws -> (keys: [String], texts: [String]) {
        let rig = try DaemonProcessTests.Rig()
        defer { rig.scratch.cleanUp() }
        _ = rig.scratch.write("evroute.yaml", config)
        // In this process (``InProcessDaemon``); `extra` is `--show-keycodes` or nothing.
        var options = DaemonOptions(configPath: rig.configPath)
        options.controlSocketPath = rig.control
        options.replayPaths = Self.recordings.map { Self.keyboards + "/" + $0 }
        options.replayPaths.append(packageRoot + "/demo/keyboard.events")   // the demo types words and digits
        options.exitAfterReplay = true
        options.showKeycodes = extra.contains("--show-keycodes")
        let daemon = try InProcessDaemon(options, logPath: rig.scratch.file("daemon.log"))
        expectEqual(daemon.waitForExit(seconds: 60), 0, "log:\n\(daemon.log)")
        return (Self.loggedKeys(daemon.log), Self.loggedTexts(daemon.log))
    }

    @Test("typed text is logged as text \"***\" (N chars), unless keys may be named")
    func textIsObfuscated() throws {
        let hidden = try runLog(config: Self.config()).texts
        expect(hidden.count >= 10, "the recordings type text: \(hidden)")
        expect(hidden.allSatisfy { $0 == "\"***\" (1 char)" }, "\(Set(hidden))")
        for (config, extra) in [(Self.config(), ["--show-keycodes"]), (Self.config(ruleLogKeys: true), []), (Self.config(handlerLogKeys: true), [])] {
            let shown = try runLog(config: config, extra: extra).texts
            expectEqual(shown.count, hidden.count)
            expect(!shown.contains { $0.contains("***") }, "\(extra) \(config)")
            // The demo types "demo" (its o held down: repeats type again).
            expect(shown.prefix(3) == ["\"d\"", "\"e\"", "\"m\""] || shown.contains("\"d\""), "\(shown)")
        }
    }

    @Test("by default no typing key is named; others (Enter, Shift, arrows) are")
    func typingKeysAreObfuscated() throws {
        let keys = try run(config: Self.config())
        expect(keys.count >= 30, "the recordings type more than that: \(keys.count)")
        let named = keys.filter { KeyNames.isTyping($0) }
        expect(named.isEmpty, "typed keys in the log: \(Set(named).sorted())")
        expect(keys.contains(KeyNames.obfuscatedName))
        expect(keys.contains { $0 != KeyNames.obfuscatedName }, "non-typing keys keep their names")
    }

    @Test("--show-keycodes, a device rule's or a handler's log-keys: true name them")
    func optInNamesThem() throws {
        for (config, extra) in [(Self.config(), ["--show-keycodes"]), (Self.config(ruleLogKeys: true), []), (Self.config(handlerLogKeys: true), [])] {
            let keys = try run(config: config, extra: extra)
            expect(!keys.contains(KeyNames.obfuscatedName), "\(extra) \(config)")
            expect(keys.contains { KeyNames.isTyping($0) })
        }
    }

    @Test func theTypingBlock() {
        for name in ["KEY_A", "KEY_Z", "KEY_1", "KEY_0", "KEY_SPACE", "KEY_MINUS", "KEY_SLASH", "KEY_KP7", "KEY_KPPLUS", "KEY_KPDOT", "KEY_102ND", "KEY_NUMERIC_1", "KEY_NUMERIC_POUND"] {
            expect(KeyNames.isTyping(name), "\(name)")
        }
        for name in ["KEY_ENTER", "KEY_KPENTER", "KEY_LEFTSHIFT", "KEY_ESC", "KEY_F1", "KEY_UP", "KEY_BACKSPACE", "KEY_TAB", "BTN_LEFT", "KEY_VOLUMEUP"] {
            expect(!KeyNames.isTyping(name), "\(name)")
        }
        for name in LibevdevKeyNames.shared.allNames where KeyNames.isTyping(name) {
            expect(name.hasPrefix("KEY_"))
        }
    }
}
