/// The routing state machine: it owns every active touch, held key, first responder and
/// presented screen, binds touches to regions, walks responder chains and reports each
/// decision to its ``RouteObserver``. It does no I/O and reads no clock but its ``EventClock``,
/// which it advances from event timestamps — so a replay routes exactly as live.
///
/// Not thread-safe by design: one event loop owns it.
public final class Router {
    /// The current layout. Every change of it (reload, run-time region change) starts a new
    /// chain generation (``presentationState.generation``).
    public private(set) var layout: Layout {
        get { currentLayout }
        set {
            currentLayout = newValue
            presentationState.generation &+= 1
        }
    }
    // The public properties' storage. The router's state is owned by one event loop and never
    // accessed concurrently or re-entrantly in overlapping ways, so the storage the event path
    // reads skips Swift's dynamic exclusivity checks, privately (docs/performance-design.md has what it
    // is worth).
    @exclusivity(unchecked) private var currentLayout: Layout
    @exclusivity(unchecked) private var currentObserver: RouteObserver?
    @exclusivity(unchecked) private var currentDispatcher: HandlerDispatcher?
    @exclusivity(unchecked) private var counts = RouteCounts()
    private var currentTapPolicy: TapPolicy
    public let clock: EventClock
    /// ``clock`` when it is a ``ManualClock`` (the sessions' clock): a frame moves it without a
    /// call through the protocol.
    private let manualClock: ManualClock?
    /// Receives every decision. Kept by the router (a strong reference: a weak one cost a
    /// weak load and a side-table release per record, a sizeable share of a move): an observer must not
    /// keep the router, or its session, strongly in turn.
    public var observer: RouteObserver? {
        get { currentObserver }
        set {
            currentObserver = newValue
            routedObserver = newValue.flatMap { $0.observesRoutedEvents ? $0 : nil }
        }
    }
    /// Who is told each routed event: nil when ``observer`` does not want them
    /// (``RouteObserver/observesRoutedEvents``: a routed event is then only counted,
    /// ``routeCounts``, and nothing is built for it), else the observer.
    @exclusivity(unchecked) private var routedObserver: RouteObserver?
    /// Runs handlers; nil for dry-run (the first taker counts as handled, nothing runs). Kept
    /// by the router like ``observer``; a dispatcher that needs the router must not keep it
    /// strongly (the daemon's plugin host keeps it unowned).
    public var dispatcher: HandlerDispatcher? {
        get { currentDispatcher }
        set { currentDispatcher = newValue }
    }
    /// What the router has routed, by kind and outcome (every `.routed` decision, observed or not).
    public var routeCounts: RouteCounts { counts }
    /// The contacts device filters dropped or cancelled, per device rule and filter (``filtered(_:)``).
    public internal(set) var filteredCounts = FilteredCounts()
    public var tapPolicy: TapPolicy {
        get { currentTapPolicy }
        set { currentTapPolicy = newValue }
    }

    struct DeviceState {
        var info: DeviceInfo
        var display: Int
        /// ``info`` as its keys see it when their text goes to no one: they route as keys,
        /// and a forwarder takes them (the same as ``info`` for a device that types no text).
        var keyInfo: DeviceInfo
    }

    /// The state the router coordinates, each part its own type with its own invariants:
    /// touches (active, forwarded, orphaned; per-region and exclusive counts; tap memory),
    /// held keys, recognizers and their timers, idle watches, presentation and focus.
    /// (Each an accessor over private storage without dynamic exclusivity checks, as above.)
    var devices: [DeviceID: DeviceState] {
        @inline(__always) get { deviceStorage }
        @inline(__always) _modify { yield &deviceStorage }
    }
    var touchState: TouchState {
        @inline(__always) get { touchStorage }
        @inline(__always) _modify { yield &touchStorage }
    }
    var keyState = KeyState()
    var gestures: GestureTracking {
        @inline(__always) get { gestureStorage }
        @inline(__always) _modify { yield &gestureStorage }
    }
    var idleState: IdleState {
        @inline(__always) get { idleStorage }
        @inline(__always) _modify { yield &idleStorage }
    }
    var presentationState: PresentationState {
        @inline(__always) get { presentationStorage }
        @inline(__always) _modify { yield &presentationStorage }
    }
    @exclusivity(unchecked) private var deviceStorage: [DeviceID: DeviceState] = [:]
    @exclusivity(unchecked) private var touchStorage: TouchState
    @exclusivity(unchecked) private var gestureStorage = GestureTracking()
    @exclusivity(unchecked) private var idleStorage = IdleState()
    @exclusivity(unchecked) private var presentationStorage: PresentationState
    /// Guards against handlers that send actions forever.
    var actionDepth = 0
    /// Regions changed at run time since the config was loaded, by path (see Router+Changes).
    var overrides: [String: OverrideEntry] = [:]

