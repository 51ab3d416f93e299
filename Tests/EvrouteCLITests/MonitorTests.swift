import Foundation
import Testing
import EvrouteChecks
import EvrouteTestSupport

/// `evroute monitor` through the binary: on real recordings (devices, the rule that takes each or
/// why none does, touches with their region and responder, keys with their first responder, the
/// summary line agreeing with the dry-run trace's own counts), and live on a machine without
/// input devices (it says so and waits). Every expectation is compared with the JSON trace of
/// the same replay, so a monitor that drifts from routing fails here.
@Suite("monitor")
struct MonitorTests {
    /// Two touchscreen rules' worth of facts: Atmel panels are taken, the EP0430M09 is not (its
    /// name), keyboards are. `top` takes every touch phase, `bottom-left` none (its touches end
    /// at the root, which takes only ends), `top` becomes first responder when a touch ends on
    /// it, and keys are taken by the screen.
    static let layout = """
        displays: [{ name: main, size: [1280, 800] }]
        devices:
          - { name: touch, match: { kind: touchscreen, name: "Atmel*" } }
          - { name: keys, match: { kind: keyboard } }
        screens:
          - name: home
            handlers: [{ plugin: log, on: key }]
            root:
              name: root
              frame: [0, 0, 1280, 800]
              handlers: [{ plugin: log, on: touch-ended }]
              regions:
                - { name: top, frame: [0, 0, 1280, 400], focusable: true, handlers: [{ plugin: log, on: touch }] }
                - { name: bottom-left, frame: [0, 400, 640, 400] }
        """

    func write(_ text: String) throws -> String { temporaryConfig(text, name: "monitor.yaml") }

