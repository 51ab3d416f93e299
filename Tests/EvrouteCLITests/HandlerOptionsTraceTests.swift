import Foundation
import Testing
import EvrouteChecks
import EvrouteConfig
import EvrouteCore
@testable import EvrouteRuntime
import EvrouteTestSupport

/// The dry-run trace of `yaml` over the UI example's recording (six taps on an 800×480 panel,
/// the first at (700, 420)), as lines.
private func trace(_ yaml: String, _ format: TraceFormat) throws -> [String] {
    let (_, layout) = try ConfigLoader.compile(yaml: yaml, file: "test.yaml")
    let sink = MemorySink()
    try DryRun(layout: layout, format: format, sink: sink, errors: MemorySink())
        .runReplays(paths: [packageRoot + "/examples/ui-two-pages.events"], descriptionPath: nil)
    return sink.lines
}

/// One screen whose button (under the first tap) has `handlers`.
private func layout(_ handlers: String) -> String {
    """
    displays: [{ name: panel, size: [800, 480] }]
    devices: [{ name: touch, match: { kind: touchscreen } }]
    plugins:
      - { name: ui, type: socket, path: /tmp/unused.sock }
      - { name: shell, type: exec }
    screens:
      - name: home
        root:
          name: root
          frame: [0, 0, 800, 480]
          regions:
            - name: button
              frame: [600, 380, 180, 80]
              handlers:
    \(handlers.split(separator: "\n").map { "            " + $0 }.joined(separator: "\n"))
      - name: other
        root: { name: root, frame: [0, 0, 800, 480] }
    """
}

@Suite("Handler options in the dry-run trace")
struct HandlerOptionsTraceTests {
    @Test func jsonCarriesNestedOptionsAndOddNames() throws {
        let lines = try trace(layout("""
            - plugin: ui
              on: [tap]
              button: settings
              "odd key, \\"quoted\\"": "a, b"
              nested: { z: [1, 2.5, true, null, 0x10], a: { b: "c" } }
              page: 2
            """), .json)
        let tap = try #require(lines.first { $0.contains("\"phase\":\"ended\"") && $0.contains("\"touch\":1,") })
        expect(tap.hasSuffix(#","tap":true,"pressure":80.0,"options":{"button":"settings","nested":{"a":{"b":"c"},"z":[1,2.5,true,null,16]},"odd key, \"quoted\"":"a, b","page":2}}"#), "\(tap)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(tap.utf8)) as? [String: Any])
        let options = try #require(object["options"] as? [String: Any])
        expectEqual(options["odd key, \"quoted\""] as? String, "a, b")
        // The began phase went to the fallback's log handler, which has no options.
        let began = try #require(lines.first { $0.contains("\"phase\":\"began\"") && $0.contains("\"touch\":1,") })
        expect(!began.contains("options"))
    }

    @Test func textShowsOptionsCompactlyAfterTheHandler() throws {
        let lines = try trace(layout("""
            - { plugin: ui, on: [tap], key: "1", label: "two words", list: [a, 1.5], map: { y: false, x: ~ } }
            """), .text)
        let tap = try #require(lines.first { $0.contains("touch 1 ended") })
        expect(tap.hasSuffix(#"home/root/button [ui] {key: 1, label: "two words", list: [a, 1.5], map: {x: null, y: false}}  tap ×1"#), "\(tap)")
    }

    @Test func handlersWithoutOptionsPrintAsBefore() throws {
        let yaml = layout("- { plugin: ui, on: [tap] }")
        let text = try trace(yaml, .text)
        expect(text.contains("   +0.080000  touch      touch 1 ended        (700.0, 420.0)       home/root/button             → home/root/button [ui]  tap ×1"))
        let json = try trace(yaml, .json)
        expect(json.contains(#"{"type":"touch","time":10.08,"device":"touch","touch":1,"phase":"ended","x":700.0,"y":420.0,"region":"home/root/button","handled_by":"home/root/button","handler":"ui","tap_count":1,"tap":true,"pressure":80.0}"#))
    }

    @Test func optionsThePluginReadsItselfDoNotTravel() throws {
        // exec's command and shell, present's screen: read by the plugin, not shown as options.
        let exec = try trace(layout("- { plugin: shell, on: [tap], command: [echo, hi], shell: false, key: k }"), .json)
        expect(exec.contains { $0.contains("\"handler\":\"shell\"") && $0.hasSuffix(#""options":{"key":"k"}}"#) })
        let present = try trace(layout("- { plugin: present, on: [tap], screen: other }"), .json)
        expect(present.contains { $0.contains("\"handler\":\"present\"") && !$0.contains("options") })
        expect(present.contains { $0.hasPrefix(#"{"type":"present""#) })
    }

    @Test func theUIExampleTracesItsButtonOptions() throws {
        let r = try runEvroute(["--config", "examples/ui-two-pages.yaml", "--dry-run", "--replay", "examples/ui-two-pages.events", "--format", "json"])
        expectEqual(r.status, 0, "\(r.err)")
        let withOptions = r.out.split(separator: "\n").filter { $0.contains("\"options\"") }
        // Without a UI to present settings, only the first tap hits a button.
        expectEqual(withOptions.count, 1)
        expectEqual(withOptions.first?.hasSuffix(#""handled_by":"home/root/settings","handler":"ui","tap_count":1,"tap":true,"pressure":80.0,"options":{"button":"settings"}}"#), true)
    }
}
