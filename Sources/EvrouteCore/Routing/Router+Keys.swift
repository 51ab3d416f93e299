extension Router {
    /// Routes a key event from the first responder of the active screen on the keyboard's
    /// display (else the screen, else the display). A key stays with the responder it went
    /// down on; an up or repeat without a down is dropped, as libinput does.
    public func handle(_ key: KeyInput) {
        advanceTime(to: key.time)
        // Input: an idle display becomes active first (a waking key is routed: only a touch is swallowed).
        _ = noteInput(device: key.device, time: key.time)
        let k = KeyKey(device: key.device, code: key.code)
        switch key.phase {
        case .down:
            if let held = heldKeys[k] {
                // A second down without an up: treat as a repeat of the held key.
                if held.forwardedTo != nil { return }
                var repeated = key
                repeated.phase = .repeat
                routeKey(repeated, held: held)
                return
            }
            let display = devices[key.device]?.display ?? 0
            let (start, region) = keyboardStart(display: display)
            let held = HeldKey(name: key.name, start: start, region: region, layout: layout, display: display)
            heldKeys[k] = held
            if let taker = routeKey(key, held: held), held.layout.handlers[taker.handler].forwards {
                heldKeys[k]?.forwardedTo = taker
            }
        case .repeat:
            guard let held = heldKeys[k], held.forwardedTo == nil else { return }
            routeKey(key, held: held)
        case .up, .cancelled:
            guard let held = heldKeys.removeValue(forKey: k) else { return }
            routeKey(key, held: held)
        }
    }

    /// Where a keyboard's events start on `display`: the first responder of its active screen
    /// (and that region), else the screen, else the display.
    func keyboardStart(display: Int) -> (start: ResponderID?, region: Int?) {
        if display < screenStacks.count, let screen = screenStacks[display].last {
            if let fr = firstResponders[screen] { return (.region(fr), fr) }
            return (.screen(screen), nil)
        }
        if display < layout.displays.count { return (.display(display), nil) }
        return (nil, nil)
    }

    /// Routes text a keyboard typed (UIKit's `insertText`) from the first responder of the
    /// active screen on the keyboard's display (else the screen, else the display), like a
    /// key going down; the first handler that declares `text` (or `any`) takes it.
    public func handle(_ text: TextInput) {
        advanceTime(to: text.time)
        _ = noteInput(device: text.device, time: text.time)
        let display = devices[text.device]?.display ?? 0
        let (start, region) = keyboardStart(display: display)
        walk(RoutedEvent(kind: .text, time: text.time, layout: layout, display: display, start: start, region: region,
                         device: devices[text.device]?.info, text: text.text))
    }

    /// Walks a key event up its chain (a forwarded key's up and cancel go straight to the
    /// handler that took its down); returns the handler that took it.
    @discardableResult
    func routeKey(_ key: KeyInput, held: HeldKey) -> Taker? {
        let event = RoutedEvent(kind: .key(name: key.name, phase: key.phase), time: key.time, layout: held.layout,
                                display: held.display, start: held.start, region: held.region,
                                device: devices[key.device]?.info, key: key)
        if let bound = held.forwardedTo { return walk(event, first: .known(bound)) }
        return walk(event)
    }
}
