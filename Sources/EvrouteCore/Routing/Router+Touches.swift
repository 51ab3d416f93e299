extension Router {
    /// Routes one frame of touch changes from one device (UIEvent).
    public func handle(_ frame: TouchFrameInput) {
        advanceTime(to: frame.time)
        // Input on an idle display sends `active` first; the touch that woke it may be swallowed.
        let swallowWake = idleState.isWatching && noteTouchInput(frame)
        gestures.inFrame = true
        defer {
            gestures.inFrame = false
            if !gestures.moved.isEmpty || !gestures.changed.isEmpty { finishFrame(time: frame.time) }
        }
        for sample in frame.contacts {
            let key = TouchKey(device: frame.device, contact: sample.contact)
            // A point that is not finite cannot be hit-tested or reported (the input layer
            // drops such samples and warns; this is the core's own guard): a touch does not
            // begin or move there, and ends where it last was.
            guard sample.location.isFinite else {
                if sample.change == .ended || sample.change == .cancelled, touchState.table[key] != nil {
                    finishTouch(key, change: sample.change, location: nil, time: frame.time, sample: sample)
                } else if sample.change == .ended || sample.change == .cancelled, !touchState.orphaned.isEmpty {
                    touchState.orphaned.remove(key)
                }
                continue
            }
            switch sample.change {
            case .began:
                if swallowWake {
                    swallowWakeTouch(key, sample, time: frame.time)
                    continue
                }
                if !touchState.orphaned.isEmpty { touchState.orphaned.remove(key) }
                if touchState.table[key] != nil {
                    finishTouch(key, change: .cancelled, location: nil, time: frame.time, sample: nil)
                }
                beginTouch(key, sample: sample, time: frame.time)
            case .moved:
                if let i = touchState.table.index(forKey: key) {
                    moveTouch(at: i, sample: sample, time: frame.time)
                } else if touchState.orphaned.isEmpty || !touchState.orphaned.contains(key) {
                    // A contact we never saw begin (a replay that starts mid-touch): it begins now.
                    beginTouch(key, sample: sample, time: frame.time)
                }
            case .ended, .cancelled:
                if sample.change == .cancelled, !idleState.heldContacts.isEmpty { idleState.heldContacts.remove(key) }
                if touchState.table[key] != nil {
                    finishTouch(key, change: sample.change, location: sample.location, time: frame.time, sample: sample)
                } else if !touchState.orphaned.isEmpty {
                    touchState.orphaned.remove(key)
                }
            }
        }
    }

    func beginTouch(_ key: TouchKey, sample: ContactSample, time: Timestamp) {
        let device = devices[key.device]
        let display = device?.display ?? 0
        let screen = presentationState.activeScreen(onDisplay: display)
        let region = screen.flatMap { layout.hitTest(sample.location, inScreen: $0) }

        var blocked: TouchBlock?
        if let region {
            blocked = touchState.admit(RegionKey(layout: ObjectIdentifier(layout), region: region), display: display,
                                       exclusive: layout.regions[region].exclusive, multitouch: layout.regions[region].multitouch)
        }
        let tapCount = touchState.tapCount(display: display, at: sample.location, time: time, policy: tapPolicy)
        let values = Touch.PhaseValues(phase: .began, location: sample.location, previousLocation: sample.location,
                                       timestamp: time, pressure: sample.pressure, majorRadius: sample.majorRadius,
                                       minorRadius: sample.minorRadius, toolType: sample.toolType, maxTravelSquared: 0)
        let touch = Touch(id: touchState.takeID(), device: key.device, contact: key.contact, beganLocation: sample.location,
                          beganTime: time, tapCount: tapCount, region: region, display: display, screen: screen,
                          layout: layout, blocked: blocked, values: values)
        let gesture = blocked == nil && region.map { layout.regionHasGestures[$0] } == true
            ? gestureEntry(for: touch, key: key, device: device?.info) : nil
        touchState.table.insert(LiveTouch(touch: touch, device: device?.info, gesture: gesture), forKey: key)
        deliver(touch, gesture: gesture, device: device?.info, time: time)
    }

    func moveTouch(_ key: TouchKey, sample: ContactSample, time: Timestamp) {
        guard let i = touchState.table.index(forKey: key) else { return }
        moveTouch(at: i, sample: sample, time: time)
    }

    /// The moved path: the touch is updated in place in `touches` (found in `handle`: at most
    /// one hash lookup, none while its contact is remembered); its device info and recognizer
    /// state are beside it; while nothing else holds its previous phase, its storage is
    /// written in place; its first taker is cached (``route(_:device:time:)``).
    func moveTouch(at i: TouchTable.Index, sample: ContactSample, time: Timestamp) {
        // A stationary touch is part of the frame, not an event of its own (as in UIKit).
        guard let (touch, device, gesture) = touchState.table.move(at: i, sample, time: time) else { return }
        if let gesture {
            deliverThroughGestures(touch, entry: gesture, device: device, time: time)
        } else {
            // The table's copies move into the event: one reference each, released with it.
            route(consume touch, device: consume device, time: time)
        }
    }

    /// Ends or cancels a touch, routes that last phase, and forgets it.
    func finishTouch(_ key: TouchKey, change: ContactChange, location: Point?, time: Timestamp, sample: ContactSample?) {
        guard var live = touchState.table.removeValue(forKey: key) else { return }
        live.touch.finish(change == .ended ? .ended : .cancelled, at: location, time: time, sample: sample)
        let t = live.touch
        if let region = t.region, t.blocked == nil {
            // Counts are kept in the current layout (a layout change carries them over by path).
            let rk = currentRegion(region, of: t.layout).map { RegionKey(layout: ObjectIdentifier(layout), region: $0) }
            touchState.release(rk, display: currentDisplay(of: t))
        }
        if t.phase == .ended, let d = currentDisplay(of: t) {
            touchState.lastTap[d] = t.isTap(tapPolicy) ? TapMemory(location: t.location, time: time, count: t.tapCount) : nil
        }
        deliver(t, gesture: live.gesture, device: live.device, time: time)
    }

    /// Routes a touch phase, through its recognizers when its region or an ancestor has any
    /// (`gesture`, made when it began).
    @inline(__always)
    func deliver(_ t: consuming Touch, gesture: GestureTouch?, device: DeviceInfo?, time: Timestamp) {
        if let gesture {
            deliverThroughGestures(t, entry: gesture, device: device, time: time)
        } else {
            routeTouchPhase(t, device: device, time: time)
        }
    }

    /// Routes a touch phase to its region's chain; an ended touch may then focus its region.
    func routeTouchPhase(_ t: consuming Touch, device: DeviceInfo?, time: Timestamp) {
        // A touch that began before a layout change focuses its region as it is now (same path).
        let focusRegion = t.phase == .ended && t.blocked == nil ? t.region.flatMap { currentRegion($0, of: t.layout) } : nil
        let location = t.location
        route(t, device: device, time: time)
        if let focusRegion { focusOnTouchEnd(region: focusRegion, location: location, time: time) }
    }

    /// The touch's display in the current layout (it may have begun in an older one).
    func currentDisplay(of t: Touch) -> Int? {
        if t.layout === layout { return t.display < layout.displays.count ? t.display : nil }
        return layout.display(named: t.layout.displays[t.display].name)
    }

    /// Sends one touch phase up its chain (blocked touches are recorded, not delivered).
    ///
    /// A moved phase starts at the touch's cached first taker (``CachedTaker``): its chain — from
    /// its bound region in its own layout, through the presentation as the router has it — and
    /// the kind `touch moved` are the same for every move until the chain generation changes,
    /// so the chain is walked once per generation, not once per move. What happens at the
    /// taker (a dispatcher declining, and the walk going on) is unchanged.
    @inline(__always)
    func route(_ touch: consuming Touch, device: consuming DeviceInfo?, time: Timestamp) {
        // The touch's fields are read through `touch` (no reference to its storage kept beside
        // it): the event takes the touch, and nothing else holds it across the walk.
        let phase = touch.storage.values.phase
        let region = touch.storage.region, display = touch.storage.display
        let start: ResponderID?
        if touch.storage.blocked != nil {
            start = nil
        } else if let r = region {
            start = .region(r)
        } else if let screen = touch.storage.screen {
            start = .screen(screen)
        } else {
            start = display < touch.storage.layout.displays.count ? .display(display) : nil
        }
        let isTap = phase == .ended && touch.isTap(tapPolicy)
        let kind = EventKind.touch(phase, isTap: isTap)
        var first = FirstTaker.unknown
        let id = touch.storage.id
        // A forwarded touch's later phases go to its forwarder: kept in its storage when this
        // is the storage its began was routed with, else in ``touchState.forwarded`` (a
        // recognizer's held copies).
        let bound: Taker?
        if phase == .began {
            bound = nil
        } else if let known = touch.storage.forwardedTo {
            bound = known
        } else {
            bound = touchState.forwarded.isEmpty ? nil : touchState.forwarded[id]
        }
        if let bound {
            if phase == .moved, start != nil {
                // A forwarded touch's move: to its forwarder, inlined here as a cached taker's.
                walkBound(RoutedEvent(kind: kind, time: time, layout: touch.storage.layout, display: display, start: start,
                                      region: region, device: consume device, touch: consume touch, details: nil), taker: bound)
                return
            }
            first = .bound(bound)
        } else if phase == .moved, let start {
            // The moved path: its taker known, the walk inlined here (nothing to do after it).
            let known = movedTaker(of: touch.storage, from: start, kind: kind, device: device)
            walkMoved(RoutedEvent(kind: kind, time: time, layout: touch.storage.layout, display: display, start: start,
                                  region: region, device: consume device, touch: consume touch, details: nil), taker: known)
            return
        }
        // A began's taker is looked up in its layout after the walk (only then is it kept).
        let began = phase == .began ? touch.storage : nil
        let taker = walk(RoutedEvent(kind: kind, time: time, layout: touch.storage.layout, display: display, start: start,
                                     region: region, device: device, touch: touch, details: nil), first: first)
        // A forwarding handler that takes the began takes the whole touch, to its end.
        if let began {
            if let taker, began.layout.handlers[taker.handler].forwards {
                touchState.forwarded[id] = taker
                began.forwardedTo = taker
            }
        } else if bound != nil, phase == .ended || phase == .cancelled {
            touchState.forwarded[id] = nil
        }
    }

    /// The first taker of a touch's moved phase (`s`: its storage): cached there for the
    /// router's chain generation, found up its chain from `start` when the cache is older.
    @inline(__always)
    func movedTaker(of s: Touch.Storage, from start: ResponderID, kind: EventKind, device: borrowing DeviceInfo?) -> Taker? {
        if let cached = s.movedTaker, cached.generation == presentationState.generation { return cached.taker }
        return findMovedTaker(of: s, from: start, kind: kind, device: device)
    }

    /// ``movedTaker(of:from:kind:device:)`` when the cache is older than the chain (once per
    /// touch and generation): out of line.
    @inline(never)
    func findMovedTaker(of s: Touch.Storage, from start: ResponderID, kind: EventKind, device: borrowing DeviceInfo?) -> Taker? {
        let found = s.layout.firstTaker(of: kind, from: start, device: device, presentation: presentation, afterHandler: nil)
        s.movedTaker = CachedTaker(generation: presentationState.generation, taker: found)
        return found
    }

    /// A `focusable` region (or the nearest focusable ancestor of the bound region) becomes
    /// first responder when a touch ends inside it.
    func focusOnTouchEnd(region: Int, location: Point, time: Timestamp) {
        var cur: Int? = region
        while let r = cur, !layout.regions[r].focusable { cur = layout.regions[r].parent }
        guard let target = cur, layout.regions[target].containsPoint(location) else { return }
        setFirstResponder(target, time: time)
    }
}