    public init(layout: Layout, clock: EventClock = ManualClock(), tapPolicy: TapPolicy = TapPolicy()) {
        currentLayout = layout
        self.clock = clock
        manualClock = clock as? ManualClock
        currentTapPolicy = tapPolicy
        touchStorage = TouchState(displays: layout.displays.count)
        presentationStorage = PresentationState(layout: layout)
        if layout.spec.displays.contains(where: { $0.idle != nil }) {
            setIdleWatches(makeIdleWatches(for: layout, from: nil, time: nil))
        }
    }

    /// Moves ``clock`` to `time` (never back), with nothing due on the way (``handle(_:)``).
    @inline(__always)
    func advanceClock(to time: Timestamp) {
        if let manualClock { manualClock.advance(to: time) } else { clock.advance(to: time) }
    }

    // MARK: Queries

    /// Active touches, in no particular order.
    public var activeTouches: [Touch] { touchState.table.values.map(\.touch) }
    /// The screen active (on top) on a display.
    public func activeScreen(onDisplay display: Int) -> Int? { presentationState.stacks[display].last }
    /// A screen's first responder region, if any.
    public func firstResponder(ofScreen screen: Int) -> Int? { presentationState.firstResponders[screen] }
    /// Devices the router knows.
    public var knownDevices: [DeviceInfo] { devices.values.map(\.info) }

    /// The runtime presentation state, for chain walks.
    var presentation: RouterPresentation {
        RouterPresentation(layout: layout, stacks: presentationState.stacks)
    }

    func emit(_ record: RouteRecord) { observer?.record(record) }

    /// A device filter dropped or cancelled a contact: counted per device rule and filter and
    /// told to the observer as a `.filtered` record; nothing is routed.
    public func filtered(_ contact: FilteredContact) {
        filteredCounts.add(contact)
        emit(.filtered(contact))
    }

    /// Records a walk's outcome: it is counted, and lent to the observer when it wants it
    /// (``RouteObserver/routed(_:handledBy:handler:)``: no record is built, nothing copied).
    /// `handler` indexes the event's ``Layout/handlers``.
    @inline(__always)
    func emitRouted(_ event: consuming RoutedEvent, by responder: ResponderID?, handler: Int?) {
        if case .touch = event.kind { counts.touchEvents += 1 } else { counts.count(event.kind) }
        if responder != nil { counts.handled += 1 } else { counts.unhandled += 1 }
        guard let routedObserver else { return }
        routedObserver.routed(event, handledBy: responder, handler: handler.map(HandlerIndex.init))
    }

    // MARK: Devices

    /// Registers a device (its touches land on `info.display`; unknown display names fall back to the first).
    public func addDevice(_ info: DeviceInfo, time: Timestamp) {
        advanceTime(to: time)
        let display = layout.display(named: info.display) ?? 0
        var keyInfo = info
        if info.typesText { keyInfo.typesText = false }
        devices[info.id] = DeviceState(info: info, display: display, keyInfo: keyInfo)
        if idleState.isWatching { beginIdleCountdown(display: display, time: time) }
        // The device's touches carry its info from now on (a device registered again, or a
        // touch of a device registered late).
        if !touchState.table.isEmpty {
            for i in touchState.table.indices where touchState.table.key(at: i).device == info.id {
                // A touch's remembered first taker depends on its device's rule (`devices:`).
                if touchState.table[i].device?.ruleName != info.ruleName { presentationState.generation &+= 1 }
                touchState.table[i].device = info
            }
        }
        emit(.deviceAdded(info, time: time))
    }

    /// A device went away (unplugged, replay over): its touches and held keys are cancelled,
    /// and the recognizers it fed settle now, as if their timers had run out.
    public func removeDevice(_ id: DeviceID, time: Timestamp) {
        advanceTime(to: time)
        cancelTouches(ofDevice: id, time: time)
        if !touchState.orphaned.isEmpty { touchState.orphaned = touchState.orphaned.filter { $0.device != id } }
        if !idleState.heldContacts.isEmpty { idleState.heldContacts = idleState.heldContacts.filter { $0.device != id } }
        settleTimers(device: id, time: time)
        cancelHeldKeys(ofDevice: id, time: time)
        if !gestures.shakes.isEmpty { endShake(of: id, .cancelled, at: time) }
        if let state = devices.removeValue(forKey: id) { emit(.deviceRemoved(state.info, time: time)) }
    }

