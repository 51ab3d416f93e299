/// A display's idle state, for a display with `idle:`: when its last input came, and
/// whether it is idle now. Its deadline is one of the router's timers (``Router/advanceTime(to:)``):
/// event time only, so a replay with a gap goes idle at the event time live input would.
struct IdleWatch {
    var after: Timestamp.Duration
    var swallowWakeTouch: Bool
    /// The last input on the display's devices, or when the countdown began (its first device
    /// came, or a reload gave it `idle:`); nil: not begun (no device yet).
    var lastInput: Timestamp?
    /// Since when the display is idle; nil: it is active.
    var idleSince: Timestamp?
    /// Since when it is active (its last `active`, or when the countdown began).
    var activeSince: Timestamp?

    init(_ spec: IdleSpec) {
        after = spec.after
        swallowWakeTouch = spec.swallowWakeTouch
    }

    /// When it goes idle, if it is active and counting.
    var deadline: Timestamp? {
        guard idleSince == nil, let last = lastInput else { return nil }
        return last + after
    }
}

/// A display's idle state as `status` shows it.
public struct DisplayActivity: Sendable, Equatable {
    /// Idle (true) or active.
    public var idle: Bool
    /// Since when (event time); nil: no device has come yet (the countdown has not begun).
    public var since: Timestamp?
}

extension Router {
    // MARK: Idle and active

    /// The idle watches of `new`'s displays (by index), carried over by display name from those
    /// of `old` (the layout the current watches are of): a display that keeps `idle:` keeps its state (idle stays idle,
    /// the countdown goes on from the last input with the new `after-s`); one that gains it
    /// starts counting at `time` when a device is on it.
    func makeIdleWatches(for new: Layout, from old: Layout?, time: Timestamp?) -> [IdleWatch?] {
        new.spec.displays.enumerated().map { d, display in
            guard let spec = display.idle else { return nil }
            var watch = IdleWatch(spec)
            if let od = old?.display(named: display.name), od < idleState.watches.count, let was = idleState.watches[od] {
                watch.lastInput = was.lastInput
                watch.idleSince = was.idleSince
                watch.activeSince = was.activeSince
            } else if let time, devices.values.contains(where: { $0.display == d }) {
                watch.lastInput = time
                watch.activeSince = time
            }
            return watch
        }
    }

    /// Puts `watches` in place and finds the next deadline.
    func setIdleWatches(_ watches: [IdleWatch?]) { idleState.set(watches) }

    func updateIdleDeadline() { idleState.updateDeadline() }

    /// A device came on `display`: its countdown begins, if it had not.
    func beginIdleCountdown(display d: Int, time: Timestamp) { idleState.beginCountdown(display: d, time: time) }

    /// Sends `idle` for every display due by `deadline` (the earliest: ``idleState.deadline``), in
    /// display order, at `time`.
    ///
    /// A display with a contact down (``hasContactDown(display:)``) does not go idle: someone is
    /// holding a finger on it, and a resting finger's moves may all be filtered out (`jitter`),
    /// so it may send no input for longer than `after-s`. Its countdown starts again at the
    /// deadline; the lift (input) starts it again from the lift's time.
    func fireIdle(due deadline: Timestamp, at time: Timestamp) {
        for d in idleState.watches.indices {
            guard let w = idleState.watches[d], let due = w.deadline, due <= deadline else { continue }
            if hasContactDown(display: d) {
                idleState.watches[d]!.lastInput = due
                updateIdleDeadline()
                continue
            }
            idleState.watches[d]!.idleSince = time
            updateIdleDeadline()
            routeActivity(.idle, display: d, time: time)
        }
    }

    /// Input on `device`'s display at `time`: the countdown starts again, and an idle display
    /// becomes active (`active` is routed). Returns whether the display was idle and swallows
    /// its wake touch.
    @inline(__always)
    func noteInput(device: DeviceID, time: Timestamp) -> Bool {
        guard idleState.isWatching else { return false }
        return noteWatchedInput(device: device, time: time)
    }

