import EvrouteCore

/// A plugin type a host runs (`log`, `exec`, … in the daemon), as a config's reader checks it:
/// its name, the option keys it reads (for did-you-mean), how its options are typed and checked,
/// and what its handlers' own options must be. The core holds no such schema: the daemon
/// registers its types (`PluginTypes.all`) and whoever compiles a layout hands them over in a
/// ``PluginCatalog``, whose ``PluginCatalog/table`` the core's compiler runs the checks through,
/// so `check`, the dry-run, start and reload refuse the same options.
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
    /// kept in `Layout.pluginOptions`. Default: none.
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
    /// What routes but a host cannot run (`Layout.pluginErrors`).
    public var runErrors: [Diagnostic] = []
    /// The handler's typed options, kept in `Layout.handlerOptions` by handler index.
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
/// them) and the routing built-ins. The core's compiler sees them through ``table``; a compiled
/// layout keeps that table, so a run-time change compiles against the same types.
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

    /// The types as the core's compiler takes them: their names, and the checks of
    /// ``PluginCatalog/check(plugin:type:)`` and ``PluginCatalog/check(handler:type:declared:pluginOptions:)``.
    public var table: PluginTypeTable {
        PluginTypeTable(hosted: hosted.map(\.name), builtInInstances: hosted.filter(\.hasBuiltInInstance).map(\.name), source: self,
                        checkPlugin: { [self] p in
                            guard let type = hosted(p.type) else { return PluginCheckResult() }
                            return Self.check(plugin: p, type: type)
                        },
                        checkHandler: { [self] h, type, declared, options in
                            guard let type = hosted(type) else { return HandlerCheckResult() }
                            return Self.check(handler: h, type: type, declared: declared, pluginOptions: options)
                        })
    }

    /// A declared instance of `type`: unknown keys (with did-you-mean), then the type's own reading.
    static func check(plugin p: PluginSpec, type: any HostedPluginType) -> PluginCheckResult {
        var errors: [Diagnostic] = []
        let known = type.pluginOptionKeys
        for key in p.options.keys.sorted() where !known.contains(key) {
            let expected = known.isEmpty ? "a \(p.type) plugin takes no options" : "expected one of: \(known.joined(separator: ", "))"
            errors.append(Diagnostic("unknown option '\(key)' for plugin '\(p.name)' (\(expected))\(guess(key, in: known))",
                                     at: p.optionLocations[key] ?? p.location))
        }
        var r = PluginOptionReader(plugin: p.name, options: p.options, locations: p.optionLocations, location: p.location)
        let options = type.readOptions(&r)
        return PluginCheckResult(options: options, errors: errors + r.errors)
    }

    /// A handler of `type`: the type's own check, warnings for options it will not read, and
    /// (for a forwarding type) the events it may take.
    static func check(handler h: HandlerSpec, type: any HostedPluginType, declared: PluginSpec?,
                      pluginOptions: (any Sendable)?) -> HandlerCheckResult {
        var check = HandlerOptionCheck(handler: h, declared: declared, pluginOptions: pluginOptions)
        type.checkHandler(&check)
        var result = HandlerCheckResult(forwards: type.forwards, ownOptionKeys: type.handlerOptionKeys, options: check.options,
                                        errors: check.errors, runErrors: check.runErrors)
        if !type.handlerOptionsAreFreeForm {
            let reads = type.handlerOptionKeys
            for key in h.options.keys.sorted() where !reads.contains(key) {
                let readList = reads.isEmpty ? "it reads none" : "it reads: \(reads.joined(separator: ", "))"
                let at = check.at(key)
                if type.pluginOptionKeys.contains(key) {
                    result.warnings.append(Diagnostic("'\(key)' is an option of the \(type.name) plugin, not of its handlers: the handler's '\(key)' is not read (declare it on the plugin)",
                                                      at: at, severity: .warning))
                } else if let g = Spelling.closest(to: key, in: reads) {
                    result.warnings.append(Diagnostic("handler option '\(key)' is not read by the \(type.name) plugin (\(readList)); did you mean '\(g)'?",
                                                      at: at, severity: .warning))
                }
            }
        }
        if type.forwards { result.errors += forwardingErrors(of: h, type: type) }
        return result
    }

    /// A forwarding handler takes whole touches and keys: `touch`, `key`, `key:NAME`.
    /// A single phase would forward part of a touch (a `began` with no end); anything else has
    /// nothing to forward.
    /// Other events only where the type says the handler makes something of them
    /// (``HostedPluginType/forwardsAlso(_:handler:)``: `forward`'s `press:` and `type-text:`).
    static func forwardingErrors(of h: HandlerSpec, type: any HostedPluginType) -> [Diagnostic] {
        var errors: [Diagnostic] = []
        for (i, f) in h.on.enumerated() {
            if type.forwardsAlso(f, handler: h) { continue }
            let at = i < h.onLocations.count ? h.onLocations[i] : h.location
            switch f {
            case .touch, .key, .keyNamed, .chord: continue
            case .touchBegan, .touchMoved, .touchEnded, .touchCancelled, .tap:
                errors.append(Diagnostic("plugin '\(h.plugin)' forwards whole touches: take 'touch', not '\(f)' (a touch is forwarded from its began to its end, or not at all)", at: at))
            default:
                errors.append(Diagnostic("plugin '\(h.plugin)' forwards touches and keys only: take 'touch', 'key' or 'key:NAME', not '\(f)'\(f == .text ? " (or give the handler 'type-text: true' to type the text on the virtual keyboard)" : " (or give the handler 'press: KEY' to press a key on the virtual keyboard on it)")", at: at))
            }
        }
        return errors
    }

    /// `; did you mean 'X'?` when `word` is a likely typo of one of `candidates` (compared in
    /// lower case, answered as written), as the core's compiler words it.
    static func guess(_ word: String, in candidates: [String]) -> String {
        let lower = candidates.map { $0.lowercased() }
        guard let hit = Spelling.closest(to: word, in: lower), let i = lower.firstIndex(of: hit) else { return "" }
        return "; did you mean '\(candidates[i])'?"
    }
}

extension PluginTypeTable {
    /// The catalog the table was made from (``PluginCatalog/table``).
    public var catalog: PluginCatalog { source as? PluginCatalog ?? .routingOnly }

    /// The hosted type named `type`, if the table's catalog has it.
    public func hosted(_ type: PluginKind) -> (any HostedPluginType)? { catalog.hosted(type) }
}

extension Layout {
    /// Checks a spec and compiles it with `pluginTypes`' names and checks (``PluginCatalog/table``).
    public static func compile(_ spec: LayoutSpec, pluginTypes: PluginCatalog) throws(Diagnostics) -> Layout {
        try compile(spec, pluginTypes: pluginTypes.table)
    }
}
