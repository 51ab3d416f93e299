import EvrouteConfig
import EvrouteTestSupport
import EvrouteCore
import EvrouteInput
import Testing
import EvrouteChecks

/// The example configs, the built-in default and the broken fixtures, loaded from disk.
@Suite struct FileTests {
    @Test(arguments: ["kiosk.yaml", "minimal.yaml"])
    func exampleConfigLoadsWithoutErrors(_ name: String) throws {
        let path = repoRoot.appendingPathComponent("config/\(name)").path
        do {
            let (spec, layout) = try ConfigLoader.loadLayout(path: path)
            expectEqual(spec.source, path)
            expectEqual(layout.displays.count, spec.displays.count)
        } catch {
            Issue.record("\(error)")
        }
    }

    @Test func kioskHasWhatItAdvertises() throws {
        let spec = try ConfigLoader.load(path: repoRoot.appendingPathComponent("config/kiosk.yaml").path)
        expectEqual(spec.displays.first?.size, Size(width: 1280, height: 800))
        expectEqual(spec.screens.map(\.name), ["home", "admin"])
        var all: [RegionSpec] = []
        func walk(_ r: RegionSpec) { all.append(r); r.regions.forEach(walk) }
        spec.screens.forEach { walk($0.root) }
        expect(all.contains { $0.shape == .ellipse })
        expect(all.contains { if case .roundedRectangle = $0.shape { true } else { false } })
        expect(all.contains { if case .polygon = $0.shape { true } else { false } })
        expect(all.contains { $0.hidden })
        expect(all.contains { $0.focusable })
        expect(all.contains { $0.exclusive })
        expect(all.contains { !$0.multitouch })
        expect(all.contains { $0.next != nil })
        expect(all.flatMap(\.gestures).contains { $0.kind == .longPress && $0.action == "open-admin" })
        expect(!spec.applicationHandlers.isEmpty && !spec.fallbackHandlers.isEmpty)
        expectEqual(spec.deviceRules.first?.match.vendor, 0x222a)
    }

    @Test func builtInDefault() throws {
        let spec = ConfigLoader.builtInDefault
        expectEqual(spec.displays.count, 1)
        expectEqual(spec.displays[0].name, "main")
        expectEqual(spec.displays[0].size, Size(width: 1920, height: 1080))
        expectEqual(Set(spec.deviceRules.compactMap(\.match.kind)), [.touchscreen, .keyboard])
        expect(spec.deviceRules.allSatisfy { $0.display == "main" })
        expectEqual(spec.screens.map(\.name), ["default"])
        expectEqual(spec.screens[0].root.frame, Rect(x: 0, y: 0, width: 1920, height: 1080))
        expect(spec.screens[0].root.regions.isEmpty)
        expectEqual(spec.fallbackHandlers.count, 1)
        expectEqual(spec.fallbackHandlers[0].plugin, "log")
        expectEqual(spec.fallbackHandlers[0].on, [.any])
        let (_, layout) = try ConfigLoader.compile(yaml: ConfigLoader.builtInDefaultYAML, file: ConfigLoader.builtInName)
        expectEqual(layout.screens.count, 1)
    }

    @Test func loadLayoutWithoutPathUsesDefaultFileOrBuiltIn() throws {
        let (spec, _) = try ConfigLoader.loadLayout(path: nil)
        if !FileManagerShim.exists(ConfigLoader.defaultPath) {
            expectEqual(spec.source, ConfigLoader.builtInName)
            expectEqual(spec.screens.map(\.name), ["default"])
        }
    }

    @Test func badSyntaxFixture() {
        let errors = loadErrors("bad/syntax.yaml")
        expectEqual(errors.count, 1)
        expectEqual(errors.first?.kind, .syntax)
        expectEqual(errors.first?.file, fixturePath("bad/syntax.yaml"))
        expect((errors.first?.line ?? 0) >= 6)
    }

    @Test func badTypesFixtureReportsEveryError() {
        let errors = loadErrors("bad/types.yaml")
        let places = errors.map { "\($0.line):\($0.column ?? 0)" }
        expectEqual(places, ["4:11", "7:41", "8:13", "17:20", "18:18"], "\(errors)")
        expect(errors[0].message.contains("'size' must be [width, height]"))
        expect(errors[1].message.contains("'vendor' must be a number or a hex string"))
        expect(errors[2].message.contains("'rotate' must be an integer, found string '90'"))
        expect(errors[3].message.contains("'opacity' must be a number, found string 'high'"))
        expect(errors[4].message.contains("unknown shape 'triangle'"))
        expect(errors.allSatisfy { $0.description.hasPrefix(fixturePath("bad/types.yaml") + ":") })
    }

    @Test func badSemanticFixture() {
        let errors = loadErrors("bad/semantic.yaml")
        expectEqual(errors.count, 3, "\(errors)")
        expect(errors.allSatisfy { $0.kind == .semantic })
        let places = Set(errors.map { "\($0.line):\($0.column ?? 0)" })
        expectEqual(places, ["14:25", "15:17", "17:17"], "\(errors)")
    }

    func loadErrors(_ name: String) -> [Diagnostic] {
        do {
            _ = try ConfigLoader.loadLayout(path: fixturePath(name))
            Issue.record("\(name) loaded without errors")
            return []
        } catch {
            return error.errors
        }
    }
}
