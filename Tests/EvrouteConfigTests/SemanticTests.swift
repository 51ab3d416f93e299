import EvrouteConfig
import EvrouteTestSupport
import EvrouteCore
import Testing
import EvrouteChecks

/// Semantic errors come from `Layout.compile`; the loader keeps their message and place.
@Suite struct SemanticTests {
    @Test func duplicateRegionName() {
        expectOne(compileErrors(withRegions("""
                - { name: a, frame: [0, 0, 10, 10] }
                - { name: a, frame: [10, 0, 10, 10] }
        """)), line: 10, column: 19, "duplicate region name 'a'", kind: .semantic)
    }

    @Test func unknownPluginInHandler() {
        expectOne(compileErrors(withRegions("""
                - name: a
                  frame: [0, 0, 10, 10]
                  handlers:
                    - { plugin: shel, on: [tap] }
        """)), line: 12, column: 25, "unknown plugin 'shel'", kind: .semantic)
    }

    @Test func unknownNextTarget() {
        expectOne(compileErrors(withRegions("""
                - name: a
                  frame: [0, 0, 10, 10]
                  next: nowhere
        """)), line: 11, column: 17, "unknown 'next' target 'nowhere'", kind: .semantic)
    }

    @Test func nextCycle() {
        let errors = compileErrors(withRegions("""
                - name: a
                  frame: [0, 0, 10, 10]
                  next: b
                - name: b
                  frame: [0, 0, 10, 10]
                  next: a
        """))
        expect(!errors.isEmpty)
        expect(errors.allSatisfy { $0.kind == .semantic && $0.message.contains("cycle") })
        expectEqual(errors.first?.line, 11)
        expectEqual(errors.first?.column, 17)
    }

    @Test func presentedOverCycle() {
        let errors = compileErrors("""
        displays:
          - { name: main, size: [100, 100] }
        screens:
          - name: one
            presented-over: two
            root: { name: r1, frame: [0, 0, 100, 100] }
          - name: two
            presented-over: one
            root: { name: r2, frame: [0, 0, 100, 100] }
        """)
        expect(!errors.isEmpty)
        expectEqual(errors.first?.line, 5)
        expectEqual(errors.first?.column, 21)
        expect(errors.contains { $0.message.contains("cycle") })
    }

    @Test func unknownDisplayOfScreen() {
        expectOne(compileErrors("""
        displays:
          - { name: main, size: [100, 100] }
        screens:
          - name: home
            display: mian
            root: { name: r, frame: [0, 0, 100, 100] }
        """), line: 5, column: 14, "unknown display 'mian'", kind: .semantic)
    }

    @Test func duplicateDisplayName() {
        expectOne(compileErrors("""
        displays:
          - { name: main, size: [100, 100] }
          - { name: main, size: [100, 100] }
        """), line: 3, column: 13, "duplicate display name 'main'", kind: .semantic)
    }

    @Test func semanticErrorsAreNotCheckedWhenTheTypesAreWrong() {
        // Type errors stop before compilation: no spurious follow-up errors.
        let errors = compileErrors(withRegions("""
                - { name: a, frame: [0, 0, 10] }
                - { name: a, frame: [0, 0, 10, 10] }
        """))
        expectEqual(errors.count, 1)
        expectEqual(errors.first?.kind, .invalidValue)
    }

    /// `devices:` on a handler names device rules; an unknown one is an error at its name,
    /// with a did-you-mean.
    @Test func handlerDevicesNameDeviceRules() throws {
        let yaml = """
        displays: [{ name: main, size: [100, 100] }]
        devices:
          - { name: scanner, match: { kind: keyboard, vendor: 0x05e0 } }
          - { name: keys, match: { kind: keyboard } }
        screens:
          - name: home
            root:
              name: root
              frame: [0, 0, 100, 100]
              handlers: [{ plugin: log, on: text, devices: [keys, scaner] }]
        """
        expectOne(compileErrors(yaml), line: 10, column: 59,
                  "unknown device rule 'scaner' in 'devices' (device rules: scanner, keys); did you mean 'scanner'?", kind: .semantic)
        let (_, layout) = try ConfigLoader.compile(yaml: yaml.replacingOccurrences(of: "scaner", with: "scanner"), file: "test.yaml")
        let h = try #require(layout.handlers.first)
        expectEqual(h.devices, ["keys", "scanner"])
        expect(h.options.isEmpty, "'devices' is the handler's own key, not a plugin option")
        // One name is a list of one; an empty list is an error.
        let one = try ConfigLoader.compile(yaml: yaml.replacingOccurrences(of: "[keys, scaner]", with: "keys"), file: "test.yaml")
        expectEqual(one.layout.handlers.first?.devices, ["keys"])
        expectOne(parseErrors(yaml.replacingOccurrences(of: "[keys, scaner]", with: "[]")), line: 10, column: 52,
                  "'devices' must name at least one device rule", kind: .invalidValue)
    }

    /// A device rule named twice in `devices:` is an error at the second, naming it and the
    /// first; a list of 100,001 copies of one name does not pass.
    @Test func handlerDevicesNameEachRuleOnce() throws {
        let yaml = """
        displays: [{ name: main, size: [100, 100] }]
        devices:
          - { name: scanner, match: { kind: keyboard, vendor: 0x05e0 } }
          - { name: keys, match: { kind: keyboard } }
        screens:
          - name: home
            root:
              name: root
              frame: [0, 0, 100, 100]
              handlers: [{ plugin: log, on: text, devices: [keys, scanner, keys] }]
        """
        expectOne(compileErrors(yaml), line: 10, column: 68,
                  "device rule 'keys' is named twice in 'devices' (first at 10:53); name each rule once", kind: .semantic)
        let many = yaml.replacingOccurrences(of: "[keys, scanner, keys]", with: "[" + Array(repeating: "keys", count: 100_001).joined(separator: ", ") + "]")
        let errors = compileErrors(many)
        expectEqual(errors.count, 100_000)
        expect(errors.allSatisfy { $0.message.hasPrefix("device rule 'keys' is named twice in 'devices' (first at 10:53)") })
    }
}
