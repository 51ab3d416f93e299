/// A compiled, immutable layout: displays, screens and a flat array of regions with their
/// geometry resolved to display coordinates, handlers bound, `next` links resolved and a
/// spatial index for regions with many children. Build one with ``compile(_:)``.
///
/// Touches keep a reference to the layout they began in, so a reload never changes the
/// region an active touch is bound to.
public final class Layout: @unchecked Sendable {
    public let spec: LayoutSpec
    public let displays: [DisplayNode]
    public let screens: [ScreenNode]
    /// All regions of all screens, each screen's pre-order block contiguous.
    public let regions: [RegionNode]
    /// Every handler of every responder.
    public let handlers: [HandlerBinding]
    public let applicationHandlers: [Int]
    public let fallbackHandlers: [Int]
    /// The top-level `motion:` handlers (accelerometer samples and orientation changes).
    public let motionHandlers: [Int]
    /// Declared plugins plus the built-in instances.
    public let plugins: [PluginSpec]
    /// The plugin types it was compiled with (a run-time change compiles against the same).
    public let pluginTypes: PluginTypeTable
    /// The key names it was checked against (a run-time change checks against the same).
    public let keyNames: any KeyNaming
    /// Each hosted plugin instance's options, typed and checked by its type's check (by
    /// instance name; absent for a type without options). Opaque to the core.
    public let pluginOptions: [String: any Sendable]
    /// What a hosted type's check made of a handler's own options, by handler index (an `exec`
    /// handler's argv). Opaque to the core.
    public let handlerOptions: [Int: any Sendable]
    /// What compiles but probably does not do what was meant (a child sticking out of its parent, …).
    /// (Set only while it is compiled, before anything else sees it.)
    public internal(set) var warnings: [Diagnostic]
    /// What routes but a plugin host cannot run (e.g. an `exec` handler with no command anywhere):
    /// errors for a config (``EvrouteConfig``'s loader) and for the daemon's plugin host, not
    /// for routing alone.
    public let pluginErrors: [Diagnostic]
    /// For each device rule (``LayoutSpec/devices``), its display index.
    public let deviceRuleDisplays: [Int]

    let displayByName: [String: Int]
    let screenByName: [String: Int]
    let regionByPath: [String: Int]
    let childGrids: [Int: ChildGrid]
    /// Per region: the recognizers that see its touches — its own, then its ancestors' (UIKit:
    /// the hit view's recognizers, then its superviews').
    let gesturePaths: [[GestureRef]]
    /// Per region: whether ``gesturePaths`` is non-empty (the touch hot path checks only this).
    let regionHasGestures: [Bool]
    /// Per screen: gesture name → recognizer.
    let gesturesByScreen: [[String: GestureRef]]

    init(spec: LayoutSpec, displays: [DisplayNode], screens: [ScreenNode], regions: [RegionNode],
         handlers: [HandlerBinding], applicationHandlers: [Int], fallbackHandlers: [Int], motionHandlers: [Int] = [],
         plugins: [PluginSpec], deviceRuleDisplays: [Int],
         pluginTypes: PluginTypeTable = .routingOnly, keyNames: any KeyNaming = KeyNames.provider, pluginOptions: [String: any Sendable] = [:],
         handlerOptions: [Int: any Sendable] = [:], warnings: [Diagnostic] = [], pluginErrors: [Diagnostic] = []) {
        self.pluginErrors = pluginErrors
        self.spec = spec
        self.pluginTypes = pluginTypes
        self.keyNames = keyNames
        self.pluginOptions = pluginOptions
        self.handlerOptions = handlerOptions
        self.warnings = warnings
        self.displays = displays
        self.screens = screens
        self.regions = regions
        self.handlers = handlers
        self.applicationHandlers = applicationHandlers
        self.fallbackHandlers = fallbackHandlers
        self.motionHandlers = motionHandlers
        self.plugins = plugins
        self.deviceRuleDisplays = deviceRuleDisplays
        displayByName = Dictionary(displays.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { a, _ in a })
        screenByName = Dictionary(screens.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { a, _ in a })
        regionByPath = Dictionary(regions.enumerated().map { ($1.path, $0) }, uniquingKeysWith: { a, _ in a })
        var grids: [Int: ChildGrid] = [:]
        for (i, r) in regions.enumerated() where r.children.count >= ChildGrid.minimumChildren {
            grids[i] = ChildGrid(parent: r, children: r.children, regions: regions)
        }
        childGrids = grids
        var paths: [[GestureRef]] = []
        paths.reserveCapacity(regions.count)
        var byScreen = Array(repeating: [String: GestureRef](), count: screens.count)
        for (i, r) in regions.enumerated() {
            // Pre-order: a parent's path is always computed before its children's.
            var path = r.gestures.indices.map { GestureRef(region: i, index: $0) }
            if let p = r.parent, p < paths.count { path += paths[p] }
            paths.append(path)
            for (gi, g) in r.gestures.enumerated() where r.screen < byScreen.count && byScreen[r.screen][g.name] == nil {
                byScreen[r.screen][g.name] = GestureRef(region: i, index: gi)
            }
        }
        gesturePaths = paths
        regionHasGestures = paths.map { !$0.isEmpty }
        gesturesByScreen = byScreen
    }

    /// The recognizer named `name` in `screen`, if any.
    public func gesture(named name: String, inScreen screen: Int) -> GestureRef? {
        screen < gesturesByScreen.count ? gesturesByScreen[screen][name] : nil
    }

    /// The recognizers that see touches bound to `region`: its own, then its ancestors'.
    public func gestures(seenFrom region: Int) -> [GestureRef] { gesturePaths[region] }

    /// The display with this name.
    public func display(named name: String) -> Int? { displayByName[name] }
    /// The screen with this name.
    public func screen(named name: String) -> Int? { screenByName[name] }
    /// The region with this path (`screen/root/…/name`).
    public func region(path: String) -> Int? { regionByPath[path] }

    /// The region named `name` in `screen`, if any.
    public func region(named name: String, inScreen screen: Int) -> Int? {
        for i in screens[screen].regions where regions[i].name == name { return i }
        return nil
    }

    /// How the trace names a responder: a region path, `screen:NAME`, `display:NAME`,
    /// `application` or `fallback`.
    public func describe(_ responder: ResponderID) -> String {
        switch responder {
        case .region(let r): regions[r].path
        case .screen(let s): "screen:\(screens[s].name)"
        case .display(let d): "display:\(displays[d].name)"
        case .application: "application"
        case .fallback: "fallback"
        case .motion: "motion"
        }
    }

    /// The handler indices attached to a responder, in declaration order.
    @inline(__always)
    public func handlerIndices(of responder: ResponderID) -> [Int] {
        switch responder {
        case .region(let r): regions[r].handlers
        case .screen(let s): screens[s].handlers
        case .display(let d): displays[d].handlers
        case .application: applicationHandlers
        case .fallback: fallbackHandlers
        case .motion: motionHandlers
        }
    }

    /// The plugin type of a plugin instance name, if declared or built in.
    public func pluginType(of name: String) -> PluginKind? {
        plugins.first { $0.name == name }?.type
    }
}
