import Testing
#if canImport(Glibc)
import Glibc
#endif
import EvrouteConfig
import EvrouteCore
import EvrouteDaemon

/// The pieces of the lean daemon process: its options as arguments (`evroute __daemon …`),
/// the layout spec as JSON, and the config child (`evroute __compile-config`).
@Suite("Lean daemon: options, layout JSON, config child")
struct LeanDaemonTests {
    // MARK: Options

    @Test("DaemonOptions → arguments → DaemonOptions, defaults and every field set")
    func optionsRoundTrip() throws {
        let defaults = DaemonOptions()
        #expect(try DaemonOptions(arguments: defaults.arguments) == defaults)
        #expect(try DaemonOptions(arguments: []) == defaults)

        var o = DaemonOptions(configPath: "/etc/a=b/evroute yaml")
        o.replayPaths = ["one.events", "--two=.events", ""]
        o.descriptionPath = "x.desc"
        o.keepReplayDevices = true
        o.replayPaused = true
        o.replayRealtime = true
        o.exitAfterReplay = true
        o.controlSocketPath = "/tmp/c\nsock"
        o.replayChunk = 17
        o.logLevel = .debug
        o.configCompiler = "/usr/bin/evroute"
        let back = try DaemonOptions(arguments: o.arguments)
        #expect(back == o)
        #expect(back.replayPaths == ["one.events", "--two=.events", ""])

        var none = DaemonOptions()
        none.controlSocketPath = nil
        #expect(try DaemonOptions(arguments: none.arguments).controlSocketPath == nil)
    }

    @Test("unknown or malformed daemon arguments are refused")
    func optionsRefused() {
        for bad in [["--verbose"], ["--config"], ["--replay-paused=yes"], ["--replay-chunk=0"], ["--log-level=loud"], ["x"]] {
            #expect(throws: DaemonOptions.ArgumentError.self) { try DaemonOptions(arguments: bad) }
        }
    }

    // MARK: Layout spec as JSON

    static let configs = ["config/kiosk.yaml", "config/demo.yaml", "config/minimal.yaml"]

    /// Every config the repository ships, and the built-in default, as the YAML loader reads them.
    static func shippedSpecs() throws -> [(String, LayoutSpec)] {
        var out: [(String, LayoutSpec)] = []
        for name in configs {
            out.append((name, try ConfigLoader.load(path: harnessPackageRoot + "/" + name)))
        }
        out.append((ConfigLoader.builtInName, try ConfigLoader.parse(yaml: ConfigLoader.builtInDefaultYAML, file: ConfigLoader.builtInName)))
        return out
    }

    @Test("kiosk, demo, minimal and the built-in default: encode → decode → compile gives the same layout")
    func shippedConfigsRoundTrip() throws {
        for (name, spec) in try Self.shippedSpecs() {
            let text = LayoutSpecJSON.serialize(spec)
            let decoded = try LayoutSpecJSON.parse(text)
            #expect(LayoutSpecJSON.serialize(decoded) == text, "\(name): the decoded spec encodes differently")
            #expect(decoded.source == spec.source)
            let original = try Layout.compile(spec)
            let roundTripped = try Layout.compile(decoded)
            expectSameLayout(original, roundTripped, name)
        }
    }

