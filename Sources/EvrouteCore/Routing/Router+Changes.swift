/// A region's entry in ``Router/overrides``: what the state shows, and the values the first
/// change of each kind replaced (so a change that puts a value back clears its override).
struct OverrideEntry {
    var current: RegionOverride
    var loadedHidden: Bool?
    var loadedInteractive: Bool?
    var loadedFrame: Rect?
}

extension Router {
    // MARK: Run-time changes (docs/ui-control.md)

    /// Applies one run-time change between events, all or nothing.
    ///
    /// The router's clock first advances to `time` (firing due recognizer timers, as any event
    /// does); the change is then checked against the state at that time and refused, changing
    /// nothing, with an error that names the region, screen or display; or applied whole:
    /// - `present`, `dismiss`, `focus`, `resign` and `action` use ``present(screen:time:)``,
    ///   ``dismiss(display:time:)``, ``setFirstResponder(_:inScreen:time:)`` and
    ///   ``sendAction(_:fromRegion:display:time:)``, and record what those record (one
    ///   `presentation`, `focus` or routed action record).
    /// - Region changes edit a copy of the layout's spec, compile it, and swap the result in the
    ///   way a reload does (``swapLayout(to:time:)``): touches in flight keep their region and
    ///   chain in the layout they began in; a touch whose region is gone (`children`) is
    ///   cancelled, once; new touches hit-test the new layout at once. One `regionChanged`
    ///   record follows (after the cancelled touches' records, before a `focus` record for each
    ///   first responder the change took away: a region hidden, disabled or removed — itself or
    ///   an ancestor — cannot hold focus, as UIKit delivers no input to it; showing it again
    ///   does not give focus back).
    ///
    /// A change already in effect (hiding a hidden region, focusing the first responder,
    /// resigning when there is none) succeeds and records nothing. `children` always applies.
    public func apply(_ change: LayoutChange, time: Timestamp) throws(LayoutChangeError) {
        advanceTime(to: time)
        switch change {
        case .present(let name):
            let s = try screen(named: name)
            let d = layout.screens[s].display
            if presentationState.stacks[d].contains(s) {
                throw .alreadyPresented(screen: name, display: layout.displays[d].name,
                                        stack: presentationState.stacks[d].map { layout.screens[$0].name })
            }
            present(screen: s, time: time)
        case .dismiss(let name):
            let d = try display(named: name)
            guard presentationState.stacks[d].count > 1 else {
                throw .nothingPresented(display: layout.displays[d].name, screen: presentationState.stacks[d].first.map { layout.screens[$0].name })
            }
            dismiss(display: d, time: time)
        case .focus(let path):
            let r = try region(path: path)
            if let block = layout.focusBlock(of: r) {
                throw .cannotFocus(path: path, blocker: layout.regions[block.region].path, reason: block.reason)
            }
            setFirstResponder(r, time: time)
        case .resign(let name):
            let d = try display(named: name)
            guard let s = presentationState.stacks[d].last, presentationState.firstResponders[s] != nil else { return }
            setFirstResponder(nil, inScreen: s, time: time)
        case .action(let name, let from):
            var start: Int?
            if let from { start = try region(path: from) }
            sendAction(name, fromRegion: start, display: 0, time: time)
        case .hide(let path):
            try changeRegion(path, .hidden, time: time) { $0.hidden = true }
        case .show(let path):
            try changeRegion(path, .shown, time: time) { $0.hidden = false }
        case .disable(let path):
            try changeRegion(path, .disabled, time: time) { $0.interactive = false }
        case .enable(let path):
            try changeRegion(path, .enabled, time: time) { $0.interactive = true }
        case .frame(let path, let frame):
            let f = frame
            guard LayoutLimits.contains(frame: f) else {
                _ = try region(path: path)
                throw .invalidFrame(path: path, frame)
            }
            try changeRegion(path, .frame, time: time) { $0.frame = frame }
        case .children(let path, let children):
            try changeRegion(path, .children, time: time) { $0.regions = children }
        }
    }

    /// Regions changed since the config was loaded, in layout order. A reload
    /// (``replaceLayout(_:time:)``) clears them; a change that puts a value back clears its part.
    public var regionOverrides: [RegionOverride] {
        overrides.values.map(\.current).sorted {
            (layout.region(path: $0.path) ?? Int.max, $0.path) < (layout.region(path: $1.path) ?? Int.max, $1.path)
        }
    }

    /// A display's presentation stack: screens, bottom (its root screen) to top (the active one).
    public func presentationStack(onDisplay display: Int) -> [Int] { presentationState.stacks[display] }

    /// The presentation stacks, first responders and changed regions, by name.
    public var state: RouterState {
        let displays = layout.displays.indices.map { d in
            RouterState.Display(name: layout.displays[d].name, stack: presentationState.stacks[d].map { layout.screens[$0].name },
                                firstResponder: presentationState.stacks[d].last.flatMap { presentationState.firstResponders[$0] }.map { layout.regions[$0].path })
        }
        let screens = layout.screens.indices.map { s in
            RouterState.Screen(name: layout.screens[s].name, display: layout.displays[layout.screens[s].display].name,
                               firstResponder: presentationState.firstResponders[s].map { layout.regions[$0].path })
        }
        return RouterState(displays: displays, screens: screens, changedRegions: regionOverrides)
    }

