extension Layout {
    /// Checks a spec and compiles it. Throws ``Diagnostics`` listing every semantic error
    /// (duplicate names, unknown plugins, displays, screens and `next` targets, cycles, bad values),
    /// each with the spec's source location when it has one. `pluginTypes` are the hosted plugin
    /// types the layout may use and their option checks (made from the daemon's registry);
    /// `keyNames` the key names `key:` handlers may take (the host's registered table unless
    /// handed one).
    public static func compile(_ spec: LayoutSpec, pluginTypes: PluginTypeTable,
                               keyNames: any KeyNaming = KeyNames.provider) throws(Diagnostics) -> Layout {
        var c = LayoutCompiler(spec: spec, pluginTypes: pluginTypes, keyNames: keyNames)
        return try c.run()
    }
}

/// The work of ``Layout/compile(_:)``: one pass per part of the spec, errors collected.
struct LayoutCompiler {
    let spec: LayoutSpec
    let catalog: PluginTypeTable
    let keyNames: any KeyNaming
    var errors: [Diagnostic] = []
    var handlers: [HandlerBinding] = []
    var regions: [RegionNode] = []
    var displayIndex: [String: Int] = [:]
    var screenIndex: [String: Int] = [:]
    var pluginTypes: [String: PluginKind] = [:]
    var pluginOptions: [String: any Sendable] = [:]
    var handlerOptions: [Int: any Sendable] = [:]
    /// Where each `action` handler's `action:` was written, by handler index.
    var actionLocations: [Int: SourceLocation] = [:]
    var warnings: [Diagnostic] = []
    /// Where the `on:` kinds of each handler were written, by handler index (for warnings).
    var onLocations: [Int: [SourceLocation]] = [:]
    var pluginErrors: [Diagnostic] = []
    /// The `on:` kinds of handlers whose plugin is unknown (already an error): the action check
    /// counts them as takers, so one misspelt plugin name is one error, not a second about its actions.
    var unboundFilters: [EventFilter] = []
    /// Region names per screen and every gesture name, from the spec (targets may refer to any).
    let regionNames: [[String]]
    let gestureNames: [String]

    init(spec: LayoutSpec, pluginTypes: PluginTypeTable, keyNames: any KeyNaming) {
        self.spec = spec
        catalog = pluginTypes
        self.keyNames = keyNames
        func names(_ r: RegionSpec, _ out: inout [String], _ gestures: inout [String]) {
            out.append(r.name)
            gestures += r.gestures.map(\.name)
            for c in r.regions { names(c, &out, &gestures) }
        }
        var all: [[String]] = [], gestures: [String] = []
        for s in spec.screens { var n: [String] = []; names(s.root, &n, &gestures); all.append(n) }
        regionNames = all
        gestureNames = gestures
    }

    mutating func error(_ message: String, _ location: SourceLocation?) {
        errors.append(Diagnostic(message, at: location))
    }

