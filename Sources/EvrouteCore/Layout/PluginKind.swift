/// The type of a plugin instance (`type:` in the config): the one list of plugin types,
/// in the order errors and documentation give them.
///
/// Two families: the **hosted** types (`log`, `exec`, `socket`, `process`) are run by the
/// daemon's plugin host, never in a dry-run; the **routing built-ins** (`action`, `focus`,
/// `present`, `dismiss`) act on routing itself, inside the router, so they run in a dry-run
/// too. `log` and every routing built-in also have a built-in instance, named like the type,
/// that handlers can use without declaring it.
public enum PluginKind: String, CaseIterable, Sendable, CustomStringConvertible {
    /// Hosted: one info line per event in the daemon's log; always handles. Built-in instance `log`.
    case log
    /// Hosted: runs a command per event, the event in `EVROUTE_*` variables.
    case exec
    /// Hosted: the event's JSON line to each client of a Unix socket; clients may answer.
    case socket
    /// Hosted: a long-running helper reads event JSON lines on stdin and answers on stdout.
    case process
    /// Routing built-in: sends the handler's `action: NAME` up the responder chain. Built-in instance `action`.
    case action
    /// Routing built-in: makes a region the first responder (or resigns it). Built-in instance `focus`.
    case focus
    /// Routing built-in: presents the handler's `screen: NAME`. Built-in instance `present`.
    case present
    /// Routing built-in: dismisses the top presented screen of the display. Built-in instance `dismiss`.
    case dismiss

    /// Acts on routing itself, in the router (also in a dry-run): `action`, `focus`, `present`, `dismiss`.
    public var isRoutingBuiltIn: Bool {
        switch self {
        case .action, .focus, .present, .dismiss: true
        case .log, .exec, .socket, .process: false
        }
    }

    /// Run by the daemon's plugin host (never in a dry-run): `log`, `exec`, `socket`, `process`.
    public var isHosted: Bool { !isRoutingBuiltIn }

    /// Whether an instance named like the type exists without being declared: `log` and the
    /// routing built-ins.
    public var hasBuiltInInstance: Bool { self == .log || isRoutingBuiltIn }

    /// The kinds with a built-in instance, in declaration order.
    public static let builtInInstances: [PluginKind] = allCases.filter(\.hasBuiltInInstance)

    /// The type's name, as the config spells it.
    public var description: String { rawValue }
}