    // MARK: Region changes

    /// Edits the region's spec in a copy of the layout's, compiles it, swaps it in, records it.
    func changeRegion(_ path: String, _ kind: RegionChangeKind, time: Timestamp,
                      edit: (inout RegionSpec) -> Void) throws(LayoutChangeError) {
        let r = try region(path: path)
        let screen = layout.regions[r].screen
        // Where the region is in the spec: child positions from the screen's root down.
        var positions: [Int] = []
        var cur = r
        while let parent = layout.regions[cur].parent {
            positions.append(layout.regions[parent].children.firstIndex(of: cur) ?? 0)
            cur = parent
        }
        var spec = layout.spec
        var before: RegionSpec?
        var after: RegionSpec?
        Router.modify(&spec.screens[screen].root, at: Array(positions.reversed())[...]) { region in
            before = region
            edit(&region)
            after = region
        }
        guard let before, let after else { return }
        if kind != .children && before == after { return }
        let new: Layout
        do {
            new = try Layout.compile(spec, pluginTypes: layout.pluginTypes, keyNames: layout.keyNames)
        } catch {
            throw .doesNotCompile(path: path, change: kind, errors: error.errors)
        }
        let swap = swapLayout(to: new, time: time)
        recordOverride(path: path, kind, before: before, after: after)
        emit(.regionChanged(path: path, change: kind, layout: new, time: time, cancelledTouches: swap.cancelled))
        for s in swap.unfocused {
            emit(.focus(screen: s, region: nil, layout: new, time: time))
        }
    }

    static func modify(_ region: inout RegionSpec, at positions: ArraySlice<Int>, _ body: (inout RegionSpec) -> Void) {
        guard let i = positions.first else { body(&region); return }
        modify(&region.regions[i], at: positions.dropFirst(), body)
    }

    /// Notes what a region change changed against the config (or, below replaced children,
    /// against those children as given).
    func recordOverride(path: String, _ kind: RegionChangeKind, before: RegionSpec, after: RegionSpec) {
        var e = overrides[path] ?? OverrideEntry(current: RegionOverride(path: path))
        switch kind {
        case .hidden, .shown:
            let loaded = e.loadedHidden ?? before.hidden
            e.loadedHidden = loaded
            e.current.hidden = after.hidden == loaded ? nil : after.hidden
        case .disabled, .enabled:
            let loaded = e.loadedInteractive ?? before.interactive
            e.loadedInteractive = loaded
            e.current.interactive = after.interactive == loaded ? nil : after.interactive
        case .frame:
            let loaded = e.loadedFrame ?? before.frame
            e.loadedFrame = loaded
            e.current.frame = after.frame == loaded ? nil : after.frame
        case .children:
            e.current.childrenReplaced = true
            // Regions below are the new children now; what was changed there is gone with them.
            let below = path + "/"
            for key in overrides.keys where key.hasPrefix(below) { overrides[key] = nil }
        }
        overrides[path] = e.current.isEmpty ? nil : e
    }

    // MARK: Names

    func region(path: String) throws(LayoutChangeError) -> Int {
        if let r = layout.region(path: path) { return r }
        // The right name at the wrong place: the region of that name, when only one has it;
        // else a misspelt path.
        var suggestion: String?
        if let last = path.split(separator: "/").last {
            let named = layout.regions.filter { $0.name == last }
            if named.count == 1 { suggestion = named[0].path }
        }
        throw .unknownRegion(path: path, suggestion: suggestion ?? Spelling.closest(to: path, in: layout.regions.map(\.path)))
    }

    func screen(named name: String) throws(LayoutChangeError) -> Int {
        if let s = layout.screen(named: name) { return s }
        let names = layout.screens.map(\.name)
        throw .unknownScreen(name: name, screens: names, suggestion: Spelling.closest(to: name, in: names))
    }

    /// A display by name; nil: the first display.
    func display(named name: String?) throws(LayoutChangeError) -> Int {
        let names = layout.displays.map(\.name)
        guard let name else {
            if names.isEmpty { throw .unknownDisplay(name: nil, displays: [], suggestion: nil) }
            return 0
        }
        if let d = layout.display(named: name) { return d }
        throw .unknownDisplay(name: name, displays: names, suggestion: Spelling.closest(to: name, in: names))
    }
}

extension Layout {
    /// Why `region` cannot be first responder, if it cannot: the nearest of it and its
    /// ancestors that is hidden or disabled (`interactive: false`) takes no input, so neither
    /// does its subtree (UIKit: a hidden view receives no input events; events meant for a
    /// view with user interaction disabled are dropped). `focusable` is not required: it says
    /// only that a touch ending on the region focuses it; plugins and the UI may focus any region.
    public func focusBlock(of region: Int) -> (region: Int, reason: FocusBlock)? {
        var cur: Int? = region
        while let r = cur {
            if regions[r].hidden { return (r, .hidden) }
            if !regions[r].interactive { return (r, .disabled) }
            cur = regions[r].parent
        }
        return nil
    }
}