    mutating func run() throws(Diagnostics) -> Layout {
        // Displays.
        for (i, d) in spec.displays.enumerated() {
            if let first = displayIndex[d.name] {
                error("duplicate display name '\(d.name)'\(firstDefined(spec.displays[first].location, d.location))", d.location); continue
            }
            if !(d.size.width > 0 && d.size.height > 0) {
                error("display '\(d.name)' needs a positive size, found [\(d.size.width), \(d.size.height)]", d.location)
            }
            displayIndex[d.name] = i
        }
        // Plugins.
        var plugins: [PluginSpec] = []
        for p in spec.plugins {
            if pluginTypes[p.name] != nil {
                let first = spec.plugins.first { $0.name == p.name }?.location
                error("duplicate plugin name '\(p.name)'\(firstDefined(first, p.location))", p.location); continue
            }
            pluginTypes[p.name] = p.type
            pluginOptions[p.name] = checkOptions(of: p)
            plugins.append(p)
        }
        for b in catalog.builtInInstances where pluginTypes[b.rawValue] == nil {
            pluginTypes[b.rawValue] = b
            pluginOptions[b.rawValue] = checkOptions(of: PluginSpec(name: b.rawValue, type: b))
            plugins.append(PluginSpec(name: b.rawValue, type: b))
        }
        // Screens: names and displays first, so `next` and presentation can refer to any.
        var screenDisplays: [Int] = []
        for (i, s) in spec.screens.enumerated() {
            if let first = screenIndex[s.name] {
                error("duplicate screen name '\(s.name)'\(firstDefined(spec.screens[first].location, s.location))", s.location)
            } else { screenIndex[s.name] = i }
            screenDisplays.append(resolveDisplay(s.display, owner: "screen '\(s.name)'", location: s.displayLocation ?? s.location))
        }
        // Regions, screen by screen.
        var screenRegionRanges: [Range<Int>] = []
        var screenHandlers: [[Int]] = []
        for (i, s) in spec.screens.enumerated() {
            let start = regions.count
            var names: [String: SourceLocation?] = [:]
            _ = addRegion(s.root, screen: i, screenName: s.name, parent: nil, parentPath: s.name,
                          parentOrigin: .zero, depth: 0, names: &names)
            if screenDisplays[i] >= 0 { checkRootFrame(s, display: spec.displays[screenDisplays[i]]) }
            screenRegionRanges.append(start..<regions.count)
            screenHandlers.append(bind(s.handlers, owner: .screen(i)))
        }
        resolveNextLinks(screenRegionRanges: screenRegionRanges)
        checkGestures(screenRegionRanges: screenRegionRanges)
        // Presentation at start.
        var presentedOver: [Int?] = []
        for (i, s) in spec.screens.enumerated() {
            guard let over = s.presentedOver else { presentedOver.append(nil); continue }
            guard let o = screenIndex[over] else {
                error("unknown screen '\(over)' in 'presented-over' (screens: \(spec.screens.map(\.name).joined(separator: ", ")))", s.presentedOverLocation ?? s.location)
                presentedOver.append(nil); continue
            }
            if o == i { error("screen '\(s.name)' cannot be presented over itself", s.presentedOverLocation ?? s.location) }
            else if screenDisplays[o] != screenDisplays[i] {
                error("screen '\(s.name)' is presented over '\(over)', which is on another display", s.presentedOverLocation ?? s.location)
            }
            presentedOver.append(o == i ? nil : o)
        }
        // One error per cycle, at its first screen in file order.
        for cycle in Self.cycles(count: spec.screens.count, successor: { presentedOver[$0] }) {
            guard let first = cycle.indices.min(by: { cycle[$0] < cycle[$1] }) else { continue }
            let ordered = Array(cycle[first...] + cycle[..<first])
            let s = spec.screens[ordered[0]]
            error("'presented-over' forms a cycle through screen '\(s.name)': \(Self.cycleText(ordered.map { spec.screens[$0].name }, noun: "screens"))",
                  s.presentedOverLocation ?? s.location)
        }
        // Displays: screens, initial screen.
        var displays: [DisplayNode] = []
        var screensOfDisplay = [[Int]](repeating: [], count: spec.displays.count)
        for (s, d) in screenDisplays.enumerated() where d >= 0 && d < screensOfDisplay.count { screensOfDisplay[d].append(s) }
        for (di, d) in spec.displays.enumerated() {
            let mine = screensOfDisplay[di]
            var initial = mine.first { presentedOver[$0] == nil }
            if let name = d.initialScreen {
                if let s = screenIndex[name], screenDisplays[s] == di { initial = s }
                else if screenIndex[name] != nil { error("screen '\(name)' is not on display '\(d.name)'", d.initialScreenLocation ?? d.location) }
                else { error("unknown screen '\(name)' for display '\(d.name)'", d.initialScreenLocation ?? d.location) }
            }
            displays.append(DisplayNode(name: d.name, size: d.size, screens: mine, initialScreen: initial, handlers: []))
        }
        let screens = spec.screens.enumerated().map { i, s in
            ScreenNode(name: s.name, display: max(screenDisplays[i], 0), root: screenRegionRanges[i].lowerBound,
                       handlers: screenHandlers[i], presentedOver: presentedOver[i], regions: screenRegionRanges[i])
        }
        let app = bind(spec.applicationHandlers, owner: .application)
        let fallback = bind(spec.fallbackHandlers, owner: .fallback)
        let motion = bind(spec.motion?.handlers ?? [], owner: .motion)
        // Device rules.
        var ruleNames: [String: SourceLocation?] = [:]
        var ruleDisplays: [Int] = []
        for r in spec.devices {
            if let first = ruleNames[r.name] { error("duplicate device rule name '\(r.name)'\(firstDefined(first, r.location))", r.location) }
            else { ruleNames[r.name] = r.location }
            ruleDisplays.append(max(resolveDisplay(r.display, owner: "device rule '\(r.name)'", location: r.displayLocation ?? r.location), 0))
        }
        checkActionTargets()
        if !errors.isEmpty { throw Diagnostics(errors) }
        let layout = Layout(spec: spec, displays: displays, screens: screens, regions: regions, handlers: handlers,
                            applicationHandlers: app, fallbackHandlers: fallback, motionHandlers: motion, plugins: plugins,
                            deviceRuleDisplays: ruleDisplays,
                            pluginTypes: catalog, keyNames: keyNames, pluginOptions: pluginOptions, handlerOptions: handlerOptions,
                            warnings: warnings, pluginErrors: pluginErrors)
        // What needs the compiled chains: responders no walk reaches (before the layout is handed out).
        layout.warnings += reachabilityWarnings(layout, onLocations: onLocations)
        return layout
    }

