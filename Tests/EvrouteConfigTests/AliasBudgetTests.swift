import EvrouteConfig
import EvrouteTestSupport
import EvrouteCore
import Testing
import EvrouteChecks

/// The one alias budget covers every path a YAML document takes into the daemon:
/// handler options (read into ConfigValue), `regions:` lists and `evroute ctl regions`
/// documents. Plugin options and regions in a config are covered in YAMLReaderTests.
@Suite("YAML alias budget on every path")
struct AliasBudgetTests {
    /// Nine levels of ten aliases each: 10^9 strings in under 1 KB, `indent` spaces deep.
    static func laughs(indent: Int) -> String {
        let pad = String(repeating: " ", count: indent)
        var yaml = pad + "a: &a [" + Array(repeating: "\"lol\"", count: 10).joined(separator: ", ") + "]\n"
        for (name, previous) in zip("bcdefghi", "abcdefgh") {
            yaml += pad + "\(name): &\(name) [" + Array(repeating: "*\(previous)", count: 10).joined(separator: ", ") + "]\n"
        }
        return yaml
    }

    @Test func anAliasBombInHandlerOptionsStopsAtTheLimit() {
        let yaml = withRegions("""
                - name: a
                  frame: [0, 0, 10, 10]
                  handlers:
                    - plugin: log
                      on: tap
        """) + "\n" + Self.laughs(indent: 14)
        // Counted, not timed: the reader stops at the alias that takes the nodes past the budget.
        let errors = compileErrors(yaml)
        expectEqual(errors.count, 1, "\(errors.prefix(3))")
        expectEqual(errors.first?.message.hasPrefix("alias expansion exceeds 100000 nodes at alias '*d'"), true, "\(errors.first.map(\.description) ?? "")")
    }

    @Test func anAliasBombInARegionsDocumentStopsAtTheLimit() {
        // `evroute ctl regions`: the document goes through the same reader.
        var yaml = "- &r0 { name: r0, frame: [0, 0, 1, 1] }\n"
        for k in 1...20 { yaml += "- &r\(k) { name: r\(k), frame: [0, 0, 1, 1], regions: [*r\(k - 1), *r\(k - 1)] }\n" }
        // Counted, not timed: one error, at the alias that takes the nodes past the budget.
        var message = ""
        do {
            _ = try ConfigLoader.parseRegions(yaml: yaml, file: "new.yaml")
            message = "accepted"
        } catch {
            message = error.errors.map(\.description).joined(separator: "\n")
        }
        expect(message.hasPrefix("new.yaml:13:"), "\(message.prefix(300))")
        expect(message.contains("alias expansion exceeds 100000 nodes at alias '*r11'"), "\(message.prefix(300))")
        expect(!message.contains("\n"), "one error, not one per expanded region")
    }

    @Test func optionsJustUnderTheBudgetAreReadWhole() throws {
        // 10 × 10 × 10 × 10 strings through aliases (11,110 nodes expanded): read into the
        // handler's options as nested lists, all of them.
        let yaml = withRegions("""
                - name: a
                  frame: [0, 0, 10, 10]
                  handlers:
                    - plugin: log
                      on: tap
        """) + "\n" + Self.laughs(indent: 14).split(separator: "\n").prefix(4).joined(separator: "\n") + "\n"
        let spec = try parseValid(yaml)
        let options = spec.screens[0].root.regions[0].handlers[0].options
        func strings(_ v: ConfigValue) -> Int {
            switch v {
            case .list(let l): l.map(strings).reduce(0, +)
            case .string: 1
            default: 0
            }
        }
        expectEqual(options["d"].map(strings), 10_000)
    }
}
