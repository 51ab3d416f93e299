import EvrouteConfig
import EvrouteCore
import EvrouteInput
import Testing
import EvrouteChecks

@Suite struct ValidConfigTests {
    @Test func specSketchParsesToTheExpectedValues() throws {
        let spec = try parseValid("""
        displays:
          - name: main
            size: [1280, 800]
            screen: home
        devices:
          - name: touch
            match: { kind: touchscreen, name: "ILITEK*", udev: { ID_BUS: usb } }
            display: main
            rotate: 90
            calibration: [1, 0, 0, 0, 1, 0.5]
            grab: true
          - name: keys
            match: { kind: keyboard }
            display: main
        plugins:
          - { name: shell, type: exec }
          - { name: ui, type: socket, path: /run/evroute/ui.sock, retry: 3, verbose: false }
        screens:
          - name: home
            display: main
            handlers: []
            root:
              name: root
              frame: [0, 0, 1280, 800]
              regions:
                - name: header
                  frame: [0, 0, 1280, 100]
                  regions:
                    - name: back
                      frame: [0, 0, 160, 100]
                      handlers:
                        - { plugin: shell, on: [touch-ended], command: [systemctl, restart, kiosk-browser] }
                - name: content
                  frame: [0, 100, 1280, 700]
                  focusable: true
                  handlers:
                    - { plugin: ui, on: [touch, key] }
        application:
          handlers: []
        fallback:
          handlers: [{ plugin: log, on: [any] }]
        """)
        expectEqual(spec.source, "test.yaml")
        expectEqual(spec.displays.count, 1)
        let d = try #require(spec.displays.first)
        expectEqual(d.name, "main")
        expectEqual(d.size, Size(width: 1280, height: 800))
        expectEqual(d.initialScreen, "home")
        expectEqual(d.location, EvrouteCore.SourceLocation(file: "test.yaml", line: 2, column: 11))
        expectEqual(d.initialScreenLocation, EvrouteCore.SourceLocation(file: "test.yaml", line: 4, column: 13))

        expectEqual(spec.deviceRules.map(\.name), ["touch", "keys"])
        let touch = spec.deviceRules[0]
        expectEqual(touch.match, DeviceMatch(kind: .touchscreen, name: "ILITEK*", udev: ["ID_BUS": "usb"]))
        expectEqual(touch.display, "main")
        expectEqual(touch.rotate, 90)
        expectEqual(touch.calibration, [1, 0, 0, 0, 1, 0.5])
        expect(touch.grab)
        expectEqual(touch.displayLocation?.line, 8)
        expectEqual(spec.deviceRules[1].rotate, 0)
        expectEqual(spec.deviceRules[1].grab, false)
        expect(spec.deviceRules[1].calibration == nil)

        expectEqual(spec.plugins.map(\.name), ["shell", "ui"])
        expectEqual(spec.plugins[0].type, .exec)
        expect(spec.plugins[0].options.isEmpty)
        expectEqual(spec.plugins[1].options, ["path": .string("/run/evroute/ui.sock"), "retry": .number(3), "verbose": .bool(false)])

        let screen = try #require(spec.screens.first)
        expectEqual(screen.name, "home")
        expectEqual(screen.display, "main")
        expect(screen.handlers.isEmpty)
        expectEqual(screen.root.name, "root")
        expectEqual(screen.root.frame, Rect(x: 0, y: 0, width: 1280, height: 800))
        expectEqual(screen.root.regions.map(\.name), ["header", "content"])
        let back = screen.root.regions[0].regions[0]
        expectEqual(back.name, "back")
        expectEqual(back.frame, Rect(x: 0, y: 0, width: 160, height: 100))
        expectEqual(back.handlers.count, 1)
        expectEqual(back.handlers[0].plugin, "shell")
        expectEqual(back.handlers[0].on, [.touchEnded])
        expectEqual(back.handlers[0].options["command"]?.stringList, ["systemctl", "restart", "kiosk-browser"])
        expectEqual(back.handlers[0].location?.line, 32)
        expectEqual(back.nameLocation, EvrouteCore.SourceLocation(file: "test.yaml", line: 29, column: 21))
        let content = screen.root.regions[1]
        expect(content.focusable)
        expectEqual(content.handlers[0].on, [.touch, .key])
        // Defaults.
        expect(content.hidden == false && content.interactive && content.opacity == 1)
        expect(content.shape == .rectangle && content.hitInsets == .zero)
        expect(content.exclusive == false && content.multitouch && content.next == nil && content.gestures.isEmpty)

        expect(spec.applicationHandlers.isEmpty)
        expectEqual(spec.fallbackHandlers.count, 1)
        expectEqual(spec.fallbackHandlers[0].plugin, "log")
        expectEqual(spec.fallbackHandlers[0].on, [.any])
    }