    /// A display name → index; nil means "the only display". Returns -1 after reporting an error.
    mutating func resolveDisplay(_ name: String?, owner: String, location: SourceLocation?) -> Int {
        if let name {
            if let d = displayIndex[name] { return d }
            error("unknown display '\(name)' for \(owner) (displays: \(spec.displays.map(\.name).joined(separator: ", ")))", location)
            return -1
        }
        if spec.displays.count == 1 { return 0 }
        if spec.displays.isEmpty { error("\(owner) needs a display, and none is declared", location) }
        else { error("\(owner) must name its display (there are \(spec.displays.count))", location) }
        return -1
    }

    mutating func bind(_ specs: [HandlerSpec], owner: ResponderID) -> [Int] {
        var out: [Int] = []
        for h in specs {
            guard let type = pluginTypes[h.plugin] else {
                let declared = spec.plugins.map(\.name) + catalog.builtInInstances.map(\.rawValue)
                var message = "unknown plugin '\(h.plugin)' (declared: \(declared.joined(separator: ", ")))"
                if let guess = Spelling.closest(to: h.plugin, in: declared) { message += "; did you mean '\(guess)'?" }
                error(message, h.location)
                unboundFilters += h.on
                continue
            }
            if h.on.isEmpty { error("handler for plugin '\(h.plugin)' takes no events: give 'on' at least one kind (\(EventFilter.spellings))", h.location) }
            checkTargets(of: h)
            if owner != .motion, let i = h.on.firstIndex(of: .orientation) {
                warn("a handler on 'orientation' outside 'motion:' never gets an event: orientation changes go to the top-level motion: handlers only",
                     i < h.onLocations.count ? h.onLocations[i] : h.location)
            }
            checkIdleKinds(of: h, owner: owner)
            let hosted = checkHandlerOptions(h, type: type, owner: owner, index: handlers.count)
            let b = HandlerBinding(index: handlers.count, spec: h, pluginType: type,
                                   ownOptionKeys: type.isRoutingBuiltIn ? type.routingHandlerOptionKeys : hosted?.ownOptionKeys ?? [],
                                   owner: owner, forwards: hosted?.forwards ?? false)
            if !h.onLocations.isEmpty { onLocations[b.index] = h.onLocations }
            handlers.append(b)
            out.append(b.index)
        }
        return out
    }

