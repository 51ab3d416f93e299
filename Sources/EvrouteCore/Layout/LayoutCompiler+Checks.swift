// The compiler's checks of what a config's names and options refer to: plugin types by name
// (their options are checked by the hosted types' own checks, handed in through the
// ``PluginTypeTable``, once, for `check`, start and reload alike), handler targets and the
// routing built-ins' options, and warnings.

extension LayoutCompiler {
    mutating func warn(_ message: String, _ location: SourceLocation?) {
        warnings.append(Diagnostic(message, at: location, severity: .warning))
    }

    /// ` (first defined at line L)` for a duplicate (the whole place when in another file).
    func firstDefined(_ first: SourceLocation?, _ here: SourceLocation?) -> String {
        guard let first else { return "" }
        return first.file == here?.file ? " (first defined at line \(first.line))" : " (first defined at \(first))"
    }

    /// `; did you mean 'X'?` when `word` is a likely typo of one of `candidates`.
    func guess(_ word: String, in candidates: [String], prefix: String = "") -> String {
        // Spelling compares the word in lower case: compare lower-cased candidates, answer as written.
        let lower = candidates.map { $0.lowercased() }
        guard let hit = Spelling.closest(to: word, in: lower), let i = lower.firstIndex(of: hit) else { return "" }
        return "; did you mean '\(prefix)\(candidates[i])'?"
    }

    // MARK: Plugin options

    /// The typed options of a plugin instance (its hosted type's check); errors for an unknown
    /// type, and the check's own.
    mutating func checkOptions(of p: PluginSpec) -> (any Sendable)? {
        if p.type.isRoutingBuiltIn { return nil }
        guard catalog.hosted.contains(p.type) else {
            let names = catalog.typeNames.map(\.rawValue)
            error("unknown plugin type '\(p.type)' (expected one of: \(names.joined(separator: ", ")))\(guess(p.type.rawValue, in: names))", p.location)
            return nil
        }
        let checked = catalog.checkPlugin(p)
        errors += checked.errors
        return checked.options
    }

    // MARK: Handlers

    /// `key:NAME` must be a key the handed-in table names (``KeyNaming``); `gesture:NAME` a gesture of the layout.
    mutating func checkTargets(of h: HandlerSpec) {
        for (i, filter) in h.on.enumerated() {
            let at = i < h.onLocations.count ? h.onLocations[i] : h.location
            switch filter {
            case .keyNamed(let name) where name.contains("+") && KeyChord.problem(in: name) != nil:
                let mods = KeyModifiers.names.map(\.name)
                switch KeyChord.problem(in: name)! {
                case .unknownModifier(let m):
                    error("unknown modifier '\(m)' in chord 'key:\(name)' (modifiers: \(mods.joined(separator: ", ")), joined by '+' before the key, e.g. key:ctrl+KEY_W)\(guess(m, in: mods, prefix: ""))", at)
                case .repeatedModifier(let m):
                    error("modifier '\(m)' is named twice in chord 'key:\(name)'", at)
                case .missingKey:
                    error("chord 'key:\(name)' names no key after its last '+' (e.g. key:ctrl+KEY_W)", at)
                }
            case .chord(_, let key) where !keyNames.isKnown(key):
                error("unknown key '\(key)' in chord '\(filter)' (not a key name of libevdev's table, e.g. KEY_W, KEY_F4)\(guess(keyNames.canonicalName(of: key) ?? key, in: keyNames.allNames, prefix: ""))", at)
            case .keyNamed(let name) where !keyNames.isKnown(name):
                if let canonical = keyNames.canonicalName(of: name) {
                    error("key '\(name)' is named '\(canonical)' by libevdev (the name its events carry): write 'key:\(canonical)'", at)
                } else {
                    error("unknown key '\(name)' in 'on' (not a key name of libevdev's table, e.g. KEY_ENTER, KEY_F12, BTN_LEFT)\(guess(name, in: keyNames.allNames, prefix: "key:"))", at)
                }
            case .gesture(let name) where !gestureNames.contains(name):
                let declared = gestureNames.isEmpty ? "the layout declares no gestures" : "gestures: \(gestureNames.joined(separator: ", "))"
                error("unknown gesture '\(name)' in 'on' (\(declared))\(guess(name, in: gestureNames, prefix: "gesture:"))", at)
            default: break
            }
        }
        // `devices:` names device rules of the layout.
        // Each once (a duplicate is an error at it, naming the first).
        guard let devices = h.devices else { return }
        let rules = spec.devices.map(\.name)
        let known = Set(rules)
        var seen: [String: Int] = [:]
        for (i, name) in devices.enumerated() {
            let at = i < h.deviceLocations.count ? h.deviceLocations[i] : h.location
            if let first = seen[name] {
                let firstAt = first < h.deviceLocations.count ? h.deviceLocations[first] : nil
                error("device rule '\(name)' is named twice in 'devices'\(firstAt.map { " (first at \($0.line):\($0.column))" } ?? ""); name each rule once", at)
                continue
            }
            seen[name] = i
            guard !known.contains(name) else { continue }
            let declared = rules.isEmpty ? "the layout declares no device rules" : "device rules: \(rules.joined(separator: ", "))"
            error("unknown device rule '\(name)' in 'devices' (\(declared))\(guess(name, in: rules))", at)
        }
        if h.on.allSatisfy({ if case .action = $0 { true } else if case .gesture = $0 { true } else { false } }) {
            warn("a handler with 'devices:' takes only events of those devices: actions and gesture events come from no one device, so it never takes any",
                 h.deviceLocations.first ?? h.location)
        }
    }

