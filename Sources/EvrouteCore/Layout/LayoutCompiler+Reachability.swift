// The compiler's warnings about what can never happen: an `action:NAME` handler that
// no chain the action starts from reaches, a key or text handler on a region that is never the
// first responder nor on a first responder's chain, a grabbed device whose events nothing takes.
// Each is found in linear (or n log n) time over the layout's chain tree.

/// Every responder's chain as the layout alone defines it (no run-time presentation) is a path
/// to `fallback` in one tree: each responder's parent is its next responder. `r` is on the
/// chain from `x` exactly when `r` is `x` or an ancestor of it — one interval test on the
/// tree's depth-first order.
struct ChainTree {
    let regionCount: Int
    let screenCount: Int
    let displayCount: Int
    /// Depth-first entry and exit order of each node (regions, screens, displays, application, fallback).
    private(set) var entry: [Int]
    private(set) var exit: [Int]

    init(_ layout: Layout) {
        regionCount = layout.regions.count
        screenCount = layout.screens.count
        displayCount = layout.displays.count
        let count = regionCount + screenCount + displayCount + 2
        let fallback = count - 1
        // Children lists by next responder (a compiled layout has no cycle: every walk ends at fallback).
        var childCount = [Int](repeating: 0, count: count + 1)
        var parent = [Int](repeating: -1, count: count)
        for n in 0..<(count - 1) {
            guard let next = layout.nextResponder(after: Self.responder(n, regionCount, screenCount, displayCount),
                                                  presentation: StaticPresentation()) else { continue }
            let p = Self.node(next, regionCount, screenCount, displayCount)
            guard p >= 0 else { continue }
            parent[n] = p
            childCount[p + 1] += 1
        }
        for i in 0..<count { childCount[i + 1] += childCount[i] }
        var fill = childCount
        var children = [Int](repeating: 0, count: max(childCount[count], 1))
        for n in 0..<count where parent[n] >= 0 {
            children[fill[parent[n]]] = n
            fill[parent[n]] += 1
        }
        entry = [Int](repeating: -1, count: count)
        exit = [Int](repeating: -1, count: count)
        var clock = 0
        var stack: [(node: Int, next: Int)] = [(fallback, childCount[fallback])]
        entry[fallback] = clock; clock += 1
        while let (n, i) = stack.last {
            if i < childCount[n + 1] {
                stack[stack.count - 1].next += 1
                let c = children[i]
                entry[c] = clock; clock += 1
                stack.append((c, childCount[c]))
            } else {
                exit[n] = clock
                stack.removeLast()
            }
        }
    }

    static func responder(_ n: Int, _ r: Int, _ s: Int, _ d: Int) -> ResponderID {
        if n < r { return .region(n) }
        if n < r + s { return .screen(n - r) }
        if n < r + s + d { return .display(n - r - s) }
        return n == r + s + d ? .application : .fallback
    }

    static func node(_ responder: ResponderID, _ r: Int, _ s: Int, _ d: Int) -> Int {
        switch responder {
        case .region(let i): i
        case .screen(let i): r + i
        case .display(let i): r + s + i
        case .application: r + s + d
        case .fallback: r + s + d + 1
        case .motion: -1
        }
    }

    func node(_ responder: ResponderID) -> Int { Self.node(responder, regionCount, screenCount, displayCount) }

    /// Whether the chain from `x` passes `r` (`r` is `x` or after it).
    func chain(from x: Int, passes r: Int) -> Bool {
        entry[r] >= 0 && entry[x] >= 0 && entry[r] <= entry[x] && entry[x] < exit[r]
    }

    /// Where a walk may start and what it then passes, for one kind of walk (an action, or the
    /// keys from a first responder): the chains from some nodes (`from`), and the chains from
    /// every node whose chain passes some others (`fromAnyPassing`: an `action` or `focus`
    /// handler there starts a walk from the region an event came from, which may be any of them).
    struct Starts {
        var from: [Int] = []
        var fromAnyPassing: [Int] = []
    }

    /// The test of ``Starts`` against many nodes: sorted entry orders, so each node costs a
    /// binary search or two.
    struct Reach {
        let points: [Int]
        /// Disjoint entry-order intervals, sorted.
        let covered: [(Int, Int)]

