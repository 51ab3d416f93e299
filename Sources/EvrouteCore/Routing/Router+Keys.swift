extension Router {
    /// Routes a key event from the first responder of the active screen on the keyboard's
    /// display (else the screen, else the display). A key stays with the responder it went
    /// down on; an up or repeat without a down is dropped, as libinput does.
    ///
    /// UIKit's rule: a press walks the chain as a press; it is text only when the keyboard's
    /// chain has a handler that takes `text` and no Ctrl, Alt or Super is held (a chord is a
    /// key). Returns whether the key's text, if any, is to be routed after it (a down, or a
    /// repeat, of a key that is text).
    @discardableResult
    public func handle(_ key: KeyInput) -> Bool {
        advanceTime(to: key.time)
        // Input: an idle display becomes active first (a waking key is routed: only a touch is swallowed).
        _ = noteInput(device: key.device, time: key.time)
        let k = KeyKey(device: key.device, code: key.code)
        switch key.phase {
        case .down:
            if let held = keyState.held[k] {
                // A second down without an up: treat as a repeat of the held key.
                if held.forwardedTo != nil || held.released { return false }
                var repeated = key
                repeated.phase = .repeat
                routeKey(repeated, held: held)
                return held.isText
            }
            let display = devices[key.device]?.display ?? 0
            let (start, region) = keyboardStart(display: display)
            var held = HeldKey(name: key.name, start: start, region: region, layout: layout, display: display)
            held.modifiers = heldModifiers(of: key.device)
            if let info = devices[key.device]?.info, info.typesText, KeyNames.isTyping(key.name),
               !heldModifiers(of: key.device, rightAltTypes: info.rightAltTypes).makesChord, let start {
                held.isText = layout.firstTaker(of: .text, from: start, device: info, presentation: presentation, afterHandler: nil) != nil
            }
            keyState.held[k] = held
            if !held.modifiers.isEmpty, let start { pressReleasedModifiers(for: key, held: held, start: start) }
            let taker = routeKey(key, held: held)
            if let taker, held.layout.handlers[taker.handler].forwards {
                keyState.held[k]?.forwardedTo = taker
            } else if !held.modifiers.isEmpty {
                releaseForwardedModifiers(of: key.device, time: key.time)
            }
            return held.isText
        case .repeat:
            guard let held = keyState.held[k], held.forwardedTo == nil, !held.released else { return false }
            routeKey(key, held: held)
            return held.isText
        case .up, .cancelled:
            guard let held = keyState.held.removeValue(forKey: k), !held.released else { return false }
            routeKey(key, held: held)
            return false
        }
    }

    /// A key goes down with modifiers held whose forwarded down was released (a chord of theirs
    /// was kept): when a forwarder takes this key, they go down again at it first, so that the
    /// forwarded side sees the chord as it is held (Ctrl+W kept, Ctrl still held, then Ctrl+C
    /// forwarded: Ctrl down, C down).
    func pressReleasedModifiers(for key: KeyInput, held: HeldKey, start: ResponderID) {
        let released = keyState.held.filter { $0.key.device == key.device && $0.value.released }
        guard !released.isEmpty else { return }
        let state = devices[key.device]
        let info = held.isText ? state?.info : state?.keyInfo
        guard let taker = held.layout.firstTaker(of: .key(name: key.name, phase: .down), from: start, device: info,
                                                 presentation: presentation, afterHandler: nil, modifiers: held.modifiers),
              held.layout.handlers[taker.handler].forwards else { return }
        for (mk, var m) in released.sorted(by: { $0.key.code < $1.key.code }) {
            m.released = false
            m.forwardedTo = taker
            keyState.held[mk] = m
            routeKey(KeyInput(device: key.device, time: key.time, code: mk.code, name: m.name, phase: .down), held: m)
        }
    }

    /// The chord modifiers held on a keyboard now (either side's key); Right Alt left out where
    /// `rightAltTypes` (AltGr: a key pressed with it is text, not a chord).
    func heldModifiers(of device: DeviceID, rightAltTypes: Bool = false) -> KeyModifiers {
        var mods: KeyModifiers = []
        for k in keyState.held.keys where k.device == device && !(rightAltTypes && k.code == 100) {
            mods.formUnion(KeyModifiers.of(code: k.code))
        }
        return mods
    }

    /// A chord's partner was kept (not forwarded) while its modifiers went to a forwarder: each
    /// such modifier's up goes to its forwarder now (the forwarded side is to see no chord it
    /// did not get whole, and no key is left down behind it); its real up later is not routed.
    func releaseForwardedModifiers(of device: DeviceID, time: Timestamp) {
        let mine = keyState.held.filter { $0.key.device == device && $0.value.forwardedTo != nil && !KeyModifiers.of(code: $0.key.code).isEmpty }
        for (k, held) in mine.sorted(by: { $0.key.code < $1.key.code }) {
            keyState.held[k]?.released = true
            keyState.held[k]?.forwardedTo = nil
            routeKey(KeyInput(device: device, time: time, code: k.code, name: held.name, phase: .up), held: held)
        }
    }

    /// Where a keyboard's events start on `display`: the first responder of its active screen
    /// (and that region), else the screen, else the display.
    func keyboardStart(display: Int) -> (start: ResponderID?, region: Int?) {
        if display < presentationState.stacks.count, let screen = presentationState.stacks[display].last {
            if let fr = presentationState.firstResponders[screen] { return (.region(fr), fr) }
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
        var key = key
        key.modifiers = held.modifiers
        let state = devices[key.device]
        let event = RoutedEvent(kind: .key(name: key.name, phase: key.phase), time: key.time, layout: held.layout,
                                display: held.display, start: held.start, region: held.region,
                                device: held.isText ? state?.info : state?.keyInfo, key: key)
        if let bound = held.forwardedTo { return walk(event, first: .bound(bound)) }
        return walk(event)
    }
}