    /// A handler on `idle` or `active` gets one only when some display has `idle:`,
    /// and only at a screen or above: the events start at the display's top screen.
    mutating func checkIdleKinds(of h: HandlerSpec, owner: ResponderID) {
        guard let i = h.on.firstIndex(where: { $0 == .idle || $0 == .active }) else { return }
        let place = i < h.onLocations.count ? h.onLocations[i] : h.location
        if !spec.displays.contains(where: { $0.idle != nil }) {
            warn("a handler on '\(h.on[i])' never gets an event: no display has 'idle:' (give one 'idle: { after-s: 120 }')", place)
        } else if case .region = owner {
            warn("a handler on '\(h.on[i])' on a region never gets an event: idle and active start at the display's top screen (put it on the screen, 'application:' or 'fallback:')", place)
        }
    }

    /// Appends `spec` and its subtree in pre-order; returns its index.
    mutating func addRegion(_ spec: RegionSpec, screen: Int, screenName: String, parent: Int?, parentPath: String,
                            parentOrigin: Point, depth: Int, names: inout [String: SourceLocation?]) -> Int {
        let here = spec.nameLocation ?? spec.location
        if let first = names[spec.name] {
            error("duplicate region name '\(spec.name)' in screen '\(screenName)'\(firstDefined(first, here))", here)
        } else { names[spec.name] = here }
        if let parent { checkInsideParent(spec, parent: regions[parent]) }
        if !(spec.frame.width >= 0 && spec.frame.height >= 0) {
            error("region '\(spec.name)' has a negative size", spec.location)
        }
        if !(spec.opacity >= 0 && spec.opacity <= 1) {
            error("region '\(spec.name)': 'opacity' must be between 0 and 1, found \(spec.opacity)", spec.location)
        }
        if case .polygon(let v) = spec.shape, v.count < 3 {
            error("region '\(spec.name)': a polygon needs at least 3 points, found \(v.count)", spec.location)
        }
        let index = regions.count
        let path = "\(parentPath)/\(spec.name)"
        let abs = Rect(origin: parentOrigin + spec.frame.origin, size: spec.frame.size)
        // Placeholder; children and handlers are filled in below, then the node is replaced.
        regions.append(RegionNode(name: spec.name, path: path, screen: screen, parent: parent, children: [], depth: depth,
                                  frame: spec.frame, absoluteFrame: abs, hitRect: abs.inset(by: spec.hitInsets), shape: spec.shape,
                                  hitInsets: spec.hitInsets, hidden: spec.hidden, interactive: spec.interactive,
                                  opacity: spec.opacity, exclusive: spec.exclusive, multitouch: spec.multitouch,
                                  focusable: spec.focusable, next: nil, handlers: [], gestures: spec.gestures,
                                  isHittable: !spec.hidden && spec.interactive && spec.opacity >= 0.01))
        let handlerIndices = bind(spec.handlers, owner: .region(index))
        var children: [Int] = []
        for child in spec.regions {
            children.append(addRegion(child, screen: screen, screenName: screenName, parent: index, parentPath: path,
                                      parentOrigin: abs.origin, depth: depth + 1, names: &names))
        }
        regions[index] = regions[index].with(children: children, handlers: handlerIndices, next: nil)
        return index
    }

