import EvrouteConfig
import EvrouteCore
import EvrouteDaemon

/// The tests read configs as `evroute check` and the daemon do: with the daemon's plugin
/// types (``PluginTypes/all``), whose option checks the messages come from.
public extension ConfigLoader {
    static func load(path: String) throws(Diagnostics) -> LayoutSpec { try load(path: path, pluginTypes: PluginTypes.all) }
    static func parse(yaml: String, file: String) throws(Diagnostics) -> LayoutSpec {
        try parse(yaml: yaml, file: file, pluginTypes: PluginTypes.all)
    }
    static func compile(yaml: String, file: String) throws(Diagnostics) -> (spec: LayoutSpec, layout: Layout) {
        try compile(yaml: yaml, file: file, pluginTypes: PluginTypes.all)
    }
    static func compile(_ spec: LayoutSpec, file: String) throws(Diagnostics) -> Layout {
        try compile(spec, file: file, pluginTypes: PluginTypes.all)
    }
    static func loadLayout(path: String?) throws(Diagnostics) -> (spec: LayoutSpec, layout: Layout) {
        try loadLayout(path: path, pluginTypes: PluginTypes.all)
    }
    static func check(path: String?) -> ConfigCheck { check(path: path, pluginTypes: PluginTypes.all) }
    static var builtInDefault: LayoutSpec { builtInDefault(pluginTypes: PluginTypes.all) }
}
