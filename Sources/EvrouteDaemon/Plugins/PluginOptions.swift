import EvrouteCore

/// A plugin the host cannot run from a layout: one of ``Layout/pluginErrors`` (an `exec`
/// handler without a command), or options that were not checked. The checks themselves are
/// the plugin types' (``PluginTypes``), run when the layout compiles (``Layout/pluginOptions``),
/// shared by `check`, start and reload.
public struct PluginConfigError: Error, CustomStringConvertible, Sendable {
    /// The plugin instance (the message names it too).
    public var plugin: String
    /// Where the plugin was declared, if known.
    public var location: SourceLocation?
    public var message: String

    public var description: String {
        (location.map { "\($0): " } ?? "") + message
    }
}
