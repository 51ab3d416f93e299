import EvrouteConfig
import EvrouteTestSupport
import EvrouteCore
import Testing
import EvrouteChecks

/// The errors of a regions document (`evroute ctl regions`) that must be invalid.
func regionsErrors(_ yaml: String) -> [Diagnostic] {
    do {
        _ = try ConfigLoader.parseRegions(yaml: yaml, file: "ui.yaml")
        return []
    } catch {
        return error.errors
    }
}

@Suite("Regions documents (ctl regions)")
struct RegionsDocumentTests {
    @Test func aListOfRegionsReadsLikeTheConfig() throws {
        let regions = try ConfigLoader.parseRegions(yaml: """
            - name: ok
              frame: [0, 0, 100, 50]
              handlers:
                - { plugin: ui, on: [tap], key: "1" }
            - name: cancel
              frame: [120, 0, 100, 50]
              hidden: true
              regions:
                - { name: icon, frame: [10, 10, 20, 20], shape: ellipse }
            """, file: "ui.yaml")
        expectEqual(regions.map(\.name), ["ok", "cancel"])
        expectEqual(regions[0].frame, Rect(x: 0, y: 0, width: 100, height: 50))
        expectEqual(regions[0].handlers.first?.options["key"], .string("1"))
        expectEqual(regions[0].handlers.first?.on, [.tap])
        expect(regions[1].hidden && regions[1].regions.first?.shape == .ellipse)
        expectEqual(regions[0].nameLocation, SourceLocation(file: "ui.yaml", line: 1, column: 9))
    }

