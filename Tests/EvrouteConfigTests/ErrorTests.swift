import EvrouteConfig
import EvrouteTestSupport
import EvrouteCore
import Testing
import EvrouteChecks

/// One test per class of error, each asserting the exact line and column.
@Suite struct ErrorTests {
    @Test func errorDescriptionIsCompilerStyle() {
        let e = Diagnostic(file: "/etc/evroute/evroute.yaml", line: 12, column: 7, message: "boom", kind: .invalidValue)
        expectEqual(e.description, "/etc/evroute/evroute.yaml:12:7: error: boom")
        expectEqual(e.location, EvrouteCore.SourceLocation(file: "/etc/evroute/evroute.yaml", line: 12, column: 7))
        let noPlace = Diagnostic(file: "x.yaml", line: 0, column: 0, message: "config file not found", kind: .io)
        expectEqual(noPlace.description, "x.yaml: error: config file not found")
        expect(noPlace.location == nil)
    }

    @Test func yamlSyntaxError() {
        let errors = parseErrors("""
        displays:
          - name: main
            size: [1280, 800
        screens: []
        """)
        expectEqual(errors.count, 1)
        expectEqual(errors.first?.kind, .syntax)
        expectEqual(errors.first?.line, 4)
        expectEqual(errors.first?.message.contains("invalid YAML"), true)
        expectEqual(errors.first?.description.hasPrefix("test.yaml:4:"), true)
    }

    @Test func tabIndentationIsASyntaxErrorWithPlace() {
        let errors = parseErrors("displays:\n\t- name: main\n")
        expectEqual(errors.count, 1)
        expectEqual(errors.first?.kind, .syntax)
        expectEqual(errors.first?.line, 2)
        expectEqual(errors.first?.column, 1)
    }

    @Test func unknownKeyInRegion() {
        let errors = parseErrors(withRegions("""
                - name: header
                  frmae: [0, 0, 1280, 100]
        """))
        // `frmae` is reported, and so is the missing `frame`.
        expectEqual(errors.count, 2)
        let unknown = errors.first { $0.kind == .unknownKey }
        expectEqual(unknown?.line, 10)
        expectEqual(unknown?.column, 11)
        expectEqual(unknown?.message.contains("unknown key 'frmae' in region 'header' (expected one of: name, frame, regions,"), true)
        expectEqual(unknown?.message.contains("did you mean 'frame'?"), true)
        let missing = errors.first { $0.kind == .missingKey }
        expectEqual(missing?.line, 9)
        expectEqual(missing?.message.contains("missing required key 'frame'"), true)
    }

    @Test func unknownTopLevelKey() {
        expectOne(parseErrors("displays: []\nscreen: []\n"), line: 2, column: 1,
                  "unknown key 'screen' in the top level of the config", kind: .unknownKey)
    }

    @Test func duplicateKeyPointsAtTheSecondOne() {
        let errors = parseErrors(withRegions("""
                - name: a
                  frame: [0, 0, 10, 10]
                  hidden: true
                  frame: [0, 0, 20, 20]
        """))
        expectOne(errors, line: 12, column: 11, "duplicate key 'frame'", kind: .duplicateKey)
        expectEqual(errors.first?.message.contains("first given at line 10, column 11"), true)
    }

    @Test func frameWithThreeNumbers() {
        expectOne(parseErrors(withRegions("""
                - name: a
                  frame: [0, 0, 10]
        """)), line: 10, column: 18,
                  "'frame' must be [x, y, width, height] with width and height ≥ 0, found [0, 0, 10]")
    }

    @Test func frameWithNegativeWidth() {
        expectOne(parseErrors(withRegions("""
                - name: a
                  frame: [0, 0, -5, 10]
        """)), line: 10, column: 18, "found [0, 0, -5, 10]", kind: .invalidValue)
    }

    @Test func stringWhereNumberExpected() {
        expectOne(parseErrors(withRegions("""
                - name: a
                  frame: [0, zero, 10, 10]
        """)), line: 10, column: 22, "each element of 'frame' must be a number, found string 'zero'", kind: .wrongType)
    }

    @Test func mapWhereListExpected() {
        expectOne(parseErrors(withRegions("""
                - name: a
                  frame: [0, 0, 10, 10]
                  regions: { name: b }
        """)), line: 11, column: 20, "'regions' must be a list, found a mapping", kind: .wrongType)
    }

    @Test func stringWhereBoolExpected() {
        expectOne(parseErrors(withRegions("""
                - name: a
                  frame: [0, 0, 10, 10]
                  hidden: "true"
        """)), line: 11, column: 19, "'hidden' must be true or false, found string 'true'", kind: .wrongType)
    }

    @Test func missingRegionName() {
        expectOne(parseErrors(withRegions("""
                - frame: [0, 0, 10, 10]
        """)), line: 9, column: 11, "region is missing required key 'name'", kind: .missingKey)
    }

    @Test func opacityOutOfRange() {
        expectOne(parseErrors(withRegions("""
                - { name: a, frame: [0, 0, 10, 10], opacity: 1.5 }
        """)), line: 9, column: 54, "'opacity' must be between 0 and 1, found 1.5", kind: .invalidValue)
    }

    @Test func unknownEventKindListsSpellings() {
        expectOne(parseErrors(withRegions("""
                - name: a
                  frame: [0, 0, 10, 10]
                  handlers:
                    - { plugin: log, on: [tap, touch-end] }
        """)), line: 12, column: 40, "unknown event kind 'touch-end' in 'on' (expected one of: \(EventFilter.spellings))")
    }

    @Test func handlerWithoutOn() {
        expectOne(parseErrors(withRegions("""
                - name: a
                  frame: [0, 0, 10, 10]
                  handlers:
                    - plugin: log
        """)), line: 12, column: 15, "handler is missing required key 'on'", kind: .missingKey)
    }