        /// Whether some walk of the starts passes `r`.
        func passes(_ r: Int, in tree: ChainTree) -> Bool {
            let lo = tree.entry[r], hi = tree.exit[r]
            guard lo >= 0 else { return false }
            // A start in r's subtree: its chain passes r.
            if let p = Self.firstIndex(points, notBelow: lo), p < points.count, points[p] < hi { return true }
            // r in the subtree of a node whose passing chains start walks: r's own chain is one.
            var a = 0, b = covered.count
            while a < b { let m = (a + b) / 2; if covered[m].1 <= lo { a = m + 1 } else { b = m } }
            return a < covered.count && covered[a].0 <= lo
        }

        static func firstIndex(_ sorted: [Int], notBelow v: Int) -> Int? {
            var a = 0, b = sorted.count
            while a < b { let m = (a + b) / 2; if sorted[m] < v { a = m + 1 } else { b = m } }
            return a
        }
    }

    func reach(_ starts: Starts) -> Reach {
        // A node whose passing chains start walks also starts one itself (the chain from it
        // passes its ancestors).
        let points = (starts.from + starts.fromAnyPassing).map { entry[$0] }.filter { $0 >= 0 }.sorted()
        var intervals = starts.fromAnyPassing.map { (entry[$0], exit[$0]) }.filter { $0.0 >= 0 }.sorted { $0.0 < $1.0 }
        var merged: [(Int, Int)] = []
        for i in intervals {
            if let last = merged.last, i.0 <= last.1 { merged[merged.count - 1].1 = max(last.1, i.1) } else { merged.append(i) }
        }
        intervals = []
        return Reach(points: points, covered: merged)
    }
}

