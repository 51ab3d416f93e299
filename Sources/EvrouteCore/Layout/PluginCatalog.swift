/// A plugin type a host runs (`log`, `exec`, … in the daemon), as the layout compiler checks it:
/// its name, the option keys it reads (for did-you-mean), how its options are typed and checked,
/// and what its handlers' own options must be. The core holds no such schema: the daemon
/// registers its types (`PluginTypes.all`) and whoever compiles a layout hands them over in a
/// ``PluginCatalog``, so `check`, the dry-run, start and reload refuse the same options.
public protocol HostedPluginType: Sendable {
    /// The type's name (`type:` in the config).
    var name: PluginKind { get }
    /// Whether an instance named like the type exists without being declared (`log`). Default false.
    var hasBuiltInInstance: Bool { get }
    /// The plugin-level options it reads (any other key on the plugin is an error). Default none.
    var pluginOptionKeys: [String] { get }
    /// The handler-level options it reads itself (they do not travel with events). Default none.
    var handlerOptionKeys: [String] { get }
    /// Whether a handler's other options are meant for a peer (a UI on a `socket`, a `process`
    /// helper): free-form, never warned about. Default false.
    var handlerOptionsAreFreeForm: Bool { get }
    /// Whether its handlers **forward**: a touch whose `began` such a handler takes
    /// is bound to it for its whole life (every later phase goes to it, wherever it moves; one
    /// it did not take never reaches it), and a key whose down it takes has its up delivered to
    /// it. Such a handler takes `touch`, `key` or `key:NAME`, never single phases. Default false.
    var forwards: Bool { get }
    /// The plugin's typed options, read through `reader` (its errors are the plugin's errors);
    /// kept in ``Layout/pluginOptions``. Default: none.
    func readOptions(_ reader: inout PluginOptionReader) -> (any Sendable)?
    /// Checks one handler's own options (``HandlerOptionCheck``). Default: nothing to check.
    func checkHandler(_ check: inout HandlerOptionCheck)
    /// A forwarding type: whether `handler` may also take `filter`, an event that is neither a
    /// touch nor a key (its options say what to make of it, e.g. a key to press). Default false.
    func forwardsAlso(_ filter: EventFilter, handler: HandlerSpec) -> Bool
}

extension HostedPluginType {
    public var hasBuiltInInstance: Bool { false }
    public var pluginOptionKeys: [String] { [] }
    public var handlerOptionKeys: [String] { [] }
    public var handlerOptionsAreFreeForm: Bool { false }
    public var forwards: Bool { false }
    public func readOptions(_ reader: inout PluginOptionReader) -> (any Sendable)? { nil }
    public func checkHandler(_ check: inout HandlerOptionCheck) {}
    public func forwardsAlso(_ filter: EventFilter, handler: HandlerSpec) -> Bool { false }
}

/// One handler of a hosted type, as its type checks it: what it reads, and what it reports.
public struct HandlerOptionCheck {
    /// The handler.
    public let handler: HandlerSpec
    /// Its plugin instance as declared (nil for a built-in instance).
    public let declared: PluginSpec?
    /// Its plugin's typed options (``HostedPluginType/readOptions(_:)``).
    public let pluginOptions: (any Sendable)?
    /// Errors: the layout does not compile.
    public var errors: [Diagnostic] = []
    /// What routes but a host cannot run (``Layout/pluginErrors``).
    public var runErrors: [Diagnostic] = []
    /// The handler's typed options, kept in ``Layout/handlerOptions`` by handler index.
    public var options: (any Sendable)?

    /// Where `key`'s value was written (else the handler).
    public func at(_ key: String) -> SourceLocation? { handler.optionLocations[key] ?? handler.location }

    /// Reports `message` at `key`'s value.
    public mutating func error(_ message: String, at key: String) {
        errors.append(Diagnostic(message, at: at(key)))
    }

    /// A reader of the handler's options (errors worded `plugin NAME: …`).
    public var reader: PluginOptionReader {
        PluginOptionReader(plugin: handler.plugin, options: handler.options, locations: handler.optionLocations, location: handler.location)
    }
}

/// The plugin types a layout may use: the hosted types it is handed (in the order errors name
/// them) and the routing built-ins. A compiled layout keeps its catalog, so a run-time change
/// compiles against the same types.
public struct PluginCatalog: Sendable {
    public let hosted: [any HostedPluginType]

    public init(_ hosted: [any HostedPluginType]) { self.hosted = hosted }

    /// The routing built-ins only (a layout whose plugins only route).
    public static let routingOnly = PluginCatalog([])

    /// The hosted type named `type`, if registered.
    public func hosted(_ type: PluginKind) -> (any HostedPluginType)? {
        hosted.first { $0.name == type }
    }

    /// Every type name, hosted first, in the order errors give them.
    public var typeNames: [PluginKind] { hosted.map(\.name) + PluginKind.routingBuiltIns }

    /// The types with an instance named like the type that need not be declared.
    public var builtInInstances: [PluginKind] { hosted.filter(\.hasBuiltInInstance).map(\.name) + PluginKind.routingBuiltIns }

    /// Whether `type` is a routing built-in or a registered hosted type.
    public func knows(_ type: PluginKind) -> Bool { type.isRoutingBuiltIn || hosted(type) != nil }

    /// The handler-level options `type` reads itself.
    public func handlerOptionKeys(of type: PluginKind) -> [String] {
        type.isRoutingBuiltIn ? type.routingHandlerOptionKeys : hosted(type)?.handlerOptionKeys ?? []
    }
}
