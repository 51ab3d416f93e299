extension Router {
    // MARK: Actions

    /// Sends a named action up the chain (UIKit's nil-targeted `sendAction`): from `region`
    /// when given, else from the first responder of the active screen on `display`, to the
    /// first handler that declares `action:NAME`.
    public func sendAction(_ name: String, fromRegion region: Int? = nil, display: Int = 0, time: Timestamp? = nil) {
        let t = time ?? clock.now
        clock.advance(to: t)
        guard actionDepth < 8 else { return }
        actionDepth += 1
        defer { actionDepth -= 1 }
        var start: ResponderID?
        var startRegion = region
        var d = display
        if let region {
            start = .region(region)
            d = layout.screens[layout.regions[region].screen].display
        } else if d < presentationState.stacks.count, let screen = presentationState.stacks[d].last {
            if let fr = presentationState.firstResponders[screen] { start = .region(fr); startRegion = fr } else { start = .screen(screen) }
        } else if d < layout.displays.count {
            start = .display(d)
        }
        walk(RoutedEvent(kind: .action(name), time: t, layout: layout, display: d, start: start, region: startRegion))
    }

    // MARK: Focus

    /// Makes `region` (current layout) the first responder of its screen. A region that is
    /// hidden or disabled, itself or an ancestor, takes no input and cannot become first
    /// responder: nothing changes then (see ``Layout/focusBlock(of:)``).
    public func setFirstResponder(_ region: Int?, inScreen screen: Int? = nil, time: Timestamp? = nil) {
        let s = screen ?? region.map { layout.regions[$0].screen }
        guard let s, presentationState.firstResponders[s] != region else { return }
        if let region, layout.focusBlock(of: region) != nil { return }
        presentationState.firstResponders[s] = region
        emit(.focus(screen: s, region: region, layout: layout, time: time ?? clock.now))
    }

    // MARK: Presentation

    /// Presents `screen` over the active screen of its display: it becomes active, and its
    /// unhandled events go on to the screen that presented it.
    public func present(screen: Int, time: Timestamp? = nil) {
        let d = layout.screens[screen].display
        guard !presentationState.stacks[d].contains(screen) else { return }
        let over = presentationState.stacks[d].last
        presentationState.stacks[d].append(screen)
        emit(.presentation(screen: screen, over: over, presented: true, layout: layout, time: time ?? clock.now))
    }

    /// Dismisses the top presented screen of a display (the root screen stays).
    public func dismiss(display: Int, time: Timestamp? = nil) {
        guard presentationState.stacks[display].count > 1, let top = presentationState.stacks[display].popLast() else { return }
        emit(.presentation(screen: top, over: presentationState.stacks[display].last, presented: false, layout: layout, time: time ?? clock.now))
    }

    /// Makes `screen` the only screen of its display (no presentation).
    public func show(screen: Int, time: Timestamp? = nil) {
        let d = layout.screens[screen].display
        presentationState.stacks[d] = [screen]
        emit(.presentation(screen: screen, over: nil, presented: true, layout: layout, time: time ?? clock.now))
    }

    /// Runs a built-in handler (`action`, `focus`, `present`, `dismiss`) that took `event`. An
    /// event of an older layout (a touch that began before a layout change) acts on the current
    /// layout's region with the same path, and on nothing when that region is gone.
    func performBuiltIn(_ handler: HandlerBinding, for event: RoutedEvent) {
        guard handler.isBuiltIn else { return }
        let l = event.layout
        var region: Int?
        if let r = event.region {
            guard let current = currentRegion(r, of: l) else { return }
            region = current
        }
        let display = l === layout ? event.display : event.display.flatMap { layout.display(named: l.displays[$0].name) }
        switch handler.pluginType {
        case .action:
            guard let name = handler.options["action"]?.string else { return }
            sendAction(name, fromRegion: region, display: display ?? 0, time: event.time)
        case .focus:
            if let name = handler.options["region"]?.string,
               let r = region ?? firstRegion(ofHandler: handler).flatMap({ currentRegion($0, of: l) }) {
                let screen = layout.regions[r].screen
                setFirstResponder(layout.region(named: name, inScreen: screen), inScreen: screen, time: event.time)
            } else if handler.options["resign"]?.bool == true, let r = region {
                setFirstResponder(nil, inScreen: layout.regions[r].screen, time: event.time)
            } else if let r = region {
                setFirstResponder(r, time: event.time)
            }
        case .present:
            if let name = handler.options["screen"]?.string, let s = layout.screen(named: name) {
                present(screen: s, time: event.time)
            }
        case .dismiss:
            if let d = display { dismiss(display: d, time: event.time) }
        default:
            break   // hosted types: the plugin host's
        }
    }

    func firstRegion(ofHandler handler: HandlerBinding) -> Int? {
        if case .region(let r) = handler.owner { return r }
        return nil
    }
}
