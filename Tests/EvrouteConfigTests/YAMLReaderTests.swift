import EvrouteConfig
import EvrouteTestSupport
import EvrouteCore
import Testing
import EvrouteChecks

/// The YAML reader itself: anchors and aliases and their limits, nesting depth, how scalars
/// resolve to types, and libyaml's syntax errors in evroute's words.
@Suite struct YAMLReaderTests {
    // MARK: Aliases

    /// A "billion laughs" file: each line holds ten aliases of the line before (10^9 strings).
    @Test func aliasBombInPluginOptionsStopsAtTheAliasOverTheLimit() {
        var yaml = "plugins:\n  - name: lol\n    type: log\n"
        yaml += "    a: &a [" + Array(repeating: "\"lol\"", count: 10).joined(separator: ", ") + "]\n"
        for (name, previous) in zip("bcdefghi", "abcdefgh") {
            yaml += "    \(name): &\(name) [" + Array(repeating: "*\(previous)", count: 10).joined(separator: ", ") + "]\n"
        }
        expect(yaml.utf8.count < 1000)
        let errors = parseErrors(yaml)
        // The work is counted, not timed: the reader stops at the alias whose nodes take the
        // count past the budget. a = 11 nodes, b = 111, c = 1111, d = 11111; after d the
        // aliases stand for 12330 nodes, and the 8th *d on line 8 takes them past 100000.
        // (Reading speed is a benchmark: `make bench`, "Config: a billion-laughs file refused".)
        expectOne(errors, line: 8, column: 40, "alias expansion exceeds 100000 nodes at alias '*d'", kind: .syntax)
        expectEqual(ConfigLoader.maximumAliasExpansion, 100_000)
    }

    /// 1.6 KB that would be 2^20 regions: each region holds two aliases of the one before.
    @Test func aliasBombInRegionsStopsAtTheAliasOverTheLimit() throws {
        let (yaml, aliasLine) = regionDoubling(levels: 20)
        expect(yaml.utf8.count < 1700)
        // Counted, not timed: one error, at the alias past the budget (2^11 regions' nodes).
        let errors = parseErrors(yaml)
        expectEqual(errors.count, 1, "\(errors)")
        let e = try #require(errors.first)
        expectEqual(e.kind, .syntax)
        expect(e.message.hasPrefix("alias expansion exceeds 100000 nodes at alias '*r11'"), "\(e)")
        // The first alias of r11 in region r12's line.
        let line = yaml.split(separator: "\n", omittingEmptySubsequences: false)[e.line - 1]
        expectEqual(e.line, aliasLine(12))
        expect(line.dropFirst((e.column ?? 1) - 1).hasPrefix("*r11, *r11]"), "\(line)")
    }

    @Test func aliasesBelowTheLimitExpand() throws {
        let (yaml, _) = regionDoubling(levels: 8)
        let spec = try parseValid(yaml)
        func leaves(_ r: RegionSpec) -> Int { r.regions.isEmpty ? 1 : r.regions.map(leaves).reduce(0, +) }
        let root = spec.screens[0].root
        expectEqual(root.regions.count, 9)
        expectEqual(leaves(root.regions[8]), 256)
    }

    @Test func anchorsAndAliasesShareHandlersAndFrames() throws {
        let yaml = withRegions("""
                - name: a
                  frame: &cell [0, 0, 100, 100]
                  handlers: &taps
                    - { plugin: log, on: [tap, touch] }
                    - { plugin: log, on: key, level: debug }
                - name: b
                  frame: *cell
                  handlers: *taps
        """)
        expect(compileErrors(yaml).isEmpty, "\(compileErrors(yaml))")
        let regions = try parseValid(yaml).screens[0].root.regions
        expectEqual(regions[1].frame, regions[0].frame)
        expectEqual(regions[1].handlers.map(\.plugin), ["log", "log"])
        expectEqual(regions[1].handlers.map(\.on), regions[0].handlers.map(\.on))
        expectEqual(regions[1].handlers[1].options["level"], .string("debug"))
    }

    @Test func undefinedAliasIsAnErrorAtTheAlias() {
        expectOne(parseErrors(withRegions("""
                - name: a
                  frame: *square
        """)), line: 10, column: 18, "invalid YAML: found undefined alias '*square'", kind: .syntax)
        // An anchor is defined once its node is complete: a node cannot hold itself.
        expectOne(parseErrors("plugins:\n  - &p { name: p, type: log, self: *p }\n"), line: 2, column: 36,
                  "found undefined alias '*p'", kind: .syntax)
    }

