extension Layout {
    /// Checks a spec and compiles it. Throws ``LayoutErrors`` listing every semantic error
    /// (duplicate names, unknown plugins, displays, screens and `next` targets, cycles, bad values),
    /// each with the spec's source location when it has one.
    public static func compile(_ spec: LayoutSpec) throws(LayoutErrors) -> Layout {
        var c = LayoutCompiler(spec: spec)
        return try c.run()
    }
}

/// The work of ``Layout/compile(_:)``: one pass per part of the spec, errors collected.
struct LayoutCompiler {
    let spec: LayoutSpec
    var errors: [LayoutError] = []
    var handlers: [HandlerBinding] = []
    var regions: [RegionNode] = []
    var displayIndex: [String: Int] = [:]
    var screenIndex: [String: Int] = [:]
    var pluginTypes: [String: PluginKind] = [:]
    var pluginOptions: [String: PluginOptions] = [:]
    var execCommands: [Int: [String]] = [:]
    /// Where each `action` handler's `action:` was written, by handler index.
    var actionLocations: [Int: SourceLocation] = [:]
    var warnings: [LayoutWarning] = []
    var pluginErrors: [LayoutError] = []
    /// Region names per screen and every gesture name, from the spec (targets may refer to any).
    let regionNames: [[String]]
    let gestureNames: [String]

    init(spec: LayoutSpec) {
        self.spec = spec
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
        errors.append(LayoutError(message, at: location))
    }

    mutating func run() throws(LayoutErrors) -> Layout {
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
        for b in PluginKind.builtInInstances where pluginTypes[b.rawValue] == nil {
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
        for (i, s) in spec.screens.enumerated() {
            var seen: Set<Int> = [i]
            var cur = presentedOver[i]
            while let c = cur {
                if !seen.insert(c).inserted {
                    error("'presented-over' forms a cycle through screen '\(s.name)'", s.presentedOverLocation ?? s.location)
                    break
                }
                cur = presentedOver[c]
            }
        }
        // Displays: screens, initial screen.
        var displays: [DisplayNode] = []
        for (di, d) in spec.displays.enumerated() {
            let mine = spec.screens.indices.filter { screenDisplays[$0] == di }
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
            if ![0, 90, 180, 270].contains(r.rotate) { error("'rotate' must be 0, 90, 180 or 270, found \(r.rotate)", r.location) }
            if let c = r.calibration, c.count != 6 { error("'calibration' needs 6 numbers, found \(c.count)", r.location) }
        }
        checkActionTargets()
        if !errors.isEmpty { throw LayoutErrors(errors) }
        return Layout(spec: spec, displays: displays, screens: screens, regions: regions, handlers: handlers,
                      applicationHandlers: app, fallbackHandlers: fallback, motionHandlers: motion, plugins: plugins,
                      deviceRules: spec.devices, deviceRuleDisplays: ruleDisplays,
                      pluginOptions: pluginOptions, execCommands: execCommands, warnings: warnings,
                      pluginErrors: pluginErrors)
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
                let declared = spec.plugins.map(\.name) + PluginKind.builtInInstances.map(\.rawValue)
                var message = "unknown plugin '\(h.plugin)' (declared: \(declared.joined(separator: ", ")))"
                if let guess = Spelling.closest(to: h.plugin, in: declared) { message += "; did you mean '\(guess)'?" }
                error(message, h.location)
                continue
            }
            if h.on.isEmpty { error("handler for plugin '\(h.plugin)' takes no events: give 'on' at least one kind (\(EventFilter.spellings))", h.location) }
            checkTargets(of: h)
            if owner != .motion, let i = h.on.firstIndex(of: .orientation) {
                warn("a handler on 'orientation' outside 'motion:' never gets an event: orientation changes go to the top-level motion: handlers only",
                     i < h.onLocations.count ? h.onLocations[i] : h.location)
            }
            checkHandlerOptions(h, type: type, owner: owner, index: handlers.count)
            let b = HandlerBinding(index: handlers.count, spec: h, pluginType: type, owner: owner)
            handlers.append(b)
            out.append(b.index)
        }
        return out
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
            } else if let r = screenRegionRanges[screen].first(where: { regions[$0].name == target }) {
                resolved = .region(r)
            } else {
                error("unknown 'next' target '\(target)' (expected a region of screen '\(spec.screens[screen].name)', screen:NAME, display:NAME, application or fallback)", loc)
            }
            if let resolved { regions[i] = regions[i].with(children: regions[i].children, handlers: regions[i].handlers, next: resolved) }
        }
        // Cycles: follow region links (next or parent) from each region that overrides `next`.
        for (i, rs) in specByIndex.enumerated() where regions[i].next != nil {
            var seen: Set<Int> = [i]
            var cur = regions[i].next
            while case .region(let r)? = cur {
                if !seen.insert(r).inserted {
                    error("'next' of region '\(regions[i].path)' forms a cycle in the responder chain", rs.nextLocation ?? rs.location)
                    break
                }
                cur = regions[r].next ?? regions[r].parent.map { .region($0) }
            }
        }
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
            for g in order where !reported.contains(g.name) {
                if let cycle = requireCycle(from: g.name, requires) {
                    cycle.forEach { reported.insert($0) }
                    error("'require-to-fail' forms a cycle: \((cycle + [g.name]).joined(separator: " → ")) (each would wait for the other to fail)", g.location)
                }
            }
        }
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
