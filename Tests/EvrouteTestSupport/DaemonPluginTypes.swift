import EvrouteConfig
import EvrouteCore
import EvrouteDaemon
import EvrouteInput

/// Registers libevdev's key names for the process, as the `evroute` binary does at start
/// (``KeyNames/useLibevdev()``): every reader of configs here calls it first; a test that
/// compiles a layout naming keys another way calls it itself.
public func useLibevdevKeyNames() { KeyNames.useLibevdev() }

/// The daemon's plugin types, with libevdev's key names registered.
private var daemonTypes: PluginCatalog {
    KeyNames.useLibevdev()
    return PluginTypes.all
}

/// The tests read configs as `evroute check` and the daemon do: with the daemon's plugin
/// types (``PluginTypes/all``), whose option checks the messages come from, and libevdev's key names.
public extension ConfigLoader {
    static func load(path: String) throws(Diagnostics) -> LayoutSpec { try load(path: path, pluginTypes: daemonTypes) }
    static func parse(yaml: String, file: String) throws(Diagnostics) -> LayoutSpec {
        try parse(yaml: yaml, file: file, pluginTypes: daemonTypes)
    }
    static func compile(yaml: String, file: String) throws(Diagnostics) -> (spec: LayoutSpec, layout: Layout) {
        try compile(yaml: yaml, file: file, pluginTypes: daemonTypes)
    }
    static func compile(_ spec: LayoutSpec, file: String) throws(Diagnostics) -> Layout {
        try compile(spec, file: file, pluginTypes: daemonTypes)
    }
    static func loadLayout(path: String?) throws(Diagnostics) -> (spec: LayoutSpec, layout: Layout) {
        try loadLayout(path: path, pluginTypes: daemonTypes)
    }
    static func check(path: String?) -> ConfigCheck { check(path: path, pluginTypes: daemonTypes) }
    static var builtInDefault: LayoutSpec { builtInDefault(pluginTypes: daemonTypes) }
}
