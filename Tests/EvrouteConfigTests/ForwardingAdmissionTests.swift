import EvrouteConfig
import EvrouteCore
import Testing
import EvrouteChecks

/// A forwarding type of its own (no options, no other check): what a catalog's handler check
/// admits on a forwarding handler is the catalog's, whatever the type.
private struct ForwardingStubType: HostedPluginType {
    let name: PluginKind = "fw-type"
    var forwards: Bool { true }
}

/// A forwarding handler takes whole touches and keys (`touch`, `key`, `key:NAME`): a single
/// phase would forward part of a touch, and other events have nothing to forward. The check
/// runs through the catalog's table, inside the core's compile.
@Suite("Forwarding handlers take whole touches and keys (the catalog's check)")
struct ForwardingAdmissionTests {
    let types = PluginCatalog([ForwardingStubType()])

    func spec(_ on: [EventFilter]) -> LayoutSpec {
        let root = RegionSpec(name: "root", frame: Rect(x: 0, y: 0, width: 1000, height: 1000),
                              handlers: [HandlerSpec(plugin: "fw", on: on)])
        return LayoutSpec(displays: [DisplaySpec(name: "main", size: Size(width: 1000, height: 1000))],
                          plugins: [PluginSpec(name: "fw", type: "fw-type")],
                          screens: [ScreenSpec(name: "home", root: root)])
    }

    @Test func aForwardingHandlerTakesWholeTouchesAndKeysOnly() throws {
        for (filter, spelling) in [(EventFilter.touchBegan, "touch-began"), (.touchEnded, "touch-ended"), (.tap, "tap"),
                                   (.action("x"), "action:x"), (.any, "any")] {
            #expect {
                _ = try Layout.compile(spec([filter]), pluginTypes: types)
            } throws: { error in
                "\(error)".contains("'\(spelling)'") && "\(error)".contains("forwards")
            }
        }
        // `touch`, `key` and `key:NAME` compile, and the handler forwards.
        let layout = try Layout.compile(spec([.touch, .key, .keyNamed("KEY_A")]), pluginTypes: types)
        expectEqual(layout.handlers.map(\.forwards), [true])
    }
}
