/// The type of a plugin instance (`type:` in the config): a name.
///
/// Two families: the **routing built-ins** (`action`, `focus`, `present`, `dismiss`) act on
/// routing itself, inside the router, so they run in a dry-run too; each has a built-in
/// instance named like the type. The **hosted** types are whatever the layout was compiled
/// with (``PluginTypeTable``: the daemon registers `log`, `exec`, `socket`, `process` and
/// `forward`); the core knows only their names, never their options.
public struct PluginKind: RawRepresentable, Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The type's name, as the config spells it.
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ name: String) { rawValue = name }
    public init(stringLiteral name: String) { rawValue = name }

    /// Routing built-in: sends the handler's `action: NAME` up the responder chain. Built-in instance `action`.
    public static let action: PluginKind = "action"
    /// Routing built-in: makes a region the first responder (or resigns it). Built-in instance `focus`.
    public static let focus: PluginKind = "focus"
    /// Routing built-in: presents the handler's `screen: NAME`. Built-in instance `present`.
    public static let present: PluginKind = "present"
    /// Routing built-in: dismisses the top presented screen of the display. Built-in instance `dismiss`.
    public static let dismiss: PluginKind = "dismiss"

    /// The routing built-ins, in the order errors and documentation give them.
    public static let routingBuiltIns: [PluginKind] = [.action, .focus, .present, .dismiss]

    /// Acts on routing itself, in the router (also in a dry-run): `action`, `focus`, `present`, `dismiss`.
    public var isRoutingBuiltIn: Bool { Self.routingBuiltIns.contains(self) }

    /// Run by a plugin host (never in a dry-run): any type but the routing built-ins.
    public var isHosted: Bool { !isRoutingBuiltIn }

    /// The handler-level options a routing built-in reads itself (checked by the compiler);
    /// none for any other type.
    public var routingHandlerOptionKeys: [String] {
        switch self {
        case .action: ["action"]
        case .focus: ["region", "resign"]
        case .present: ["screen"]
        default: []
        }
    }

    public var description: String { rawValue }
}