    mutating func resolveNextLinks(screenRegionRanges: [Range<Int>]) {
        var specByIndex: [RegionSpec] = []
        for s in spec.screens { flatten(s.root, into: &specByIndex) }
        // Each screen's regions by name (the first of a name, as a scan would find), built once.
        var regionByName: [[String: Int]] = []
        for range in screenRegionRanges {
            var byName: [String: Int] = [:]
            for r in range where byName[regions[r].name] == nil { byName[regions[r].name] = r }
            regionByName.append(byName)
        }
        for (i, rs) in specByIndex.enumerated() {
            guard let target = rs.next else { continue }
            let loc = rs.nextLocation ?? rs.location
            let screen = regions[i].screen
            var resolved: ResponderID?
            if target == "application" { resolved = .application }
            else if target == "fallback" { resolved = .fallback }
            else if target.hasPrefix("screen:") {
                let n = String(target.dropFirst(7))
                if let s = screenIndex[n] { resolved = .screen(s) } else { error("unknown screen '\(n)' in 'next'", loc) }
            } else if target.hasPrefix("display:") {
                let n = String(target.dropFirst(8))
                if let d = displayIndex[n] { resolved = .display(d) } else { error("unknown display '\(n)' in 'next'", loc) }
            } else if let r = regionByName[screen][target] {
                resolved = .region(r)
            } else {
                error("unknown 'next' target '\(target)' (expected a region of screen '\(spec.screens[screen].name)', screen:NAME, display:NAME, application or fallback)", loc)
            }
            if let resolved { regions[i] = regions[i].with(children: regions[i].children, handlers: regions[i].handlers, next: resolved) }
        }
        // Cycles: a region that overrides `next` and whose chain (next, or else parent, region
        // by region) comes back to a region it passed is an error. Each region has one region
        // after it (or none), so one walk over all of them finds every such chain.
        // One error per cycle (its cause), not one per region on it or leading into it: at the
        // first region of the cycle, in file order, that overrides `next` (parent links alone
        // never close a cycle), naming its first members and its length.
        let cycles = Self.cycles(count: regions.count) { r -> Int? in
            guard let next = regions[r].next else { return regions[r].parent }
            if case .region(let target) = next { return target }
            return nil
        }
        for cycle in cycles {
            guard let first = cycle.indices.filter({ regions[cycle[$0]].next != nil }).min(by: { cycle[$0] < cycle[$1] }) else { continue }
            let ordered = Array(cycle[first...] + cycle[..<first])
            let r = ordered[0]
            error("'next' forms a cycle in the responder chain: \(Self.cycleText(ordered.map { regions[$0].path })) (the chain of each region on it, or leading into it, would never end)",
                  specByIndex[r].nextLocation ?? specByIndex[r].location)
        }
    }

    /// How many members of a cycle its error names before `…`.
    static let cycleMembersNamed = 5

    /// `a → b → c → a (3 regions)`, or for a long cycle its first members: `a → b → c → d → e → … (20000 regions)`.
    static func cycleText(_ members: [String], noun: String = "regions") -> String {
        let shown = members.prefix(cycleMembersNamed)
        let tail = members.count > cycleMembersNamed ? " → …" : " → \(members[0])"
        return shown.joined(separator: " → ") + tail + " (\(members.count) \(noun))"
    }

    /// The cycles among nodes `0 ..< count` that each lead to at most one other (`successor`):
    /// each cycle once, its members in walk order from where a walk first met it (ordered by
    /// their first member). Linear: every node is walked once.
    static func cycles(count: Int, successor: (Int) -> Int?) -> [[Int]] {
        var state = [UInt8](repeating: 0, count: count)   // 0 new, 1 on the current walk, 2 done
        var position = [Int](repeating: 0, count: count)
        var path: [Int] = []
        var found: [[Int]] = []
        for start in 0..<count where state[start] == 0 {
            path.removeAll(keepingCapacity: true)
            var cur: Int? = start
            while let c = cur, c >= 0, c < count {
                if state[c] == 2 { break }
                if state[c] == 1 { found.append(Array(path[position[c]...])); break }
                state[c] = 1
                position[c] = path.count
                path.append(c)
                cur = successor(c)
            }
            for p in path { state[p] = 2 }
        }
        return found
    }