    @Test("every field, odd numbers and nested options survive the round trip")
    func everyField() throws {
        let here = { (l: Int) in SourceLocation(file: "odd \"file\".yaml", line: l, column: l + 1) }
        let options: [String: ConfigValue] = [
            "command": .list([.string("sh"), .string("-c"), .string("echo \"hi\"\n\t\u{1}ü😀")]),
            "n": .number(0.1), "big": .number(1e300), "inf": .number(-.infinity), "negzero": .number(-0.0),
            "flag": .bool(false), "nothing": .null,
            "nested": .map(["map": .map(["number": .string("not a number")]), "list": .list([.map([:]), .list([])])]),
        ]
        let gesture = GestureSpec(name: "g", kind: .screenEdgePan, taps: 3, touches: 2, maximumTouches: 4,
                                  minimumDuration: 0.25, allowableMovement: 12.5, directions: [.left, .up],
                                  minimumDistance: 33, maximumDuration: 1.5, edges: [.bottom, .left],
                                  cancelsTouches: false, delaysTouchesBegan: true, delaysTouchesEnded: false,
                                  requireToFail: ["a", "b"], simultaneousWith: ["c"], action: "go", location: here(40))
        let handler = HandlerSpec(plugin: "p", on: [.touch, .touchBegan, .touchMoved, .touchEnded, .touchCancelled, .tap,
                                                    .key, .keyNamed("KEY_A"), .action("x:y"), .gesture("g"), .any],
                                  options: options, location: here(30))
        let leaf = RegionSpec(name: "leaf", frame: Rect(x: -0.5, y: 1e-7, width: 10, height: .infinity),
                              handlers: [handler], hidden: true, interactive: false, opacity: 0.3,
                              shape: .polygon([Point(x: 0, y: 0), Point(x: 5, y: 0.25), Point(x: 0, y: 9)]),
                              hitInsets: EdgeInsets(top: 1, left: -2, bottom: 3.5, right: -.greatestFiniteMagnitude),
                              exclusive: true, multitouch: false, focusable: true, next: "screen:other",
                              gestures: [gesture], location: here(20), nameLocation: here(21), nextLocation: here(22))
        let middle = RegionSpec(name: "middle", frame: Rect(x: 1, y: 2, width: 3, height: 4),
                                regions: [leaf, RegionSpec(name: "round", frame: Rect(x: 0, y: 0, width: 1, height: 1),
                                                           shape: .roundedRectangle(radius: 0.5))],
                                shape: .ellipse)
        let root = RegionSpec(name: "root", frame: Rect(x: 0, y: 0, width: 100, height: 100),
                              regions: [middle, RegionSpec(name: "last", frame: Rect(x: 0, y: 0, width: 1, height: 1))])
        let spec = LayoutSpec(
            displays: [DisplaySpec(name: "d", size: Size(width: 1920, height: 1080), initialScreen: "s",
                                   location: here(1), initialScreenLocation: here(2))],
            devices: [DeviceRuleSpec(name: "r", match: DeviceMatch(kind: .switchDevice, name: "Wacom*", vendor: 0x222a,
                                                                   product: 1, udev: ["ID_BUS": "usb", "X": "*"]),
                                     display: "d", rotate: 270, calibration: [1, 0, -0.125, 0, 1, 0], grab: true,
                                     location: here(3), displayLocation: here(4)),
                      DeviceRuleSpec(name: "plain", match: DeviceMatch())],
            plugins: [PluginSpec(name: "p", type: "exec", options: options, location: here(5))],
            screens: [ScreenSpec(name: "s", display: "d", handlers: [handler], root: root, presentedOver: "t",
                                 location: here(6), displayLocation: here(7), presentedOverLocation: here(8)),
                      ScreenSpec(name: "t", root: RegionSpec(name: "root", frame: Rect(x: 0, y: 0, width: 1, height: 1)))],
            applicationHandlers: [handler], fallbackHandlers: [HandlerSpec(plugin: "log", on: [])], source: nil)

        let text = LayoutSpecJSON.serialize(spec)
        let back = try LayoutSpecJSON.parse(text)
        #expect(LayoutSpecJSON.serialize(back) == text)
        #expect(back.source == nil)
        #expect(back.plugins[0].options == options)
        #expect(back.plugins[0].options["negzero"]?.number?.sign == .minus)
        #expect(back.applicationHandlers[0].on == handler.on)
        #expect(back.devices[0].match == spec.devices[0].match)
        #expect(back.devices[0].calibration == [1, 0, -0.125, 0, 1, 0])
        #expect(back.devices[1].calibration == nil)
        #expect(back.devices[0].location == here(3))
        let s = back.screens[0]
        #expect(s.presentedOver == "t" && s.presentedOverLocation == here(8))
        #expect(s.root.regions.map(\.name) == ["middle", "last"])
        #expect(s.root.regions[0].regions.map(\.name) == ["leaf", "round"])
        let l = s.root.regions[0].regions[0]
        #expect(l.frame.height == .infinity && l.frame.minX == -0.5)
        #expect(l.shape == leaf.shape && l.hitInsets == leaf.hitInsets)
        #expect(l.hidden && !l.interactive && l.exclusive && !l.multitouch && l.focusable && l.opacity == 0.3)
        #expect(l.next == "screen:other" && l.nextLocation == here(22) && l.nameLocation == here(21))
        #expect(String(describing: l.gestures) == String(describing: [gesture]))
        #expect(s.root.regions[0].regions[1].shape == .roundedRectangle(radius: 0.5))
        #expect(s.root.regions[0].shape == .ellipse)
    }