    /// Cancels a device's touches, oldest first.
    func cancelTouches(ofDevice id: DeviceID, time: Timestamp) {
        for (key, _) in touchState.table.sortedByTouchID() where key.device == id {
            finishTouch(key, change: .cancelled, location: nil, time: time, sample: nil)
        }
    }

    /// Cancels a device's held keys (each routes its `cancelled` phase), in key-code order:
    /// the same order on every run (a dictionary's order is not).
    func cancelHeldKeys(ofDevice id: DeviceID, time: Timestamp) {
        for (key, held) in keyState.release(ofDevice: id) {
            // A modifier whose up its forwarder already got (a kept chord) is up there.
            if held.released { continue }
            routeKey(KeyInput(device: id, time: time, code: key.code, name: held.name, phase: .cancelled), held: held)
        }
    }

    // MARK: Reload

    /// Replaces the layout (a config reload). Active touches whose region still exists (same
    /// path) stay bound to their old region until they end; those whose region is gone are
    /// cancelled (and their fingers ignored until they lift). New touches use the new layout.
    /// Screens, presentation and first responders carry over by name (see
    /// ``swapLayout(to:time:)``). Region changes made at run time (``apply(_:time:)``) are
    /// forgotten: the new layout is the config again.
    public func replaceLayout(_ new: Layout, time: Timestamp) {
        advanceTime(to: time)
        let cancelled = swapLayout(to: new, time: time).cancelled
        overrides.removeAll()
        emit(.layoutReplaced(time: time, cancelledTouches: cancelled))
    }

    /// Puts `new` in place of the current layout: the one way the layout changes, for a reload
    /// and for a run-time region change. Touches whose region (by path) is not in `new` are
    /// cancelled, oldest first, each once, and their fingers ignored until they lift; the others
    /// stay bound to their region and chain in the layout they began in. Presentation stacks,
    /// exclusive-touch owners, per-region touch counts, tap memory and devices carry over by
    /// display name and region path. A first responder carries over by path unless its region
    /// is gone or can no longer hold focus (hidden or disabled, itself or an ancestor); the
    /// screens that lost theirs are returned (indices in `new`). Idle recognizers of older
    /// layouts are dropped (busy ones finish in their layout). Records nothing but the
    /// cancelled touches' phases.
    func swapLayout(to new: Layout, time: Timestamp) -> (cancelled: Int, unfocused: [Int]) {
        var cancelled = 0
        for (key, live) in touchState.table.sortedByTouchID() {
            let t = live.touch
            if let r = t.region, new.region(path: t.layout.regions[r].path) == nil {
                finishTouch(key, change: .cancelled, location: nil, time: time, sample: nil)
                touchState.orphaned.insert(key)
                cancelled += 1
            }
        }
        let old = layout
        let newID = ObjectIdentifier(new)
        /// A region key of the current layout, in `new` (nil when its path is gone).
        func carried(_ key: RegionKey) -> RegionKey? {
            guard key.layout == ObjectIdentifier(old) else { return nil }
            return new.region(path: old.regions[key.region].path).map { RegionKey(layout: newID, region: $0) }
        }
        var stacks = PresentationState.initialStacks(new)
        for (d, display) in new.displays.enumerated() {
            guard let od = old.display(named: display.name) else { continue }
            let names = presentationState.stacks[od].map { old.screens[$0].name }
            let mapped = names.compactMap { new.screen(named: $0) }.filter { new.screens[$0].display == d }
            if !mapped.isEmpty { stacks[d] = mapped }
        }
        var responders: [Int?] = Array(repeating: nil, count: new.screens.count)
        var unfocused: [Int] = []
        for (s, fr) in presentationState.firstResponders.enumerated() {
            guard let fr, let ns = new.screen(named: old.screens[s].name) else { continue }
            if let r = new.region(path: old.regions[fr].path), new.focusBlock(of: r) == nil {
                responders[ns] = r
            } else {
                unfocused.append(ns)
            }
        }
        var newExclusive = Array(repeating: ExclusiveState(), count: new.displays.count)
        var newTaps: [TapMemory?] = Array(repeating: nil, count: new.displays.count)
        for (d, display) in new.displays.enumerated() {
            guard let od = old.display(named: display.name) else { continue }
            newExclusive[d] = ExclusiveState(owner: touchState.exclusive[od].owner.flatMap(carried), touches: touchState.exclusive[od].touches)
            newTaps[d] = touchState.lastTap[od]
        }
        var counts: [RegionKey: Int] = [:]
        counts.reserveCapacity(touchState.regionCounts.count)
        for (key, n) in touchState.regionCounts {
            if let k = carried(key) { counts[k, default: 0] += n }
        }
        layout = new
        presentationState.stacks = stacks
        presentationState.firstResponders = responders
        touchState.exclusive = newExclusive
        touchState.lastTap = newTaps
        touchState.regionCounts = counts
        for (id, state) in devices {
            devices[id]?.display = new.display(named: state.info.display) ?? 0
        }
        if idleState.isWatching || new.spec.displays.contains(where: { $0.idle != nil }) {
            setIdleWatches(makeIdleWatches(for: new, from: old, time: time))
        }
        gestures.list.removeAll { rec in
            guard rec.layout !== new, rec.state == .possible, rec.tracked.isEmpty, rec.pending == nil,
                  rec.timerDeadline == nil else { return false }
            gestures.byKey[GestureKey(layout: ObjectIdentifier(rec.layout), ref: rec.ref)] = nil
            return true
        }
        return (cancelled, unfocused)
    }

