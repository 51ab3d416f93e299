import Foundation
import Testing
import EvrouteChecks
import EvrouteConfig
import EvrouteCore
import EvrouteInput
@testable import EvrouteRuntime
import EvrouteTestSupport

/// Text in the dry-run: a `de` keymap turns KEY_Y into "z"; a scan (`text: line`)
/// arrives as one text event at the focused region, its keys not one by one.
@Suite("Text in the dry-run")
struct TextReplayTests {
    static func yaml(scanner: String = "text: line", keys: String = "") -> String {
        """
        displays: [{ name: main, size: [800, 480] }]
        devices:
          - { name: scanner, match: { vendor: 0x1532, product: 0x011b }, \(scanner) }
          - { name: keys, match: { kind: keyboard }\(keys) }
        screens:
          - name: home
            root:
              name: root
              frame: [0, 0, 800, 480]
              regions:
                - { name: search, frame: [0, 0, 400, 60], focusable: true, handlers: [{ plugin: log, on: [text, key] }] }
                - { name: notes, frame: [0, 60, 400, 60], focusable: true }
        fallback: { handlers: [{ plugin: log, on: [any] }] }
        """
    }

    /// JSON trace objects of a dry-run over `paths`, with `focus` the first responder from the start.
    func run(_ paths: [String], yaml: String, focus: String? = "home/root/search",
             warnings: inout [String]) throws -> [[String: Any]] {
        let (_, layout) = try ConfigLoader.compile(yaml: yaml, file: "text.yaml")
        let sink = MemorySink()
        let dry = DryRun(layout: layout, format: .json, sink: sink, errors: MemorySink())
        var said: [String] = []
        dry.warn = { said.append($0) }
        if let focus { dry.session.router.setFirstResponder(layout.region(path: focus)) }
        try dry.runReplays(paths: paths, descriptionPath: nil)
        warnings = said
        return try sink.lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
    }

    func run(_ paths: [String], yaml: String, focus: String? = "home/root/search") throws -> [[String: Any]] {
        var warnings: [String] = []
        let out = try run(paths, yaml: yaml, focus: focus, warnings: &warnings)
        expect(warnings.isEmpty, "\(warnings)")
        return out
    }

    @Test("keymap: { layout: de } turns KEY_Y into z; the key is still sent")
    func germanY() throws {
        let dir = try Typist.scratch()
        let path = try Typist.write(["KEY_Y", "+KEY_LEFTSHIFT", "KEY_Y", "-KEY_LEFTSHIFT"], start: 10, name: "de.events", in: dir)
        let objects = try run([path], yaml: Self.yaml(scanner: "keymap: { layout: de }"))
        let texts = objects.filter { $0["type"] as? String == "text" }
        expectEqual(texts.map { $0["text"] as? String }, ["z", "Z"])
        expect(texts.allSatisfy { $0["region"] as? String == "home/root/search" && $0["handled_by"] as? String == "home/root/search" })
        let downs = objects.filter { $0["type"] as? String == "key" && $0["phase"] as? String == "down" }.map { $0["key"] as? String }
        expectEqual(downs, ["KEY_Y", "KEY_LEFTSHIFT", "KEY_Y"])
        // Each text follows its key.
        let order = objects.compactMap { o -> String? in
            switch o["type"] as? String {
            case "text": "text:\(o["text"]!)"
            case "key" where o["phase"] as? String == "down": "\(o["key"]!)"
            default: nil
            }
        }
        expectEqual(order, ["KEY_Y", "text:z", "KEY_LEFTSHIFT", "KEY_Y", "text:Z"])
        // The same keys with the default keymap (us) type y.
        let us = try run([path], yaml: Self.yaml(scanner: "text: true"))
        expectEqual(us.filter { $0["type"] as? String == "text" }.map { $0["text"] as? String }, ["y", "Y"])
    }

    @Test("A scan is one text event at the focused region; its keys are not sent")
    func scanIsOneTextEvent() throws {
        let dir = try Typist.scratch()
        let code = "4006381333931"
        let scan = try Typist.write(Typist.digits(code) + ["KEY_ENTER"], start: 20, name: "scan.events", in: dir)
        let objects = try run([scan], yaml: Self.yaml())
        let routed = objects.filter { ["key", "text"].contains($0["type"] as? String) }
        expectEqual(routed.count, 1, "\(routed)")
        let text = try #require(routed.first)
        expectEqual(text["type"] as? String, "text")
        expectEqual(text["text"] as? String, code)
        expectEqual(text["device"] as? String, "scanner")
        expectEqual(text["region"] as? String, "home/root/search")
        expectEqual(text["handled_by"] as? String, "home/root/search")
        expectEqual(text["handler"] as? String, "log")
        // At Enter's time (the 14th press, one every 12 ms).
        expectEqual(text["time"] as? Double, 20 + 13 * 0.012)
    }