    @Test func displaySizeMustBePositive() {
        expectOne(parseErrors("""
        displays:
          - name: main
            size: [1280, 0]
        """), line: 3, column: 11, "'size' must be [width, height] with width and height > 0, found [1280, 0]")
    }

    @Test func rotateOnlyRightAngles() {
        expectOne(parseErrors("""
        devices:
          - name: touch
            match: { kind: touchscreen }
            rotate: 45
        """), line: 4, column: 13, "'rotate' must be 0, 90, 180 or 270", kind: .invalidValue)
    }

    @Test func calibrationNeedsSixNumbers() {
        expectOne(parseErrors("""
        devices:
          - name: touch
            match: { kind: touchscreen }
            calibration: [1, 0, 0, 0, 1]
        """), line: 4, column: 18, "'calibration' must be 6 numbers", kind: .invalidValue)
    }

    @Test func unknownDeviceKind() {
        expectOne(parseErrors("""
        devices:
          - name: touch
            match: { kind: touchscren }
        """), line: 3, column: 20, "unknown device kind 'touchscren' (expected one of: touchscreen, keyboard,",
                  kind: .invalidValue)
    }

    @Test func badVendorId() {
        expectOne(parseErrors("""
        devices:
          - name: touch
            match: { vendor: "0xlogi" }
        """), line: 3, column: 22, "'vendor' must be a number or a hex string like \"0x046d\", found string '0xlogi'")
        expectOne(parseErrors("""
        devices:
          - name: touch
            match: { product: 0x12345 }
        """), line: 3, column: 23, "'product' must be between 0 and 0xffff, found 0x12345")
        expectOne(parseErrors("""
        devices:
          - name: touch
            match: { vendor: 0046 }
        """), line: 3, column: 22, "ambiguous")
    }

    @Test func unknownPluginType() {
        expectOne(parseErrors("""
        plugins:
          - { name: shell, type: exe }
        """), line: 2, column: 26, "unknown plugin type 'exe' (expected one of: log, exec, socket,")
    }

    @Test func badShapes() {
        expectOne(parseErrors(withRegions("""
                - { name: a, frame: [0, 0, 10, 10], shape: circle }
        """)), line: 9, column: 52, "unknown shape 'circle' (expected rectangle, ellipse,")
        expectOne(parseErrors(withRegions("""
                - name: a
                  frame: [0, 0, 10, 10]
                  shape: { polygon: [[0, 0], [10, 0]] }
        """)), line: 11, column: 29, "'polygon' needs at least 3 points")
        expectOne(parseErrors(withRegions("""
                - name: a
                  frame: [0, 0, 10, 10]
                  shape: { rounded-rectangle: -2 }
        """)), line: 11, column: 39, "radius must be between 0 and 1000000")
        expectOne(parseErrors(withRegions("""
                - name: a
                  frame: [0, 0, 10, 10]
                  shape: { polygon: [[0, 0], [10, 0], [5]] }
        """)), line: 11, column: 47, "each polygon point must be [x, y], found [5]")
    }

    @Test func badHitInsets() {
        expectOne(parseErrors(withRegions("""
                - name: a
                  frame: [0, 0, 10, 10]
                  hit-insets: [1, 2]
        """)), line: 11, column: 23, "'hit-insets' must be one number or [top, left, bottom, right], found [1, 2]")
    }

    @Test func collectsSeveralErrorsInFileOrder() {
        let errors = parseErrors(withRegions("""
                - name: a
                  frame: [0, 0, 10]
                - name: b
                  frame: [0, 0, 10, 10]
                  opacity: 2
                  bogus: 1
        """))
        expectEqual(errors.map(\.line), [10, 13, 14])
        expectEqual(errors.map(\.kind), [.invalidValue, .invalidValue, .unknownKey])
    }

    /// What a newcomer writes wrong gets told where it belongs or what it takes: `rotate` on a
    /// display (it is the touchscreen's, on its device rule), `idle: 120` (the keys idle takes),
    /// `on: [touches]` (did you mean `touch`).
    @Test func misplacedAndMisshapenKeysSayWhatTheyShouldBe() {
        let errors = parseErrors("""
        displays:
          - name: main
            size: [800, 480]
            rotate: 90
            idle: 120
        screens:
          - name: home
            display: main
            root:
              name: root
              frame: [0, 0, 800, 480]
              handlers: [{ plugin: log, on: [touches] }]
        """)
        expectEqual(errors.count, 3, "\(errors)")
        expectEqual(errors.first { $0.line == 4 }?.message.hasSuffix("it belongs on the device rule of the display's touchscreen (devices: [{ …, display: NAME, rotate: 90 }])"), true, "\(errors)")
        expectEqual(errors.first { $0.line == 5 }?.message, "'idle' must be a mapping with the keys after-s, swallow-wake-touch, found number 120", "\(errors)")
        expectEqual(errors.first { $0.line == 12 }?.message.hasSuffix("; did you mean 'touch'?"), true, "\(errors)")
    }

    @Test func topLevelMustBeAMapping() {
        expectOne(parseErrors("- a\n- b\n"), line: 1, column: 1,
                  "the top level of the config must be a mapping, found a list", kind: .wrongType)
    }

    @Test func missingExplicitFileIsAnError() {
        #expect(throws: Diagnostics.self) { try ConfigLoader.loadLayout(path: "/nonexistent/evroute.yaml") }
        do {
            _ = try ConfigLoader.load(path: "/nonexistent/evroute.yaml")
            Issue.record("expected an error")
        } catch {
            expectEqual(error.errors.first?.description, "/nonexistent/evroute.yaml: error: config file not found")
        }
    }
}