    // MARK: Depth

    @Test func nestingDeeperThanTheLimitIsAnError() {
        expectEqual(ConfigLoader.maximumNestingDepth, 256)
        // The top-level mapping is level 1; the k-th '[' (column 3 + k) is level k + 1.
        let deep = "a: " + String(repeating: "[", count: 300) + String(repeating: "]", count: 300) + "\n"
        expectOne(parseErrors(deep), line: 1, column: 259, "nesting exceeds 256 levels", kind: .syntax)
        // Exactly 256 levels is fine (the one error is the unknown key).
        let limit = "a: " + String(repeating: "[", count: 255) + String(repeating: "]", count: 255) + "\n"
        expectOne(parseErrors(limit), line: 1, column: 1, "unknown key 'a'", kind: .unknownKey)
    }

    @Test func nestingThroughAnAliasCountsTheAliasedDepth() {
        let yaml = "a: &d " + String(repeating: "[", count: 200) + String(repeating: "]", count: 200) + "\n"
            + "b: " + String(repeating: "[", count: 100) + "*d" + String(repeating: "]", count: 100) + "\n"
        expectOne(parseErrors(yaml), line: 2, column: 104, "nesting exceeds 256 levels at alias '*d'", kind: .syntax)
    }

    // MARK: Scalar types

    @Test func scalarsResolveAsYAML11() throws {
        let spec = try parseValid("""
        plugins:
          - name: p
            type: log
            tilde: ~
            null-word: null
            empty:
            true-word: true
            yes-word: yes
            on-word: On
            no-word: NO
            y-letter: y
            hex: 0x10
            underscores: 1_000
            octal: 0o17
            leading-zero: 017
            binary: 0b101
            base-60: 1:30
            exponent: 1e3
            fraction: .5
            infinity: .inf
            minus-infinity: -.Inf
            not-a-number: .nan
            quoted-one: "1"
            single-quoted: '1'
            str-tag: !!str 1
            str-tag-true: !!str true
            float-tag: !!float 1
            non-specific: ! 12
            date: 2024-01-31
            block: |
              12
        """)
        let o = spec.plugins[0].options
        expect(o["tilde"] == .null && o["null-word"] == .null && o["empty"] == .null)
        expect(o["true-word"] == .bool(true) && o["yes-word"] == .bool(true) && o["on-word"] == .bool(true))
        expectEqual(o["no-word"], .bool(false))
        expectEqual(o["y-letter"], .string("y"))
        expectEqual(o["hex"], .number(16))
        expectEqual(o["underscores"], .number(1000))
        expect(o["octal"] == .number(15) && o["leading-zero"] == .number(15))
        expectEqual(o["binary"], .number(5))
        expectEqual(o["base-60"], .number(90))
        expectEqual(o["exponent"], .number(1000))
        expectEqual(o["fraction"], .number(0.5))
        expect(o["infinity"] == .number(.infinity) && o["minus-infinity"] == .number(-.infinity))
        if case .number(let n)? = o["not-a-number"] { expect(n.isNaN) } else { Issue.record("\(String(describing: o["not-a-number"]))") }
        expect(o["quoted-one"] == .string("1") && o["single-quoted"] == .string("1"))
        expect(o["str-tag"] == .string("1") && o["str-tag-true"] == .string("true"))
        expectEqual(o["float-tag"], .number(1))
        expectEqual(o["non-specific"], .string("12"))
        expectEqual(o["date"], .string("2024-01-31"))
        expectEqual(o["block"], .string("12"))
    }

    @Test func typesAsTheFormatSeesThem() throws {
        let r = try parseValid(withRegions("""
                - { name: 1, frame: [0x10, 1_000, 1e1, 0o7], hidden: yes, focusable: off, opacity: .5 }
        """)).screens[0].root.regions[0]
        expectEqual(r.name, "1")   // a plain number is a string as written
        expectEqual(r.frame, Rect(x: 16, y: 1000, width: 10, height: 7))
        expect(r.hidden && !r.focusable && r.opacity == 0.5)
        expectOne(parseErrors(withRegions("""
                - { name: a, frame: [0, 0, "10", 10] }
        """)), line: 9, column: 36, "each element of 'frame' must be a number, found string '10'", kind: .wrongType)
        expectOne(parseErrors(withRegions("""
                - { name: a, frame: [0, 0, .inf, 10] }
        """)), line: 9, column: 36, "each element of 'frame' must be a number, found number .inf", kind: .wrongType)
        expectOne(parseErrors(withRegions("""
                - { name: a, frame: [0, 0, 10, 10], hidden: !!str true }
        """)), line: 9, column: 53, "'hidden' must be true or false, found string 'true'", kind: .wrongType)
    }

