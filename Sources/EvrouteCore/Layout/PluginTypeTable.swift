/// The plugin types a layout is compiled with besides the routing built-ins (``PluginKind``):
/// the **hosted** types, which a plugin host runs. The core knows their names only. What their
/// options mean is checked by two closures handed in with the names (EvrouteConfig's
/// `PluginCatalog` makes this table out of the daemon's types), and the compiled layout keeps
/// what they answer as plain values: each instance's and each handler's typed options, opaque
/// here (``Layout/pluginOptions``, ``Layout/handlerOptions``), and whether a handler forwards
/// (``HandlerBinding/forwards``). A compiled layout keeps its table, so a run-time change
/// compiles against the same types.
public struct PluginTypeTable: Sendable {
    /// Checks a declared instance of a hosted type (its keys and values).
    public typealias PluginCheck = @Sendable (_ plugin: PluginSpec) -> PluginCheckResult
    /// Checks a handler of a hosted type: `type` is its plugin's, `declared` its plugin as
    /// declared (nil for a built-in instance), `pluginOptions` what ``PluginCheck`` made of it.
    public typealias HandlerCheck = @Sendable (_ handler: HandlerSpec, _ type: PluginKind, _ declared: PluginSpec?,
                                               _ pluginOptions: (any Sendable)?) -> HandlerCheckResult

    /// The hosted types' names, in the order errors give them.
    public let hosted: [PluginKind]
    /// The hosted types with an instance named like the type that need not be declared (`log`).
    public let hostedBuiltInInstances: [PluginKind]
    /// Whoever made the table (EvrouteConfig's catalog of types), for the host that runs them.
    public let source: (any Sendable)?
    let checkPlugin: PluginCheck
    let checkHandler: HandlerCheck

    public init(hosted: [PluginKind], builtInInstances: [PluginKind] = [], source: (any Sendable)? = nil,
                checkPlugin: @escaping PluginCheck = { _ in PluginCheckResult() },
                checkHandler: @escaping HandlerCheck = { _, _, _, _ in HandlerCheckResult() }) {
        self.hosted = hosted
        hostedBuiltInInstances = builtInInstances
        self.source = source
        self.checkPlugin = checkPlugin
        self.checkHandler = checkHandler
    }

    /// The routing built-ins only (a layout whose plugins only route).
    public static let routingOnly = PluginTypeTable(hosted: [])

    /// Every type name, hosted first, in the order errors give them.
    public var typeNames: [PluginKind] { hosted + PluginKind.routingBuiltIns }

    /// The types with an instance named like the type that need not be declared.
    public var builtInInstances: [PluginKind] { hostedBuiltInInstances + PluginKind.routingBuiltIns }

    /// Whether `type` is a routing built-in or a hosted type of the table.
    public func knows(_ type: PluginKind) -> Bool { type.isRoutingBuiltIn || hosted.contains(type) }
}

/// What a hosted type's check made of a declared instance.
public struct PluginCheckResult: Sendable {
    /// The instance's typed options (kept in ``Layout/pluginOptions``); nil: none.
    public var options: (any Sendable)?
    /// Errors: the layout does not compile.
    public var errors: [Diagnostic]

    public init(options: (any Sendable)? = nil, errors: [Diagnostic] = []) {
        self.options = options
        self.errors = errors
    }
}

/// What a hosted type's check made of one of its handlers.
public struct HandlerCheckResult: Sendable {
    /// Whether the handler forwards: a touch whose `began` it takes is bound to it for its
    /// whole life, and a key whose down it takes has its up delivered to it
    /// (``HandlerBinding/forwards``).
    public var forwards: Bool
    /// The handler options its type reads itself (they do not travel with its events).
    public var ownOptionKeys: [String]
    /// The handler's typed options (kept in ``Layout/handlerOptions``); nil: none.
    public var options: (any Sendable)?
    /// Errors: the layout does not compile.
    public var errors: [Diagnostic]
    /// What compiles but is probably not meant (``Layout/warnings``).
    public var warnings: [Diagnostic]
    /// What routes but a host cannot run (``Layout/pluginErrors``).
    public var runErrors: [Diagnostic]

    public init(forwards: Bool = false, ownOptionKeys: [String] = [], options: (any Sendable)? = nil,
                errors: [Diagnostic] = [], warnings: [Diagnostic] = [], runErrors: [Diagnostic] = []) {
        self.forwards = forwards
        self.ownOptionKeys = ownOptionKeys
        self.options = options
        self.errors = errors
        self.warnings = warnings
        self.runErrors = runErrors
    }
}