    @Test("A person's keyboard beside the scanner keeps its keys and its own text")
    func keyboardBesideScanner() throws {
        let dir = try Typist.scratch()
        let scan = try Typist.write(Typist.digits("12345") + ["KEY_ENTER"], start: 30, name: "scan.events", in: dir)
        let logitech = Typist.keyboards + "/Logitech K400 Plus.events"
        let objects = try run([scan, logitech], yaml: Self.yaml())
        let scanner = objects.filter { $0["device"] as? String == "scanner" && $0["type"] as? String != "device-added" && $0["type"] as? String != "device-removed" }
        expectEqual(scanner.map { $0["type"] as? String }, ["text"])
        expectEqual(scanner.first?["text"] as? String, "12345")
        let keys = objects.filter { $0["device"] as? String == "keys" && $0["type"] as? String == "key" }
        expect(!keys.isEmpty, "the Logitech keyboard's keys still route")
    }

    /// A handler with `devices: [scanner]` takes only the scanner's text; the
    /// maintenance keyboard's typing passes it by as if it were not there (on to the fallback).
    @Test("devices: [scanner] on a handler: only the scanner's text reaches it")
    func handlerFilteredByDevice() throws {
        let dir = try Typist.scratch()
        let scan = try Typist.write(Typist.digits("4711"), start: 30, name: "scan.events", in: dir)
        // The maintenance keyboard (a real ThinkPad keyboard's description) types "root" meanwhile.
        let maintenance = try Typist.write(["KEY_R", "KEY_O", "KEY_O", "KEY_T"], start: 30.004, name: "maintenance.events", in: dir,
                                           description: Typist.keyboards + "/Lenovo ThinkPad Compact USB Keyboard with TrackPoint.keyboard.events")
        let yaml = """
            displays: [{ name: main, size: [800, 480] }]
            devices:
              - { name: scanner, match: { vendor: 0x1532, product: 0x011b } }
              - { name: keys, match: { kind: keyboard } }
            plugins: [{ name: scan-helper, type: socket, path: /tmp/evroute-scan-helper.sock }]
            screens:
              - name: home
                root:
                  name: root
                  frame: [0, 0, 800, 480]
                  regions:
                    - name: search
                      frame: [0, 0, 400, 60]
                      focusable: true
                      handlers: [{ plugin: scan-helper, on: [text], devices: [scanner] }]
            fallback: { handlers: [{ plugin: log, on: [any] }] }
            """
        let objects = try run([scan, maintenance], yaml: yaml)
        let texts = objects.filter { $0["type"] as? String == "text" }
        let scanned = texts.filter { $0["device"] as? String == "scanner" }
        let typed = texts.filter { $0["device"] as? String == "keys" }
        expectEqual(scanned.map { $0["text"] as? String }, ["4", "7", "1", "1"])
        expect(scanned.allSatisfy { $0["handled_by"] as? String == "home/root/search" && $0["handler"] as? String == "scan-helper" })
        expectEqual(typed.map { $0["text"] as? String }, ["r", "o", "o", "t"])
        expect(typed.allSatisfy { $0["region"] as? String == "home/root/search" && $0["handled_by"] as? String == "fallback" && $0["handler"] as? String == "log" },
                "\(typed.prefix(3))")
        // Without `devices:` the handler took both keyboards' text (the kiosk's complaint).
        let unfiltered = try run([scan, maintenance], yaml: yaml.replacingOccurrences(of: ", devices: [scanner]", with: ""))
        expect(unfiltered.filter { $0["type"] as? String == "text" }.allSatisfy { $0["handler"] as? String == "scan-helper" })
    }