    @inline(never)
    func noteWatchedInput(device: DeviceID, time: Timestamp) -> Bool {
        // One display (a kiosk's): every device's input is its (a device of an unknown display,
        // or not registered, lands on the first, as its touches do).
        let d = idleState.watches.count == 1 ? 0 : devices[device]?.display ?? 0
        guard d < idleState.watches.count, var w = idleState.watches[d] else { return false }
        w.lastInput = time
        guard w.idleSince != nil else {
            idleState.watches[d] = w
            if idleState.watches.count == 1 { idleState.deadline = time + w.after } else { updateIdleDeadline() }
            return false
        }
        w.idleSince = nil
        w.activeSince = time
        idleState.watches[d] = w
        updateIdleDeadline()
        routeActivity(.active, display: d, time: time)
        return w.swallowWakeTouch
    }

    /// A touch frame's input: a contact that began, moved or ended is input; a frame
    /// of cancels only (a device gone, a filter's cancel) is not. Returns whether its began
    /// contacts are the wake touch to swallow.
    func noteTouchInput(_ frame: TouchFrameInput) -> Bool {
        guard frame.contacts.contains(where: { $0.change != .cancelled }) else { return false }
        return noteWatchedInput(device: frame.device, time: frame.time)
    }

    /// Whether a contact is down on display `d`: a routed touch, a swallowed wake touch not yet
    /// lifted, or a contact the device's filters hold back from routing (a ghost-tap candidate,
    /// one begun in an ignored area, one too light: ``noteContacts(_:)``). A contact a filter
    /// cancelled (a palm, a stuck contact) is no longer down for this: a stuck contact must not
    /// keep a display awake for ever.
    func hasContactDown(display d: Int) -> Bool {
        let single = idleState.watches.count == 1
        func on(_ device: DeviceID) -> Bool { single || (devices[device]?.display ?? 0) == d }
        for i in touchState.table.indices where on(touchState.table.key(at: i).device) { return true }
        if touchState.orphaned.contains(where: { on($0.device) }) { return true }
        return idleState.heldContacts.contains { on($0.device) }
    }

    /// A device's frame as it came, before its contact filters (the session calls this for a
    /// device with filters, before it runs them): a contact that begins is down until it ends
    /// or is cancelled, here or in the routed stream (a filter's cancel), whatever the filters
    /// let through. Its lift is input for the idle countdown (it starts again from the lift)
    /// but does not wake an idle display (it was not routed). Only while a display has `idle:`.
    public func noteContacts(_ frame: TouchFrameInput) {
        guard idleState.isWatching else { return }
        var lifted = false
        for sample in frame.contacts {
            let key = TouchKey(device: frame.device, contact: sample.contact)
            switch sample.change {
            case .began: idleState.heldContacts.insert(key)
            case .moved: break
            case .ended, .cancelled: if idleState.heldContacts.remove(key) != nil { lifted = true }
            }
        }
        guard lifted else { return }
        advanceTime(to: frame.time)
        let d = idleState.watches.count == 1 ? 0 : devices[frame.device]?.display ?? 0
        guard d < idleState.watches.count, idleState.watches[d] != nil, idleState.watches[d]!.idleSince == nil,
              idleState.watches[d]!.lastInput != nil else { return }
        idleState.watches[d]!.lastInput = frame.time
        updateIdleDeadline()
    }

    /// The touch that woke an idle display (`swallow-wake-touch`): not routed (nor forwarded),
    /// told as a `filtered` contact (`wake`); its later phases are ignored until it lifts.
    func swallowWakeTouch(_ key: TouchKey, _ sample: ContactSample, time: Timestamp) {
        if touchState.table[key] != nil { finishTouch(key, change: .cancelled, location: nil, time: time, sample: nil) }
        touchState.orphaned.insert(key)
        filtered(FilteredContact(time: time, deviceID: key.device, device: devices[key.device]?.info.ruleName ?? "",
                                 filter: "wake", location: sample.location))
    }

    /// Walks `idle` or `active` from the display's top screen up its chain.
    func routeActivity(_ kind: EventKind, display d: Int, time: Timestamp) {
        let screen = d < presentationState.stacks.count ? presentationState.stacks[d].last : nil
        walk(RoutedEvent(kind: kind, time: time, layout: layout, display: d, start: screen.map { .screen($0) } ?? .display(d)))
    }

    /// A display's idle state (nil: it has no `idle:`), for `status` and metrics.
    public func activity(ofDisplay d: Int) -> DisplayActivity? {
        guard d < idleState.watches.count, let w = idleState.watches[d] else { return nil }
        return DisplayActivity(idle: w.idleSince != nil, since: w.idleSince ?? w.activeSince)
    }
}
