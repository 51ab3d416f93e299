import EvrouteConfig
import EvrouteCore

/// The plugin types the daemon hosts. A type is one file (its plugin, its options and their
/// checks, its ``PluginType``) and one line here; whoever compiles a layout hands ``all`` over
/// (`evroute check`, the dry-run, start and reload), so they all refuse the same options and
/// name the same types.
public enum PluginTypes {
    static let registered: [any PluginType] = [
        LogPluginType(),
        ExecPluginType(),
        SocketPluginType(),
        ProcessPluginType(),
        ForwardPluginType(),
    ]

    /// The registered types, for ``ConfigLoader`` and ``Layout/compile(_:pluginTypes:)``.
    public static let all = PluginCatalog(registered)

    /// What each registered type declares, in registration order, for the manual
    /// (`evroute.yaml(5)`) and `evroute status`'s documentation: its plugin-level and
    /// handler-level keys and the values its instances report.
    public static var declarations: [(type: PluginKind, pluginKeys: [ConfigKey], handlerKeys: [ConfigKey], metrics: [PluginMetric])] {
        registered.map { ($0.name, $0.pluginKeys, $0.handlerKeys, $0.metrics) }
    }
}
