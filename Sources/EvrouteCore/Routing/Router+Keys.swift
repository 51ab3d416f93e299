extension Router {
    /// Routes a key event from the first responder of the active screen on the keyboard's
    /// display (else the screen, else the display). A key stays with the responder it went
    /// down on; an up or repeat without a down is dropped, as libinput does.
    public func handle(_ key: KeyInput) {
        advanceTime(to: key.time)
        let k = KeyKey(device: key.device, code: key.code)
        switch key.phase {
        case .down:
            if let held = heldKeys[k] {
                // A second down without an up: treat as a repeat of the held key.
                var repeated = key
                repeated.phase = .repeat
                routeKey(repeated, held: held)
                return
            }
            let display = devices[key.device]?.display ?? 0
            var held = HeldKey(name: key.name, start: nil, region: nil, layout: layout, display: display)
            if display < screenStacks.count, let screen = screenStacks[display].last {
                if let fr = firstResponders[screen] {
                    held.start = .region(fr)
                    held.region = fr
                } else {
                    held.start = .screen(screen)
                }
            } else if display < layout.displays.count {
                held.start = .display(display)
            }
            heldKeys[k] = held
            routeKey(key, held: held)
        case .repeat:
            guard let held = heldKeys[k] else { return }
            routeKey(key, held: held)
        case .up, .cancelled:
            guard let held = heldKeys.removeValue(forKey: k) else { return }
            routeKey(key, held: held)
        }
    }

    func routeKey(_ key: KeyInput, held: HeldKey) {
        let event = RoutedEvent(kind: .key(name: key.name, phase: key.phase), time: key.time, layout: held.layout,
                                display: held.display, start: held.start, region: held.region,
                                device: devices[key.device]?.info, key: key)
        walk(event)
    }
}