    /// `region` of layout `l` in the current layout: the same index when `l` is current, else
    /// the region with the same path, if any (a touch that began before a change or reload).
    @inline(__always)
    func currentRegion(_ region: Int, of l: Layout) -> Int? {
        l === layout ? region : layout.region(path: l.regions[region].path)
    }

    /// Shutdown: every active touch and held key is cancelled.
    public func cancelAll(time: Timestamp) {
        advanceTime(to: time)
        for id in Set(touchState.table.keys.map(\.device)).union(keyState.held.keys.map(\.device)) {
            cancelTouches(ofDevice: id, time: time)
            cancelHeldKeys(ofDevice: id, time: time)
        }
        for id in gestures.shakes.keys.sorted(by: { $0.rawValue < $1.rawValue }) { endShake(of: id, .cancelled, at: time) }
        settleTimers(device: nil, time: time)
    }

    // MARK: Walking

    /// Walks `event`'s chain from its start, offers it to the first taker (and on, while
    /// handlers decline), and records the outcome. `first`, when given, is the first taker
    /// already known (a touch's cached one, see ``route(_:device:time:)``): the walk starts
    /// there; a handler that declines sends it on up the chain as always.
    @discardableResult
    func walk(_ event: consuming RoutedEvent, after skip: Int? = nil, first: FirstTaker = .unknown) -> Taker? {
        guard let (taker, builtIn) = taker(of: event, after: skip, first: first) else {
            emitRouted(event, by: nil, handler: nil)
            return nil
        }
        // After the walk, not in it: the event moves into its record (consumed in a loop, it
        // would be copied).
        if builtIn {
            recordAndPerform(event, taker.responder, event.layout.handlers[taker.handler])
        } else {
            emitRouted(event, by: taker.responder, handler: taker.handler)
        }
        return taker
    }

    /// ``walk(_:after:first:)`` for a touch's moved phase whose first taker is known (cached
    /// per chain generation): inlined into the moved path — the taker offered the event, the
    /// event recorded and released in place. A built-in taker, no dispatcher, or a handler
    /// that declines goes the general way (after a decline, on from that handler).
    @inline(__always)
    func walkMoved(_ event: consuming RoutedEvent, taker known: Taker?) {
        guard let f = known, let dispatcher, !event.layout.handlers[f.handler].isBuiltIn else {
            walk(event, first: .known(known))
            return
        }
        if case .declined = dispatcher.dispatch(event, toHandler: HandlerIndex(f.handler), at: f.responder) {
            walk(event, after: f.handler)
            return
        }
        emitRouted(event, by: f.responder, handler: f.handler)
    }

    /// ``walk(_:after:first:)`` for a phase of a touch bound to its forwarder (`.bound`):
    /// inlined into the moved path as ``walkMoved(_:taker:)`` is. The forwarder declining
    /// ends the walk there (a bound touch's phases go to nobody else).
    @inline(__always)
    func walkBound(_ event: consuming RoutedEvent, taker f: Taker) {
        guard let dispatcher, !event.layout.handlers[f.handler].isBuiltIn else {
            walk(event, first: .bound(f))
            return
        }
        if case .declined = dispatcher.dispatch(event, toHandler: HandlerIndex(f.handler), at: f.responder) {
            emitRouted(event, by: nil, handler: nil)
            return
        }
        emitRouted(event, by: f.responder, handler: f.handler)
    }