    @Test func aMappingWithRegionsAndJSONReadTheSame() throws {
        let yaml = try ConfigLoader.parseRegions(yaml: "regions:\n  - { name: z, frame: [0, 0, 10, 10], interactive: false }\n", file: "a.yaml")
        let json = try ConfigLoader.parseRegions(yaml: #"{"regions": [{"name": "z", "frame": [0, 0, 10, 10], "interactive": false}]}"#, file: "a.json")
        let list = try ConfigLoader.parseRegions(yaml: #"[{"name": "z", "frame": [0, 0, 10, 10], "interactive": false}]"#, file: "b.json")
        expect(yaml == json && json == list)
        expect(yaml.count == 1 && !yaml[0].interactive)
        expectEqual(json[0].nameLocation, SourceLocation(file: "a.json", line: 1, column: 23))
        // No children at all.
        try expect(try ConfigLoader.parseRegions(yaml: "[]", file: "e.yaml").isEmpty)
        try expect(try ConfigLoader.parseRegions(yaml: "regions: []", file: "e.yaml").isEmpty)
        try expect(try ConfigLoader.parseRegions(yaml: "regions:", file: "e.yaml").isEmpty)
    }

    /// `/` joins a region path's names: a name holding one is refused, in the config (region,
    /// screen, display) and in the run-time `regions` document, at the name and naming it.
    @Test func aNameHoldingASlashIsRefusedAtItsPlace() {
        expectOne(regionsErrors("- { name: a/b, frame: [0, 0, 10, 10] }\n"), line: 1, column: 11,
                  "region name 'a/b' must not contain '/' (it separates the names of a region's path, e.g. home/root/keypad)", kind: .invalidValue)
        let yaml = """
            displays: [{ name: main, size: [100, 100] }]
            screens:
              - name: home
                display: main
                root:
                  name: root
                  frame: [0, 0, 100, 100]
                  regions:
                    - { name: a, frame: [0, 0, 50, 50], regions: [{ name: b, frame: [0, 0, 10, 10] }] }
                    - { name: a/b, frame: [50, 50, 10, 10] }
            """
        expectOne(parseErrors(yaml), line: 10, column: 19,
                  "region name 'a/b' must not contain '/' (it separates the names of a region's path, e.g. home/root/keypad)", kind: .invalidValue)
        let screen = parseErrors(yaml.replacingOccurrences(of: "- name: home", with: "- name: home/x"))
        expectEqual(screen.count, 2)
        expectOne(screen.filter { $0.line == 3 }, line: 3, column: 11,
                  "screen name 'home/x' must not contain '/' (it separates the names of a region's path, e.g. home/root/keypad)", kind: .invalidValue)
        let display = parseErrors(yaml.replacingOccurrences(of: "{ name: main,", with: "{ name: main/1,"))
        expect(display.contains { $0.line == 1 && $0.message.hasPrefix("display name 'main/1' must not contain '/'") }, "\(display)")
    }

    @Test func regionErrorsAreTheConfigsAtTheirPlace() {
        expectOne(regionsErrors("""
            - name: ok
              frame: [0, 0, 10, 10]
              hiden: true
            """), line: 3, column: 3,
                  "unknown key 'hiden' in region 'ok' (expected one of: name, frame, regions, handlers, hidden, interactive, opacity, shape, hit-insets, exclusive, multitouch, focusable, next, gestures); did you mean 'hidden'?",
                  kind: .unknownKey)
        expectOne(regionsErrors("- name: ok\n"), line: 1, column: 3,
                  "region 'ok' is missing required key 'frame' ([x, y, width, height])", kind: .missingKey)
        expectOne(regionsErrors("- { name: ok, frame: [0, 0, -1, 10] }"), line: 1, column: 22,
                  "'frame' must be [x, y, width, height] with width and height ≥ 0, found [0, 0, -1, 10]", kind: .invalidValue)
        expectOne(regionsErrors("regions:\n  - name: a\n    frame: [0, 0, 1, 1]\n    handlers: [{ plugin: p, on: [tapp] }]\n"),
                  line: 4, column: 34, "unknown event kind 'tapp' in 'on'", kind: .invalidValue)
        // Every error, in file order.
        let errors = regionsErrors("- { name: a, frame: [0, 0, 1] }\n- { name: b, frame: [0, 0, 1, 1], opacity: 2 }\n")
        expectEqual(errors.map { "\($0.line):\($0.column ?? 0)" }, ["1:21", "2:44"])
        expectEqual(errors.map(\.description).first, "ui.yaml:1:21: error: 'frame' must be [x, y, width, height] with width and height ≥ 0, found [0, 0, 1]")
    }

    @Test func theDocumentMustBeAListOrHoldOne() {
        // The misspelt key, then the missing one (as the config reports them).
        expectEqual(regionsErrors("region:\n  - { name: a, frame: [0, 0, 1, 1] }\n").map(\.description), [
            "ui.yaml:1:1: error: unknown key 'region' in the top level of the regions (expected one of: regions); did you mean 'regions'?",
            "ui.yaml:1:1: error: the top level of the regions is missing required key 'regions' (a list of regions)",
        ])
        expectOne(regionsErrors("{ }"), line: 1, column: 1,
                  "the top level of the regions is missing required key 'regions' (a list of regions)", kind: .missingKey)
        expectOne(regionsErrors("hello"), line: 1, column: 1,
                  "the document must be a list of regions, or a mapping with 'regions:' holding one, found string 'hello'", kind: .wrongType)
        expectOne(regionsErrors("regions: 3"), line: 1, column: 10, "'regions' must be a list, found number 3", kind: .wrongType)
        let empty = regionsErrors("# nothing\n")
        expectEqual(empty.map(\.description), [
            "ui.yaml: error: the document is empty; expected a list of regions, or a mapping with 'regions:' holding one (an empty list [] removes every child)",
        ])
        let syntax = regionsErrors("- { name: a, frame: [0, 0, 1, 1]\n- b\n")
        expect(syntax.count == 1 && syntax.first?.kind == .syntax && syntax.first?.line == 2)
    }

    @Test func parsedRegionsApplyAndTheirCompileErrorsPointIntoTheirFile() throws {
        let (_, layout) = try ConfigLoader.compile(yaml: withRegions("""
                    - { name: ok, frame: [0, 0, 100, 100] }
                    - { name: cancel, frame: [200, 0, 100, 100] }
            """), file: "test.yaml")
        let router = Router(layout: layout)
        let fresh = try ConfigLoader.parseRegions(yaml: "- { name: ok, frame: [0, 0, 50, 50] }\n- { name: more, frame: [60, 0, 50, 50] }\n", file: "ui.yaml")
        try router.apply(.children(region: "home/root", fresh), time: .zero)
        expectEqual(router.layout.regions.map(\.path), ["home/root", "home/root/ok", "home/root/more"])
        expectEqual(router.regionOverrides, [RegionOverride(path: "home/root", childrenReplaced: true)])

        let bad = try ConfigLoader.parseRegions(yaml: """
            - { name: a, frame: [0, 0, 50, 50] }
            - name: a
              frame: [60, 0, 50, 50]
              next: nowhere
            """, file: "ui.yaml")
        do {
            try router.apply(.children(region: "home/root", bad), time: .zero)
            Issue.record("applied")
        } catch {
            let errors = try #require({ () -> [Diagnostic]? in
                if case .doesNotCompile(_, .children, let errors) = error { return errors } else { return nil }
            }(), "\(error)")
            expectEqual(errors.map(\.description), [
                "ui.yaml:2:9: error: duplicate region name 'a' in screen 'home' (first defined at line 1)",
                "ui.yaml:4:9: error: unknown 'next' target 'nowhere' (expected a region of screen 'home', screen:NAME, display:NAME, application or fallback)",
            ])
        }
        expectEqual(router.layout.regions.map(\.path), ["home/root", "home/root/ok", "home/root/more"])
    }
}