    @Test("Without Enter the line goes after line-timeout-ms of silence, or when the device goes")
    func lineTimeout() throws {
        let dir = try Typist.scratch()
        let first = try Typist.write(Typist.digits("777") + ["pause:0.5", "KEY_8", "KEY_ENTER"], start: 40, name: "a.events", in: dir)
        let objects = try run([first], yaml: Self.yaml(scanner: "text: line, line-timeout-ms: 100"))
        let texts = objects.filter { $0["type"] as? String == "text" }
        expectEqual(texts.map { $0["text"] as? String }, ["777", "8"])
        // The last 7 went down at 40.024: its silence ran out 100 ms later.
        expectEqual(texts.first?["time"] as? Double, 40.124)
        let only = try Typist.write(Typist.digits("777"), start: 40, name: "b.events", in: dir)
        // line-timeout-ms: 0 waits for Enter; the end of the recording sends what is left.
        let waiting = try run([only], yaml: Self.yaml(scanner: "text: line, line-timeout-ms: 0"))
        let left = waiting.filter { $0["type"] as? String == "text" }
        expectEqual(left.map { $0["text"] as? String }, ["777"])
        let removed = try #require(waiting.first { $0["type"] as? String == "device-removed" })
        expectEqual(left.first?["time"] as? Double, removed["time"] as? Double)
    }

    @Test("A keymap that does not compile at device add: a warning, and keys without text")
    func keymapFailsAtDeviceAdd() throws {
        let dir = try Typist.scratch()
        let path = try Typist.write(["KEY_Y"], start: 10, name: "k.events", in: dir)
        // Built without the config reader's xkb-data check, as on a host without xkb-data.
        var spec = try ConfigLoader.parse(yaml: Self.yaml(scanner: "text: line"), file: "text.yaml")
        spec.deviceRules[0].keymap = KeymapSpec(layout: "no-such-layout")
        let layout = try ConfigLoader.compile(spec, file: "text.yaml")
        let sink = MemorySink()
        let dry = DryRun(layout: layout, format: .json, sink: sink, errors: MemorySink())
        var warnings: [String] = []
        dry.warn = { warnings.append($0) }
        try dry.runReplays(paths: [path], descriptionPath: nil)
        expectEqual(warnings.count, 1)
        expectEqual(warnings.first?.contains("device \"Razer Razer BlackWidow 2013\" (rule scanner): keymap no-such-layout could not be compiled"), true,
                "\(warnings)")
        expectEqual(warnings.first?.contains("its keys route as keys"), true)
        let lines = sink.lines
        expect(lines.contains { $0.contains("\"type\":\"key\"") && $0.contains("KEY_Y") })
        expect(!lines.contains { $0.contains("\"type\":\"text\"") })
    }

    @Test("The text trace and the process: a scan after the demo's tap on its search field")
    func demoScanThroughTheCommandLine() throws {
        let dir = try Typist.scratch()
        // The demo taps its search field at 101.3 s; the scan comes at 102.5 s.
        let scan = try Typist.write(Typist.digits("4006381333931") + ["KEY_ENTER"], start: 102.5, name: "scan.events", in: dir)
        var config = try String(contentsOfFile: packageRoot + "/config/demo.yaml", encoding: .utf8)
        config = config.replacingOccurrences(of: "devices:\n", with: """
            devices:
              - name: scanner
                match: { vendor: 0x1532, product: 0x011b }
                display: main
                text: line

            """)
        let configPath = dir.appendingPathComponent("demo.yaml").path
        try config.write(toFile: configPath, atomically: true, encoding: .utf8)
        let r = try runEvroute(["--config", configPath, "--dry-run", "--replay", "demo/touchscreen.events", "--replay", scan])
        expectEqual(r.status, 0, "\(r.err)")
        let scanner = r.out.split(separator: "\n").filter { $0.contains(" scanner ") && !$0.contains("device ") }
        expectEqual(scanner.count, 1, "\(scanner)")
        let line = String(scanner.first ?? "")
        expect(line.contains("text \"4006381333931\""))
        expect(line.contains("home/root/header/search"))
        let json = try runEvroute(["--config", configPath, "--dry-run", "--format", "json",
                                   "--replay", "demo/touchscreen.events", "--replay", scan])
        let text = try #require(json.out.split(separator: "\n").first { $0.contains("\"type\":\"text\"") })
        expectEqual(text, "{\"type\":\"text\",\"time\":102.656,\"device\":\"scanner\",\"text\":\"4006381333931\",\"region\":\"home/root/header/search\",\"handled_by\":\"home/root/header/search\",\"handler\":\"ui\",\"options\":{\"field\":\"search\"}}",
                "\(text)")
    }
}