    /// The handler that takes `event` — the first taker (`first`, or found up the chain from its
    /// start after the handler `skip`), or, while a dispatcher declines, the next one — and
    /// whether it is a routing built-in (the router performs those; they are not dispatched).
    /// The dispatcher gets the handler's index: a binding passed along is a copy (a retain and
    /// a release per event).
    @inline(__always)
    func taker(of event: borrowing RoutedEvent, after skip: Int?, first: FirstTaker) -> (Taker, builtIn: Bool)? {
        guard let start = event.start else { return nil }
        var found: Taker?
        var bound = false
        switch first {
        case .known(let known):
            found = known
        case .bound(let taker):
            found = taker
            bound = true
        case .unknown:
            found = event.layout.firstTaker(of: event.kind, from: start, device: event.device, presentation: presentation,
                                            afterHandler: skip, modifiers: Self.modifiers(of: event))
        }
        while let f = found {
            if event.layout.handlers[f.handler].isBuiltIn { return (f, true) }
            if let dispatcher, case .declined = dispatcher.dispatch(event, toHandler: HandlerIndex(f.handler), at: f.responder) {
                if bound { return nil }
                found = event.layout.firstTaker(of: event.kind, from: start, device: event.device, presentation: presentation,
                                                afterHandler: f.handler, modifiers: Self.modifiers(of: event))
                continue
            }
            return (f, false)
        }
        return nil
    }

    /// The chord modifiers of a key event (none for others).
    @inline(__always)
    static func modifiers(of event: borrowing RoutedEvent) -> KeyModifiers {
        guard case .key = event.kind else { return [] }
        return event.key?.modifiers ?? []
    }

    /// A built-in handler took `event`: it is recorded, then the handler runs.
    func recordAndPerform(_ event: consuming RoutedEvent, _ responder: ResponderID, _ handler: HandlerBinding) {
        emitRouted(copy event, by: responder, handler: handler.index)
        performBuiltIn(handler, for: event)
    }

    /// A responder and the handler of it that takes an event, by index in its layout's
    /// ``Layout/handlers``: plain data, so remembering and passing it copies no reference.
    struct Taker: Equatable {
        var responder: ResponderID
        var handler: Int
    }

    /// Where a walk starts: at the first taker already known (nil: nothing takes the event),
    /// or by looking for it.
    enum FirstTaker {
        case unknown
        case known(Taker?)
        /// A later phase of a touch or key bound to the forwarder that took its start: to that
        /// forwarder only. When it declines (its virtual device is gone or failing) the phase is
        /// unhandled: the touch or key is the forwarder's for its whole life, and no other
        /// handler gets a middle or an end of something it never saw begin.
        case bound(Taker)
    }

    /// For asynchronous handlers that declined after being dispatched: the walk goes on from
    /// the next handler.
    public func continueRouting(_ event: RoutedEvent, after handler: HandlerBinding) {
        walk(event, after: handler.index)
    }
}

/// How many events a router routed, by kind, and how many of them a handler took.
public struct RouteCounts: Sendable, Equatable {
    public var touchEvents = 0
    public var keyEvents = 0
    public var actions = 0
    public var gestures = 0
    public var texts = 0
    public var motions = 0
    /// Displays that went idle, and came back (`idle`, `active` events).
    public var idles = 0
    public var actives = 0
    /// Taken by a handler (dispatched, or counted as handled without a dispatcher).
    public var handled = 0
    /// Walked their chain and found no handler.
    public var unhandled = 0

    public init() {}

    /// Counts an event of `kind` (touch phases are counted in place by the router: no copy of
    /// the kind on the moved path).
    mutating func count(_ kind: EventKind) {
        switch kind {
        case .touch: touchEvents += 1
        case .key: keyEvents += 1
        case .action: actions += 1
        case .gesture: gestures += 1
        case .text: texts += 1
        case .motion: motions += 1
        case .idle: idles += 1
        case .active: actives += 1
        }
    }
}

/// The presentation stacks as the chain walk sees them.
struct RouterPresentation: PresentationLookup {
    let layout: Layout
    let stacks: [[Int]]

    @inline(__always)
    func presenter(of screen: Int, in l: Layout) -> Int? {
        var s = screen
        if l !== layout {
            guard let mapped = layout.screen(named: l.screens[screen].name) else { return nil }
            s = mapped
        }
        let stack = stacks[layout.screens[s].display]
        guard let i = stack.lastIndex(of: s), i > 0 else { return nil }
        let p = stack[i - 1]
        if l === layout { return p }
        return l.screen(named: layout.screens[p].name)
    }
}