    @Test("a document that is not a spec is a decoding error naming where")
    func decodingErrors() {
        #expect(throws: LayoutSpecJSON.DecodingError.self) { try LayoutSpecJSON.parse("[]") }
        #expect(throws: LayoutSpecJSON.DecodingError.self) { try LayoutSpecJSON.parse("{\"source\":null") }
        do {
            _ = try LayoutSpecJSON.parse(#"{"displays":[{"name":3}],"devices":[],"plugins":[],"screens":[],"application":[],"fallback":[]}"#)
            Issue.record("decoded a display without a size")
        } catch {
            #expect(error.description.contains("$.displays[0].size"), "\(error)")
        }
    }

    // MARK: The config child

    static func evroute() throws -> String {
        guard let binary = harnessBinary() else { throw DaemonHarnessError("the evroute binary is not next to the test bundle") }
        return binary
    }

    @Test("__compile-config gives the spec the YAML loader gives, for every shipped config and the default")
    func childMatchesLoader() throws {
        let binary = try Self.evroute()
        for name in Self.configs {
            let path = harnessPackageRoot + "/" + name
            let spec = try ConfigChild.load(executable: binary, configPath: path).get()
            #expect(LayoutSpecJSON.serialize(spec) == LayoutSpecJSON.serialize(try ConfigLoader.load(path: path)), "\(name)")
        }
        // No --config: /etc/evroute/evroute.yaml when it exists, else the built-in default.
        let expected = try ConfigLoader.loadLayout(path: nil).spec
        let spec = try ConfigChild.load(executable: binary, configPath: nil).get()
        #expect(LayoutSpecJSON.serialize(spec) == LayoutSpecJSON.serialize(expected))
    }

    @Test("__compile-config with errors: every error as file:line:col, as the loader words it")
    func childErrors() throws {
        let binary = try Self.evroute()
        let scratch = DaemonScratch()
        defer { scratch.cleanUp() }
        let path = scratch.write("bad.yaml", DaemonProcessTests.brokenConfig + "plugins: [{ name: x, type: nope }]\n")
        var expected: [String] = []
        do { _ = try ConfigLoader.loadLayout(path: path) } catch { expected = error.errors.map(\.description) }
        #expect(!expected.isEmpty)
        switch ConfigChild.load(executable: binary, configPath: path) {
        case .success: Issue.record("a broken config compiled")
        case .failure(let errors): #expect(errors.lines == expected)
        }
        switch ConfigChild.load(executable: binary, configPath: scratch.file("missing.yaml")) {
        case .success: Issue.record("a missing config compiled")
        case .failure(let errors): #expect(errors.lines == [scratch.file("missing.yaml") + ": error: config file not found"])
        }
    }

    @Test("a compiler that cannot run, fails oddly or hangs is an error, not a hang")
    func childFailures() throws {
        let scratch = DaemonScratch()
        defer { scratch.cleanUp() }
        switch ConfigChild.load(executable: scratch.file("no-such-binary"), configPath: "x.yaml") {
        case .success: Issue.record("ran a missing binary")
        case .failure(let errors): #expect(errors.lines.count == 1 && errors.lines[0].hasPrefix("x.yaml: error: cannot compile the config"), "\(errors)")
        }
        let crashing = scratch.write("crash.sh", "#!/bin/sh\necho oops >&2\nexit 3\n")
        chmod(crashing, 0o755)
        switch ConfigChild.load(executable: crashing, configPath: "x.yaml") {
        case .success: Issue.record("a failing compiler succeeded")
        case .failure(let errors): #expect(errors.lines == ["x.yaml: error: the config compiler (\(crashing) __compile-config) exited with status 3", "oops"])
        }
        let garbage = scratch.write("garbage.sh", "#!/bin/sh\necho '{\"displays\": 1}'\n")
        chmod(garbage, 0o755)
        switch ConfigChild.load(executable: garbage, configPath: "x.yaml") {
        case .success: Issue.record("decoded garbage")
        case .failure(let errors): #expect(errors.lines.first?.hasPrefix("x.yaml: error: cannot read the compiler's answer") == true, "\(errors)")
        }
        let hanging = scratch.write("hang.sh", "#!/bin/sh\nexec sleep 30\n")
        chmod(hanging, 0o755)
        let started = harnessNow()
        switch ConfigChild.load(executable: hanging, configPath: "x.yaml", timeout: .milliseconds(300)) {
        case .success: Issue.record("a hanging compiler succeeded")
        case .failure(let errors): #expect(errors.lines.first?.contains("was killed") == true, "\(errors)")
        }
        #expect(harnessNow() - started < 5)
    }

    // MARK: The running daemon

    @Test("evroute re-executes itself as `evroute __daemon …`: same pid, options kept, a child per (re)load, none left over")
    func reexecutedDaemon() throws {
        let rig = try DaemonProcessTests.Rig()
        defer { rig.scratch.cleanUp() }
        _ = rig.scratch.write("evroute.yaml", DaemonProcessTests.config(socket: rig.uiSocket, marker: rig.marker))
        let daemon = try rig.start(["--verbose"])
        defer { daemon.kill9() }
        try #require(rig.notify.wait(for: "READY=1") != nil, "log:\n\(daemon.log)")
        let cmdline = (harnessRead("/proc/\(daemon.pid)/cmdline") ?? "").split(separator: "\0").map(String.init)
        #expect(cmdline.count > 1 && cmdline[1] == DaemonOptions.daemonArgument, "\(cmdline)")
        let options = try DaemonOptions(arguments: Array(cmdline.dropFirst(2)))
        #expect(options.configPath == rig.configPath && options.controlSocketPath == rig.control && options.logLevel == .debug)
        #expect(harnessControl("status", rig.control)?["pid"]?.intValue == Int(daemon.pid))
        #expect(harnessControl("reload", rig.control)?["ok"]?.boolValue == true)
        // The config children were waited for: the daemon has no child left (no zombie).
        let children = harnessRead("/proc/\(daemon.pid)/task/\(daemon.pid)/children") ?? ""
        #expect(children.allSatisfy { $0 == " " || $0 == "\n" }, "children: \(children)")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit(seconds: 20) == 0)
    }
}

/// The parts of two compiled layouts that routing depends on.
func expectSameLayout(_ a: Layout, _ b: Layout, _ name: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
    #expect(a.regions.map(\.path) == b.regions.map(\.path), "\(name): region paths", sourceLocation: sourceLocation)
    #expect(a.regions.map(\.absoluteFrame) == b.regions.map(\.absoluteFrame), "\(name): frames", sourceLocation: sourceLocation)
    #expect(a.regions.map(\.hitRect) == b.regions.map(\.hitRect), "\(name): hit rects", sourceLocation: sourceLocation)
    #expect(a.regions.map(\.shape) == b.regions.map(\.shape), "\(name): shapes", sourceLocation: sourceLocation)
    #expect(a.regions.map(\.handlers) == b.regions.map(\.handlers), "\(name): region handlers", sourceLocation: sourceLocation)
    #expect(a.regions.map { "\($0.next.map { String(describing: $0) } ?? "-") \($0.isHittable) \($0.opacity) \($0.focusable)" }
            == b.regions.map { "\($0.next.map { String(describing: $0) } ?? "-") \($0.isHittable) \($0.opacity) \($0.focusable)" },
            "\(name): region flags", sourceLocation: sourceLocation)
    #expect(String(describing: a.regions.map(\.gestures)) == String(describing: b.regions.map(\.gestures)),
            "\(name): gestures", sourceLocation: sourceLocation)
    #expect(a.handlers.count == b.handlers.count, "\(name): handler count", sourceLocation: sourceLocation)
    for (x, y) in zip(a.handlers, b.handlers) {
        #expect(x.plugin == y.plugin && x.pluginType == y.pluginType && x.filters == y.filters && x.options == y.options
                && x.owner == y.owner && x.location == y.location, "\(name): handler \(x.index)", sourceLocation: sourceLocation)
    }
    #expect(a.plugins.map { "\($0.name) \($0.type) \($0.location.map(String.init(describing:)) ?? "-")" }
            == b.plugins.map { "\($0.name) \($0.type) \($0.location.map(String.init(describing:)) ?? "-")" },
            "\(name): plugins", sourceLocation: sourceLocation)
    #expect(a.plugins.map(\.options) == b.plugins.map(\.options), "\(name): plugin options", sourceLocation: sourceLocation)
    #expect(a.deviceRules.map(\.match) == b.deviceRules.map(\.match), "\(name): device matches", sourceLocation: sourceLocation)
    #expect(a.deviceRules.map { "\($0.name) \($0.display ?? "-") \($0.rotate) \($0.calibration ?? []) \($0.grab) \($0.location.map(String.init(describing:)) ?? "-")" }
            == b.deviceRules.map { "\($0.name) \($0.display ?? "-") \($0.rotate) \($0.calibration ?? []) \($0.grab) \($0.location.map(String.init(describing:)) ?? "-")" },
            "\(name): device rules", sourceLocation: sourceLocation)
    #expect(a.deviceRuleDisplays == b.deviceRuleDisplays, "\(name): device rule displays", sourceLocation: sourceLocation)
    #expect(a.displays.map { "\($0.name) \($0.size) \($0.screens) \(String(describing: $0.initialScreen)) \($0.handlers)" }
            == b.displays.map { "\($0.name) \($0.size) \($0.screens) \(String(describing: $0.initialScreen)) \($0.handlers)" },
            "\(name): displays", sourceLocation: sourceLocation)
    #expect(a.screens.map { "\($0.name) \($0.display) \($0.root) \($0.handlers) \(String(describing: $0.presentedOver)) \($0.regions)" }
            == b.screens.map { "\($0.name) \($0.display) \($0.root) \($0.handlers) \(String(describing: $0.presentedOver)) \($0.regions)" },
            "\(name): screens", sourceLocation: sourceLocation)
    #expect(a.applicationHandlers == b.applicationHandlers && a.fallbackHandlers == b.fallbackHandlers,
            "\(name): application and fallback handlers", sourceLocation: sourceLocation)
}