extension LayoutCompiler {
    /// The warnings about what can never happen in a compiled `layout` (see the file's head).
    /// `onLocations` has where each handler's `on:` kinds were written, by handler index.
    func reachabilityWarnings(_ layout: Layout, onLocations: [Int: [SourceLocation]]) -> [Diagnostic] {
        var out: [Diagnostic] = []
        let tree = ChainTree(layout)
        func warn(_ message: String, _ at: SourceLocation?) { out.append(Diagnostic(message, at: at, severity: .warning)) }
        func location(of handler: HandlerBinding, filter: (EventFilter) -> Bool) -> SourceLocation? {
            if let places = onLocations[handler.index], let i = handler.filters.firstIndex(where: filter), i < places.count { return places[i] }
            return handler.location
        }
        func regionOwner(_ h: HandlerBinding) -> Int? {
            if case .region(let r) = h.owner { return r }
            return nil
        }

        // Actions: where each starts. A gesture's from its region; an `action` handler's from
        // the region of the event it took (any whose chain passes the handler's region). A
        // handler of a screen, display, the application or the fallback may take events from
        // screens presented at run time: its actions may start anywhere (no warning).
        var actionStarts: [String: ChainTree.Starts] = [:]
        var startsAnywhere: Set<String> = []
        var firstSender: [String: String] = [:]
        for (r, region) in layout.regions.enumerated() {
            for g in region.gestures {
                guard let name = g.action else { continue }
                actionStarts[name, default: .init()].from.append(r)
                if firstSender[name] == nil { firstSender[name] = "gesture '\(g.name)' of \(region.path)" }
            }
        }
        for h in layout.handlers where h.pluginType == .action {
            guard let name = h.options["action"]?.string else { continue }
            if let r = regionOwner(h) {
                actionStarts[name, default: .init()].fromAnyPassing.append(r)
                if firstSender[name] == nil { firstSender[name] = "an action handler of \(layout.regions[r].path)" }
            } else {
                startsAnywhere.insert(name)
            }
        }
        var reachByAction: [String: ChainTree.Reach] = [:]
        for h in layout.handlers {
            guard let r = regionOwner(h) else { continue }
            for case .action(let name) in h.filters {
                guard let starts = actionStarts[name], !startsAnywhere.contains(name) else { continue }
                let reach = reachByAction[name] ?? tree.reach(starts)
                reachByAction[name] = reach
                guard !reach.passes(r, in: tree) else { continue }
                warn("the handler for 'action:\(name)' on region '\(layout.regions[r].path)' is on no responder chain the action starts from (it is sent by \(firstSender[name] ?? "?")\(starts.from.count + starts.fromAnyPassing.count > 1 ? " and others" : ""), whose chain does not pass this region): it never gets the action",
                     location(of: h) { $0 == .action(name) })
            }
        }

        // Keys and text start at the first responder. A region can become one when it is
        // `focusable`, or a `focus` handler names it or (without `region:`) takes an event from
        // it. A `focus` handler of a screen, display, the application or the fallback may focus
        // a region of any screen: then no warning (nor for a layout whose UI may focus anything
        // at run time — `evroute ctl focus` — which the config cannot tell).
        var focus = ChainTree.Starts()
        var focusAnywhere = false
        for (r, region) in layout.regions.enumerated() where region.focusable { focus.from.append(r) }
        for h in layout.handlers where h.pluginType == .focus {
            if let name = h.options["region"]?.string {
                let screen: Int? = switch h.owner {
                case .region(let r): layout.regions[r].screen
                case .screen(let s): s
                default: nil
                }
                if let screen, let r = layout.region(named: name, inScreen: screen) { focus.from.append(r) }
                else { focusAnywhere = true }
            } else if h.options["resign"]?.bool != true {
                if let r = regionOwner(h) { focus.fromAnyPassing.append(r) } else { focusAnywhere = true }
            }
        }
        if !focusAnywhere {
            let reach = tree.reach(focus)
            func isKeyOrText(_ f: EventFilter) -> Bool {
                switch f {
                case .key, .keyNamed, .chord, .text: true
                default: false
                }
            }
            for h in layout.handlers where h.filters.contains(where: isKeyOrText) {
                guard let r = regionOwner(h), !reach.passes(r, in: tree) else { continue }
                let kinds = h.filters.filter(isKeyOrText).map(\.description).joined(separator: ", ")
                warn("the handler for \(kinds) on region '\(layout.regions[r].path)' never gets one: keys and text start at the first responder, and no region whose chain passes this one can become first responder (none is focusable: true or focused by a focus handler)",
                     location(of: h, filter: isKeyOrText))
            }
        }

        // Grabbed devices: nothing else on the machine gets their events, so something here must.
        for (i, rule) in layout.spec.devices.enumerated() where rule.grab {
            let display = i < layout.deviceRuleDisplays.count ? layout.deviceRuleDisplays[i] : 0
            func onDisplay(_ h: HandlerBinding) -> Bool {
                switch h.owner {
                case .region(let r): layout.screens[layout.regions[r].screen].display == display
                case .screen(let s): layout.screens[s].display == display
                case .display(let d): d == display
                case .application, .fallback: true
                case .motion: false
                }
            }
            let mine = layout.handlers.filter { onDisplay($0) && $0.accepts(rule: rule.name) }
            let takesTouches = mine.contains { h in
                h.filters.contains { f in
                    switch f {
                    case .touch, .touchBegan, .touchMoved, .touchEnded, .touchCancelled, .tap, .any, .gesture: true
                    default: false
                    }
                }
            } || layout.regions.contains { !$0.gestures.isEmpty && layout.screens[$0.screen].display == display && $0.gestures.contains { $0.action != nil } }
            let takesKeys = mine.contains { h in
                h.filters.contains { f in
                    switch f {
                    case .any: true
                    case .text: rule.text == .line
                    // A forwarder takes a typing key too when its text goes to no one (and
                    // where `text` is taken, the text is). A line collector's keys only make lines.
                    case .key: rule.text != .line
                    default: false
                    }
                }
            }
            // Some keys are taken (one by name, a chord, text), not all: say which are lost.
            let someKeys = mine.flatMap { h in
                h.filters.filter { f in
                    switch f {
                    case .keyNamed, .chord: rule.text != .line
                    case .text: rule.text == .on
                    default: false
                    }
                }
            }
            let kind = rule.kind
            let touchLike = kind == .touchscreen || kind == .touchpad || kind == .tablet
            let keyLike = kind == .keyboard || kind == .key
            if keyLike && !takesKeys && !someKeys.isEmpty {
                let named = Array(Set(someKeys.map(\.description))).sorted().joined(separator: ", ")
                warn("device rule '\(rule.name)' grabs its devices (grab: true), but the handlers on display '\(layout.displays[display].name)' take only \(named) of their keys: every other key (and a typing key where no handler takes text) reaches nothing, and the grab keeps it from everything else; take 'key' somewhere on their chain (a forward handler at the fallback passes them on)",
                     rule.grabLocation ?? rule.location)
                continue
            }
            let what: String? = if touchLike && !takesTouches { "touches" }
                else if keyLike && !takesKeys { rule.text == .line ? "text" : "keys" }
                else if kind == nil && !takesTouches && !takesKeys { "touches or keys" }
                else { nil }
            guard let what else { continue }
            warn("device rule '\(rule.name)' grabs its devices (grab: true), but no handler on display '\(layout.displays[display].name)' takes their \(what): nothing here gets them, and the grab keeps them from everything else",
                 rule.grabLocation ?? rule.location)
        }
        return out
    }
}