    // MARK: Syntax errors, in the words evroute has always used

    @Test func scannerErrors() {
        expectMessage("a: \"unterminated\n", "test.yaml:2:1: error: invalid YAML: found unexpected end of stream (while scanning a quoted scalar at line 1, column 4)")
        expectMessage("a: b: c\n", "test.yaml:1:5: error: invalid YAML: mapping values are not allowed in this context (check the indentation of this line and the one before)")
        expectMessage("displays:\n\t- name: main\n", "test.yaml:2:1: error: invalid YAML: found character that cannot start any token (while scanning for the next token at line 2, column 1)")
        expectMessage("a: !<x\n", "test.yaml:1:7: error: invalid YAML: did not find the expected '>' (while scanning a tag at line 1, column 4)")
    }

    @Test func parserErrors() {
        expectMessage("a: [1, 2\n", "test.yaml:2:1: error: invalid YAML: did not find expected ',' or ']' (while parsing a flow sequence at line 1, column 4)")
        expectMessage("a:\n  b: 1\n c: 2\n", "test.yaml:3:2: error: invalid YAML: did not find expected key (while parsing a block mapping at line 1, column 1) (check the indentation of this line and the one before)")
        expectMessage("a: \"\\q\"\n", "test.yaml:1:5: error: invalid YAML: found unknown escape character (while parsing a quoted scalar at line 1, column 4)")
        expectMessage("%YAML 2.0\n---\na: 1\n", "test.yaml:1:1: error: invalid YAML: found incompatible YAML document")
    }

    @Test func readerErrorsAndASecondDocument() {
        expectMessage("a: 1\nb: \u{1}\n", "test.yaml:2:4: error: cannot read the text: control characters are not allowed")
        expectMessage("a: 1\n---\nb: 2\n", "test.yaml:2:1: error: invalid YAML: but found another document (expected a single document in the stream at line 1, column 1)")
        for error in [parseErrors("a: [1, 2\n"), parseErrors("a: 1\nb: \u{1}\n")] {
            expectEqual(error.first?.kind, .syntax)
        }
    }

    @Test func duplicateKeysAreTheSameTextAndType() {
        expectOne(parseErrors("displays:\n  - name: a\n    size: [1, 1]\n    \"name\": b\n"), line: 4, column: 5,
                  "duplicate key 'name' in a mapping (each key may appear once); first given at line 2, column 5",
                  kind: .duplicateKey)
        // `1` (an int) and `"1"` (a string) are different keys.
        expect(parseErrors("plugins:\n  - { name: p, type: log, 1: a, \"1\": b }\n").isEmpty)
        // Several repeated keys: the one that sorts first, at its second place.
        expectOne(parseErrors("plugins:\n  - { name: p, type: log, b: 1, a: 1, b: 2, a: 2 }\n"), line: 2, column: 45,
                  "duplicate key 'a' in a mapping (each key may appear once); first given at line 2, column 33")
        // An alias as the second key is reported where the alias is.
        expectOne(parseErrors("plugins:\n  - name: p\n    type: log\n    &k key: 1\n    *k : 2\n"), line: 5, column: 5,
                  "duplicate key 'key' in a mapping (each key may appear once); first given at line 4, column 5")
    }

    // MARK: Helpers

    /// Regions r0 … r(levels): r0 a leaf, each next one holding two aliases of the one before,
    /// as the children of one screen's root. Also: the line of region `rN`.
    func regionDoubling(levels: Int) -> (yaml: String, line: (Int) -> Int) {
        var yaml = """
        displays:
          - { name: main, size: [100, 100] }
        screens:
          - name: home
            root:
              name: root
              frame: [0, 0, 100, 100]
              regions:
                - &r0 { name: r0, frame: [0, 0, 1, 1] }

        """
        for k in 1...levels {
            yaml += "        - &r\(k) { name: r\(k), frame: [0, 0, 1, 1], regions: [*r\(k - 1), *r\(k - 1)] }\n"
        }
        return (yaml, { 9 + $0 })
    }

    func expectMessage(_ yaml: String, _ description: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        let errors = parseErrors(yaml)
        #expect(errors.map(\.description) == [description], sourceLocation: sourceLocation)
    }
}