    /// The options a handler's plugin reads itself: a hosted type's own check (which may keep
    /// typed options per handler, and says whether the handler forwards; returned), or a routing
    /// built-in's (typed; targets that exist), and warnings for options its plugin will not read.
    mutating func checkHandlerOptions(_ h: HandlerSpec, type: PluginKind, owner: ResponderID, index: Int) -> HandlerCheckResult? {
        func at(_ key: String) -> SourceLocation? { h.optionLocations[key] ?? h.location }
        if catalog.hosted.contains(type) {
            let checked = catalog.checkHandler(h, type, spec.plugins.first { $0.name == h.plugin }, pluginOptions[h.plugin])
            errors += checked.errors
            warnings += checked.warnings
            pluginErrors += checked.runErrors
            if let o = checked.options { handlerOptions[index] = o }
            return checked
        }
        switch type {
        case .action:
            actionLocations[index] = h.optionLocations["action"]
            if h.options["action"]?.string.map({ !$0.isEmpty }) != true { error("an 'action' handler needs 'action: NAME'", at("action")) }
        case .focus:
            if let v = h.options["resign"], v.bool == nil { error("'resign' of a 'focus' handler must be true or false", at("resign")) }
            guard let v = h.options["region"] else { break }
            guard let name = v.string, !name.isEmpty else { error("'region' of a 'focus' handler must be a region name", at("region")); break }
            let screen: Int? = switch owner {
            case .region(let r): regions[r].screen
            case .screen(let s): s
            default: nil
            }
            var seen: Set<String> = []
            let candidates = (screen.map { regionNames[$0] } ?? Array(regionNames.joined())).filter { seen.insert($0).inserted }
            if !candidates.contains(name) {
                let scope = screen.map { "regions of screen '\(spec.screens[$0].name)'" } ?? "regions"
                error("unknown region '\(name)' for 'focus' (\(scope): \(candidates.joined(separator: ", ")))\(guess(name, in: candidates))", at("region"))
            }
        case .present:
            if let name = h.options["screen"]?.string {
                if screenIndex[name] == nil {
                    let names = spec.screens.map(\.name)
                    error("unknown screen '\(name)' for 'present' (screens: \(names.joined(separator: ", ")))\(guess(name, in: names))", at("screen"))
                }
            } else {
                error("a 'present' handler needs 'screen: NAME'", at("screen"))
            }
        default: break
        }
        // A routing built-in's (an unknown type's reads none, and is already an error).
        let reads = type.routingHandlerOptionKeys
        for key in h.options.keys.sorted() where !reads.contains(key) {
            let readList = reads.isEmpty ? "it reads none" : "it reads: \(reads.joined(separator: ", "))"
            if let g = Spelling.closest(to: key, in: reads) {
                warn("handler option '\(key)' is not read by the \(type) plugin (\(readList)); did you mean '\(g)'?", at(key))
            }
        }
        return nil
    }

    /// Every action sent (by an `action` handler or a gesture's `action:`) must be one some
    /// handler takes (`on: action:NAME`, or `any`), or it could only end unhandled.
    mutating func checkActionTargets() {
        var taken: Set<String> = []
        var takesAny = false
        for f in handlers.flatMap(\.filters) + unboundFilters {
            if case .action(let n) = f { taken.insert(n) }
            if f == .any { takesAny = true }
        }
        guard !takesAny else { return }
        let list = taken.isEmpty ? "no handler takes actions" : "actions handled: \(taken.sorted().joined(separator: ", "))"
        for b in handlers where b.pluginType == .action {
            guard let name = b.options["action"]?.string, !name.isEmpty, !taken.contains(name) else { continue }
            let at = actionLocations[b.index] ?? b.location
            error("no handler takes action '\(name)' (none has 'on: action:\(name)' or 'any'; \(list))\(guess(name, in: taken.sorted(), prefix: ""))", at)
        }
        for r in regions { for g in r.gestures {
            guard let name = g.action, !taken.contains(name) else { continue }
            error("no handler takes action '\(name)' of gesture '\(g.name)' (none has 'on: action:\(name)' or 'any'; \(list))\(guess(name, in: taken.sorted()))", g.location)
        } }
    }

    // MARK: Warnings

    /// A child whose frame reaches outside its parent's: hit-testing never enters a child
    /// through a point outside its parent, so that part cannot be touched.
    mutating func checkInsideParent(_ child: RegionSpec, parent: RegionNode) {
        let f = child.frame, size = parent.frame.size
        guard f.minX < 0 || f.minY < 0 || f.maxX > size.width || f.maxY > size.height else { return }
        warn("region '\(child.name)' sticks out of its parent '\(parent.name)' (frame \(describe(f)) in a parent of \(number(size.width))×\(number(size.height))): the part outside cannot be hit",
             child.nameLocation ?? child.location)
    }

    /// A root region that does not cover exactly its display.
    mutating func checkRootFrame(_ s: ScreenSpec, display d: DisplaySpec) {
        let full = Rect(x: 0, y: 0, width: d.size.width, height: d.size.height)
        guard s.root.frame != full else { return }
        warn("root region '\(s.root.name)' of screen '\(s.name)' has frame \(describe(s.root.frame)), but display '\(d.name)' is \(number(d.size.width))×\(number(d.size.height)) (expected \(describe(full)))",
             s.root.nameLocation ?? s.root.location)
    }

    func describe(_ r: Rect) -> String {
        "[\(number(r.minX)), \(number(r.minY)), \(number(r.size.width)), \(number(r.size.height))]"
    }

    func number(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v)
    }
}