    mutating func checkGestures(screenRegionRanges: [Range<Int>]) {
        for (s, range) in screenRegionRanges.enumerated() {
            var names: Set<String> = []
            for r in range { for g in regions[r].gestures where !names.insert(g.name).inserted {
                error("duplicate gesture name '\(g.name)' in screen '\(spec.screens[s].name)'", g.location)
            } }
            var requires: [String: [String]] = [:]
            var order: [GestureSpec] = []
            for r in range { for g in regions[r].gestures {
                for other in g.requireToFail + g.simultaneousWith where !names.contains(other) {
                    error("gesture '\(g.name)' refers to unknown gesture '\(other)' (gestures of screen '\(spec.screens[s].name)': \(names.sorted().joined(separator: ", ")))", g.location)
                }
                if g.requireToFail.contains(g.name) { error("gesture '\(g.name)' cannot require itself to fail", g.location) }
                if g.simultaneousWith.contains(g.name) { error("gesture '\(g.name)' cannot be simultaneous with itself", g.location) }
                for other in g.requireToFail where g.simultaneousWith.contains(other) {
                    error("gesture '\(g.name)' both requires '\(other)' to fail and recognizes simultaneously with it", g.location)
                }
                if requires[g.name] == nil { requires[g.name] = g.requireToFail.filter { $0 != g.name }; order.append(g) }
            } }
            // require-to-fail cycles: each would wait forever for the other.
            var reported: Set<String> = []
            // Only a gesture on a cycle can start one: find those first (linear), so that the
            // path search below never runs from the others (a long chain was quadratic).
            let onCycle = Self.namesOnCycles(requires)
            for g in order where onCycle.contains(g.name) && !reported.contains(g.name) {
                if let cycle = requireCycle(from: g.name, requires) {
                    cycle.forEach { reported.insert($0) }
                    error("'require-to-fail' forms a cycle: \((cycle + [g.name]).joined(separator: " → ")) (each would wait for the other to fail)", g.location)
                }
            }
        }
    }

    /// The names that lie on a cycle of `edges` (in a strongly connected component of more
    /// than one name, or with an edge to themselves): Tarjan's algorithm, iterative, linear.
    static func namesOnCycles(_ edges: [String: [String]]) -> Set<String> {
        let names = Array(edges.keys)
        var index: [String: Int] = [:]
        for (i, n) in names.enumerated() { index[n] = i }
        let next: [[Int]] = names.map { (edges[$0] ?? []).compactMap { index[$0] } }
        var order = [Int](repeating: -1, count: names.count), low = [Int](repeating: 0, count: names.count)
        var onStack = [Bool](repeating: false, count: names.count)
        var stack: [Int] = [], counter = 0
        var result: Set<String> = []
        for root in names.indices where order[root] < 0 {
            var work: [(node: Int, edge: Int)] = [(root, 0)]
            order[root] = counter; low[root] = counter; counter += 1
            stack.append(root); onStack[root] = true
            while let (v, e) = work.last {
                if e < next[v].count {
                    work[work.count - 1].edge += 1
                    let w = next[v][e]
                    if order[w] < 0 {
                        order[w] = counter; low[w] = counter; counter += 1
                        stack.append(w); onStack[w] = true
                        work.append((w, 0))
                    } else if onStack[w] {
                        low[v] = min(low[v], order[w])
                    }
                    continue
                }
                work.removeLast()
                if let parent = work.last?.node { low[parent] = min(low[parent], low[v]) }
                guard low[v] == order[v] else { continue }
                var component: [Int] = []
                while let w = stack.popLast() {
                    onStack[w] = false
                    component.append(w)
                    if w == v { break }
                }
                if component.count > 1 || next[v].contains(v) { for w in component { result.insert(names[w]) } }
            }
        }
        return result
    }

    /// A path `start → … → (back to start)` through `require-to-fail`, if any (without the final repeat).
    func requireCycle(from start: String, _ requires: [String: [String]]) -> [String]? {
        var path: [String] = [start]
        var visited: Set<String> = []
        func dfs(_ n: String) -> Bool {
            for next in requires[n] ?? [] {
                if next == start { return true }
                guard visited.insert(next).inserted else { continue }
                path.append(next)
                if dfs(next) { return true }
                path.removeLast()
            }
            return false
        }
        return dfs(start) ? path : nil
    }

    func flatten(_ r: RegionSpec, into out: inout [RegionSpec]) {
        out.append(r)
        for c in r.regions { flatten(c, into: &out) }
    }
}

extension RegionNode {
    func with(children: [Int], handlers: [Int], next: ResponderID?) -> RegionNode {
        RegionNode(name: name, path: path, screen: screen, parent: parent, children: children, depth: depth, frame: frame,
                   absoluteFrame: absoluteFrame, hitRect: hitRect, shape: shape, hitInsets: hitInsets, hidden: hidden,
                   interactive: interactive, opacity: opacity, exclusive: exclusive, multitouch: multitouch,
                   focusable: focusable, next: next, handlers: handlers, gestures: gestures, isHittable: isHittable)
    }
}