    @Test func regionFlags() throws {
        let spec = try parseValid(withRegions("""
                - name: a
                  frame: [10.5, 20, 30, 40]
                  hidden: true
                  interactive: false
                  opacity: 0.25
                  exclusive: true
                  multitouch: false
                  focusable: true
                  next: screen:home
                  hit-insets: -8
                - name: b
                  frame: [0, 0, 1, 1]
                  hit-insets: [1, 2, 3, 4]
                  next: application
        """))
        let a = spec.screens[0].root.regions[0]
        expectEqual(a.frame, Rect(x: 10.5, y: 20, width: 30, height: 40))
        expect(a.hidden && !a.interactive && a.opacity == 0.25 && a.exclusive && !a.multitouch && a.focusable)
        expectEqual(a.next, "screen:home")
        expectEqual(a.nextLocation, EvrouteCore.SourceLocation(file: "test.yaml", line: 17, column: 17))
        expectEqual(a.hitInsets, EdgeInsets(all: -8))
        let b = spec.screens[0].root.regions[1]
        expectEqual(b.hitInsets, EdgeInsets(top: 1, left: 2, bottom: 3, right: 4))
        expectEqual(b.next, "application")
    }

    @Test func onAcceptsOneStringAndParameterisedKinds() throws {
        let spec = try parseValid("""
        application:
          handlers:
            - { plugin: log, on: tap }
            - { plugin: log, on: ["key:KEY_ENTER", "action:open-admin", "gesture:hold", touch-began, touch-moved, touch-cancelled, any] }
        """)
        expectEqual(spec.applicationHandlers[0].on, [.tap])
        expectEqual(spec.applicationHandlers[1].on, [.keyNamed("KEY_ENTER"), .action("open-admin"), .gesture("hold"),
                                                    .touchBegan, .touchMoved, .touchCancelled, .any])
    }

    @Test func handlerOptionsKeepTheirTypes() throws {
        let spec = try parseValid("""
        fallback:
          handlers:
            - plugin: log
              on: [any]
              level: debug
              limit: 2.5
              quiet: true
              nothing: null
              quoted: "42"
              env: { LANG: C, N: 1 }
        """)
        let o = spec.fallbackHandlers[0].options
        expectEqual(o["level"], .string("debug"))
        expectEqual(o["limit"], .number(2.5))
        expectEqual(o["quiet"], .bool(true))
        expectEqual(o["nothing"], .null)
        expectEqual(o["quoted"], .string("42"))
        expectEqual(o["env"], .map(["LANG": .string("C"), "N": .number(1)]))
        expect(o["plugin"] == nil && o["on"] == nil)
    }

    @Test func hexAndDecimalVendorIds() throws {
        let spec = try parseValid("""
        devices:
          - { name: a, match: { vendor: "0x046d", product: "C52B" } }
          - { name: b, match: { vendor: 0x046D, product: 50475 } }
          - { name: c, match: { vendor: "046d" } }
          - { name: d, match: {} }
        """)
        expectEqual(spec.deviceRules[0].match.vendor, 0x046d)
        expectEqual(spec.deviceRules[0].match.product, 0xc52b)
        expectEqual(spec.deviceRules[1].match.vendor, 0x046d)
        expectEqual(spec.deviceRules[1].match.product, 50475)
        expectEqual(spec.deviceRules[2].match.vendor, 0x046d)
        expectEqual(spec.deviceRules[3].match, DeviceMatch())
    }

    @Test func everyDeviceKindIsAccepted() throws {
        for kind in DeviceKind.allCases {
            let spec = try parseValid("devices:\n  - { name: x, match: { kind: \(kind.rawValue) } }\n")
            expectEqual(spec.deviceRules[0].match.kind, kind)
        }
    }

    @Test func emptyFileIsAnEmptySpec() throws {
        let spec = try parseValid("# nothing yet\n")
        expect(spec.displays.isEmpty && spec.screens.isEmpty && spec.fallbackHandlers.isEmpty)
    }

    @Test func anchorsAndAliasesWork() throws {
        let spec = try parseValid(withRegions("""
                - name: a
                  frame: &square [0, 0, 50, 50]
                - name: b
                  frame: *square
        """))
        expectEqual(spec.screens[0].root.regions[1].frame, Rect(x: 0, y: 0, width: 50, height: 50))
    }
}

@Suite struct ValueTypeTests {
    @Test func unquotedColonKindsAndNumberSpellings() throws {
        let spec = try parseValid("""
        application:
          handlers:
            - { plugin: log, on: [key:KEY_ESC, tap] }
        """)
        expectEqual(spec.applicationHandlers[0].on, [.keyNamed("KEY_ESC"), .tap])
        let r = try parseValid(withRegions("        - { name: a, frame: [0x10, 0, 12.0, 1e2] }")).screens[0].root.regions[0]
        expectEqual(r.frame, Rect(x: 16, y: 0, width: 12, height: 100))
    }

    @Test func nullWhereAStringIsExpected() {
        expectOne(parseErrors("displays:\n  - name: ~\n    size: [1, 1]\n"), line: 2, column: 11,
                  "'name' must be a string, found null", kind: .wrongType)
    }

    @Test func duplicateKeyInFlowMappingPointsAtTheSecond() {
        expectOne(parseErrors("displays: [ {name: a, name: b, size: [1, 1]} ]\n"), line: 1, column: 23,
                  "duplicate key 'name'", kind: .duplicateKey)
    }
}