    /// The JSON trace's objects.
    func objects(_ out: String) -> [[String: Any]] {
        out.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    /// `taken by PATH [plugin]` or `unhandled`, as the monitor writes a trace object's outcome.
    func taker(_ event: [String: Any]) -> String {
        guard let by = event["handled_by"] as? String else { return "unhandled" }
        return "taken by \(by) [\(event["handler"] as? String ?? "?")]"
    }

    @Test func realRecordingsAgreeWithTheTrace() throws {
        let root = recordingsDirectory
        let config = try write(Self.layout)
        defer { try? FileManager.default.removeItem(atPath: config) }
        let drag = "\(root)/touchscreens/Atmel maXTouch Touchscreen.1-finger-drag-up-down.events"
        let other = "\(root)/touchscreens/EP0430M09.2-fingers-touch-release.events"
        let keyboard = "\(root)/keyboards/Logitech K400 Plus.events"
        let twoFingers = "\(root)/touchscreens/Atmel maXTouch Touchscreen.2-fingers-touch-release.events"
        let replays = [drag, other, keyboard, twoFingers].flatMap { ["--replay", $0] }
        let r = try runEvroute(["monitor", "--config", config] + replays)
        expectEqual(r.status, 0, "\(r.err)")
        let lines = r.out.split(separator: "\n").map(String.init)
        let trace = try runEvroute(["--dry-run", "--format", "json", "--config", config] + replays)
        expectEqual(trace.status, 0, "\(trace.err)")
        let events = objects(trace.out)

        // Devices: the rule that takes each, and why none takes the EP0430M09.
        for (path, rule, kind) in [(drag, "touch", "touchscreen"), (twoFingers, "touch", "touchscreen"), (keyboard, "keys", "keyboard")] {
            expect(lines.contains { $0.contains("device  + \"") && $0.contains("(\(kind)) \(path): rule \(rule) takes it, display main") },
                    "\(path): \(r.out)")
        }
        expect(lines.contains {
            $0.contains("device    \"EP0430M09\" (touchscreen) \(other) not routed: no device rule takes it: "
                        + "rule touch wants a name matching \"Atmel*\"; rule keys wants kind keyboard, not touchscreen")
        }, "\(r.out)")
        expectEqual(lines.filter { $0.contains("device  - \"") && $0.hasSuffix(" removed") }.count, 3)

        // Touches: each down and end with the trace's region and responder, and its moves.
        let touchEvents = events.filter { $0["type"] as? String == "touch" }
        let began = touchEvents.filter { $0["phase"] as? String == "began" }
        let ends = touchEvents.filter { ["ended", "cancelled"].contains($0["phase"] as? String ?? "") }
        expect(began.count == 3 && ends.count == 3, "\(began.count) began, \(ends.count) ended")
        let downs = lines.filter { $0.contains("  touch   ") && $0.contains(" began (") }
        expectEqual(downs.count, began.count, "\(downs)")
        for (event, line) in zip(began, downs) {
            let id = event["touch"] as! Int
            expect(line.contains("touch   \(id) began (") && line.hasSuffix(" in \(event["region"] as! String) → \(taker(event))"),
                    "\(line) vs \(event)")
        }
        expect(downs.contains { $0.hasSuffix("in home/root/bottom-left → unhandled") }, "a touch nothing takes at its start")
        for event in ends {
            let id = event["touch"] as! Int
            let moves = touchEvents.filter { $0["touch"] as? Int == id && $0["phase"] as? String == "moved" }.count
            let phase = event["phase"] as! String
            let line = lines.first { $0.contains("  touch   \(id) \(phase) (") }
            let counted = moves > 0 ? ", \(moves) move(s)" : ""
            expectEqual(line?.hasSuffix(" in \(event["region"] as! String)\(counted) → \(taker(event))"), true,
                    "touch \(id): \(line ?? "no line") vs \(event), \(moves) moves")
        }
        expect(ends.contains { event in touchEvents.contains { $0["touch"] as? Int == event["touch"] as? Int && $0["phase"] as? String == "moved" } },
                "a touch that moved, whose moves are counted")
        expect(lines.filter { $0.contains("  touch   ") }.count < touchEvents.count / 10, "moves are not listed one by one")

        // The drag goes up from bottom-left over `top` and back: said when the region under the finger changes.
        let dragID = try #require(began.first { $0["region"] as? String == "home/root/bottom-left" && ($0["y"] as! Double) > 600 })["touch"] as! Int
        let overs = lines.filter { $0.contains("  touch   \(dragID) ") && $0.contains(" over ") }
        expectEqual(overs.count, 2, "\(overs)")
        expect(overs.first?.contains("over home/root/top at (") == true && overs.first?.hasSuffix("bound to home/root/bottom-left") == true)
        expectEqual(overs.last?.contains("back over home/root/bottom-left at ("), true, "\(overs)")

        // Keys: the first responder each starts from (the trace's `region`; none: the walk starts at the screen), who took it.
        let keyEvents = events.filter { $0["type"] as? String == "key" }
        let shown = keyEvents.filter { $0["phase"] as? String != "repeat" }
        let keyLines = lines.filter { $0.contains("  key     ") }
        expect(!shown.isEmpty && keyLines.count == shown.count, "\(keyLines)")
        for (event, line) in zip(shown, keyLines) {
            let first = (event["region"] as? String).map { " in \($0)" } ?? " (no first responder)"
            expect(line.contains("key     \(event["key"] as! String) \(event["phase"] as! String)\(first)")
                    && line.hasSuffix(" → \(taker(event))"), "\(line) vs \(event)")
        }
        expect(keyLines.allSatisfy { $0.contains(" in home/root/top") && $0.hasSuffix(" → taken by screen:home [log]") },
                "a touch ended on the focusable `top` before the keys: \(keyLines)")
        let repeats = keyEvents.filter { $0["phase"] as? String == "repeat" }.count
        let counted = keyLines.compactMap { line in
            line.range(of: " repeat(s) → ").map { Int(String(line[..<$0.lowerBound].reversed().prefix { $0.isNumber }.reversed()))! }
        }
        expect(repeats > 0 && counted.reduce(0, +) == repeats, "repeats: \(repeats) in the trace, \(counted) on the lines")

        // The summary: the same line as the dry-run's (text: last line; JSON: stderr), with the trace's counts.
        let summary = try #require(lines.last)
        let text = try runEvroute(["--dry-run", "--config", config] + replays)
        expectEqual(text.out.split(separator: "\n").last.map(String.init), summary)
        expectEqual(trace.err.split(separator: "\n").last.map(String.init), summary, "the JSON dry-run's summary goes to stderr")
        expect(!trace.out.contains("summary"), "the JSON lines stay events only")
        let inputEvents = try [drag, other, keyboard, twoFingers].map {
            try String(contentsOfFile: $0, encoding: .utf8).split(separator: "\n").filter { $0.hasPrefix("E:") }.count
        }.reduce(0, +)
        let routed = events.filter { ["touch", "key", "action", "gesture"].contains($0["type"] as? String ?? "") }
        let handled = routed.filter { $0["handled_by"] is String }.count
        let devices = events.filter { $0["type"] as? String == "device-added" }.count
        let presses = keyEvents.filter { $0["phase"] as? String == "down" }.count
        expect(summary.hasPrefix("summary: \(inputEvents) input events, \(devices) routed device(s); \(began.count) touch(es), "
                                  + "\(presses) key press(es), 0 action(s), 0 gesture event(s); \(handled) event(s) handled, "
                                  + "\(routed.count - handled) unhandled; touches by region: "), "\(summary)")
        // Per region: touches begun in it, and those something took at any phase.
        for region in Set(began.map { $0["region"] as! String }) {
            let ids = Set(began.filter { $0["region"] as? String == region }.map { $0["touch"] as! Int })
            let taken = ids.filter { id in touchEvents.contains { $0["touch"] as? Int == id && $0["handled_by"] is String } }
            expect(summary.contains("\(region) \(ids.count) (\(taken.count) handled)"), "\(region): \(summary)")
        }
    }

    @Test func keysWithTheirFirstResponderAndGesturesCounted() throws {
        let args = ["--config", "config/demo.yaml", "--replay", "demo/touchscreen.events", "--replay", "demo/keyboard.events"]
        let r = try runEvroute(["monitor"] + args)
        expectEqual(r.status, 0, "\(r.err)")
        let lines = r.out.split(separator: "\n").map(String.init)
        // The demo taps the search field (it becomes first responder), then types "demo" and Enter.
        expect(lines.contains { $0.contains("focus   screen home: first responder home/root/header/search") })
        let keys = lines.filter { $0.contains("  key     ") }
        expect(keys.contains { $0.contains("KEY_D down in home/root/header/search → taken by home/root/header/search [ui]") }, "\(keys)")
        expect(keys.contains { $0.contains("KEY_O up in home/root/header/search, ") && $0.contains(" repeat(s) → ") },
                "a held key's repeats are counted on release: \(keys)")
        expect(!keys.contains { $0.contains(" repeat in ") || $0.contains(" repeat (") }, "repeats are not listed one by one")
        let summary = try #require(lines.last)
        expect(summary.contains("5 key press(es)"), "\(summary)")

        // The long press's `changed` steps are counted on its end, as many as the trace has.
        let trace = try runEvroute(["--dry-run", "--format", "json"] + args)
        let changed = objects(trace.out).filter { $0["type"] as? String == "gesture" && $0["state"] as? String == "changed" }.count
        let gestures = lines.filter { $0.contains("  gesture ") }
        expect(changed > 1 && !gestures.contains { $0.contains(" changed in ") }, "\(gestures)")
        expect(gestures.contains { $0.contains("admin-hold ended in home/root/header/admin-corner, \(changed) change(s) → ") }, "\(gestures)")
        expect(lines.contains { $0.contains("action  open-admin in home/root/header/admin-corner → taken by screen:home [shell]") }, "\(lines)")
    }

    /// `--format json`: one object per line for each line the text monitor prints (the summary
    /// on stderr), each the JSON trace's object for the same record with only the monitor's own
    /// keys added (`node`, `detail`, `moves`, `repeats`, `changes`, `over`): devices added,
    /// removed and not routed, touches with region and responder, keys, a filtered contact,
    /// idle and active.
    @Test func jsonIsOneTraceObjectPerMonitorLine() throws {
        let root = recordingsDirectory
        let layout = Self.layout
            .replacingOccurrences(of: "displays: [{ name: main, size: [1280, 800] }]",
                                  with: "displays: [{ name: main, size: [1280, 800], idle: { after-s: 1 } }]")
            .replacingOccurrences(of: "- { name: touch, match: { kind: touchscreen, name: \"Atmel*\" } }",
                                  with: "- { name: touch, match: { kind: touchscreen, name: \"Atmel*\" }, filters: { ignore: [[300, 450, 100, 100]] } }")
            .replacingOccurrences(of: "handlers: [{ plugin: log, on: key }]", with: "handlers: [{ plugin: log, on: [key, idle, active] }]")
        let config = try write(layout)
        defer { try? FileManager.default.removeItem(atPath: config) }
        let drag = "\(root)/touchscreens/Atmel maXTouch Touchscreen.1-finger-drag-up-down.events"
        let other = "\(root)/touchscreens/EP0430M09.2-fingers-touch-release.events"
        let keyboard = "\(root)/keyboards/Logitech K400 Plus.events"
        let twoFingers = "\(root)/touchscreens/Atmel maXTouch Touchscreen.2-fingers-touch-release.events"
        let replays = [drag, other, keyboard, twoFingers].flatMap { ["--replay", $0] }

        let r = try runEvroute(["monitor", "--format", "json", "--config", config] + replays)
        expectEqual(r.status, 0, "\(r.err)")
        let text = try runEvroute(["monitor", "--config", config] + replays)
        let textLines = text.out.split(separator: "\n").map(String.init)
        let lines = r.out.split(separator: "\n").map(String.init)
        let monitor = objects(r.out)
        expectEqual(monitor.count, lines.count, "every line is a JSON object: \(r.out)")
        expectEqual(lines.count, textLines.count - 1, "one object per text line (the summary aside)")
        expectEqual(r.err.split(separator: "\n").last.map(String.init), textLines.last, "the summary on stderr: \(r.err)")
        expect(monitor.allSatisfy { $0["type"] is String && $0["time"] is Double })

        // Each is the trace's object, with the monitor's keys.
        let trace = objects(try runEvroute(["--dry-run", "--format", "json", "--config", config] + replays).out)
        let own: Set<String> = ["node", "detail", "moves", "repeats", "changes", "over"]
        for object in monitor {
            let traced = object.filter { !own.contains($0.key) } as NSDictionary
            expect(trace.contains { ($0 as NSDictionary).isEqual(traced) }, "not in the trace: \(object)")
        }
        func of(_ type: String) -> [[String: Any]] { monitor.filter { $0["type"] as? String == type } }

        // Devices, with their node; why the EP0430M09 is not routed.
        expectEqual(Set(of("device-added").compactMap { $0["node"] as? String }), [drag, keyboard, twoFingers])
        expectEqual(Set(of("device-removed").compactMap { $0["node"] as? String }), [drag, keyboard, twoFingers])
        let ignored = try #require(of("device-ignored").first)
        expect(ignored["name"] as? String == "EP0430M09" && ignored["node"] as? String == other
                && ignored["reason"] as? String == "no device rule matches"
                && (ignored["detail"] as? String)?.hasPrefix("no device rule takes it: rule touch wants a name matching \"Atmel*\"") == true, "\(ignored)")

        // Touches: begins and ends with region and responder, moves counted; the drag's region changes.
        let traceTouches = trace.filter { $0["type"] as? String == "touch" }
        let touches = of("touch")
        expectEqual(touches.filter { $0["phase"] as? String == "began" }.count, 2, "the third began in the ignored rectangle")
        for end in touches where ["ended", "cancelled"].contains(end["phase"] as? String ?? "") {
            let moves = traceTouches.filter { $0["touch"] as? Int == end["touch"] as? Int && $0["phase"] as? String == "moved" }.count
            expect(moves > 0 && end["moves"] as? Int == moves && end["handled_by"] is String, "\(end)")
        }
        expectEqual(touches.filter { $0["over"] != nil }.map { $0["over"] as? String }, ["home/root/top", "home/root/bottom-left"])
        let filtered = of("filtered")
        expect(filtered.count == 1 && filtered.first?["filter"] as? String == "ignore" && filtered.first?["device"] as? String == "touch", "\(filtered)")

        // Keys: no repeat listed, their count on the release; idle and active with who took them.
        let keys = of("key")
        let repeats = trace.filter { $0["type"] as? String == "key" && $0["phase"] as? String == "repeat" }.count
        expect(!keys.isEmpty && !keys.contains { $0["phase"] as? String == "repeat" })
        expect(repeats > 0 && keys.compactMap { $0["repeats"] as? Int }.reduce(0, +) == repeats)
        expect(of("idle").count == 1 && of("idle").first?["display"] as? String == "main" && of("idle").first?["handled_by"] as? String == "screen:home")
        expectEqual(of("active").count, 1)
    }

    /// Live, with no input device (as on this machine): it says so and why, and waits until stopped.
    @Test func liveWithoutDevicesSaysSoAndWaits() throws {
        let p = try TestProcess(try evrouteBinary(), ["monitor", "--config", "config/demo.yaml"], directory: packageRoot, stderr: .null)
        let text = p.readOutput(seconds: 10) { $0.contains("\n") }
        expect(p.isRunning, "monitor must keep waiting for a device")
        // SIGINT as soon as the first line is out: it handles SIGINT from before it prints.
        p.signal(SIGINT)
        expectEqual(p.waitForExit(seconds: 20), 0)
        if !FileManager.default.fileExists(atPath: "/dev/input") {
            expect(text.contains("device  no input device yet — waiting for one (plug one in: this machine has no /dev/input)"), "\(text)")
        } else if !((try? FileManager.default.contentsOfDirectory(atPath: "/dev/input"))?.contains { $0.hasPrefix("event") } ?? false) {
            expect(text.contains("no input device yet — waiting for one (plug one in, or check permissions on /dev/input"), "\(text)")
        }
    }

    /// Live in JSON: the wait is a `no-device` object with the text's words, and every line is an object.
    @Test func liveJSONSaysNoDeviceAsAnObject() throws {
        let p = try TestProcess(try evrouteBinary(), ["monitor", "--format", "json", "--config", "config/demo.yaml"], directory: packageRoot, stderr: .null)
        let out = p.readOutput(seconds: 10) { $0.contains("\"no-device\"") && $0.hasSuffix("\n") }
        expect(p.isRunning, "monitor must keep waiting for a device")
        p.signal(SIGINT)
        expectEqual(p.waitForExit(seconds: 20), 0)
        let lines = out.split(separator: "\n")
        expect(!lines.isEmpty && objects(out).count == lines.count, "every line is an object: \(out)")
        let waiting = try #require(objects(out).first { $0["type"] as? String == "no-device" }, "\(out)")
        expect(waiting["time"] is Double && (waiting["message"] as? String)?.contains("waiting for one (plug one in") == true, "\(waiting)")
        if !FileManager.default.fileExists(atPath: "/dev/input") {
            expectEqual(waiting["message"] as? String, "no input device yet — waiting for one (plug one in: this machine has no /dev/input)")
        }
    }
}
