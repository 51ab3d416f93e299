import EvrouteConfig
import EvrouteCore
import EvrouteInput
import EvrouteSystem

/// How a `forward` plugin places forwarded touches on its virtual touchscreens.
enum ForwardCoordinates: String, Sendable {
    /// The source's own device units, on a virtual device with the source's axes (the default).
    case device
    /// After evroute's rotation and calibration, on a virtual device spanning the display.
    case display
}

/// How a forwarded touch that evroute ends early (a gesture claiming it, the palm filter, its
/// region or forwarder gone, its panel unplugged, a `SYN_DROPPED`, a stop) ends on the virtual
/// touchscreen.
enum ForwardCancel: String, Sendable {
    /// `MT_TOOL_PALM`, then lifted: libinput reports `TOUCH_CANCEL`, and a compositor that passes
    /// it on sends `wl_touch.cancel` (the default).
    case palm
    /// Lifted as a finger would be: libinput reports `TOUCH_UP`, every compositor sends
    /// `wl_touch.up` (for compositors that drop a cancel: cage, wlroots before 0.17).
    case lift
}

/// `forward`'s options.
struct ForwardOptions: Sendable {
    var coordinates: ForwardCoordinates
    var cancel: ForwardCancel = .palm
}

/// A `forward` handler's own options: `press:` (a key or chord to type on the virtual keyboard
/// when an event that is neither a touch nor a key reaches the handler), `type-text:` (type the
/// text it takes on the virtual keyboard, then Enter).
struct ForwardHandlerOptions: Sendable {
    var press: KeyChord?
    /// The chord's evdev codes: modifiers (left side), then the key.
    var pressCodes: (modifiers: [UInt16], key: UInt16)?
    var typeText = false
    /// `map:`: a forwarded key's evdev code → the code written in its place.
    var keyMap: [Int: Int] = [:]

    /// The key as this handler writes it: its mapped code, or itself.
    func mapped(_ k: KeyInput) -> KeyInput {
        guard let code = keyMap[k.code] else { return k }
        var m = k
        m.code = code
        m.name = EventCodeNames.keyName(UInt16(code))
        return m
    }
}

/// `forward`: whole touches and keys its handlers take are written to virtual
/// devices (uinput) for the compositor behind evroute.
struct ForwardPluginType: PluginType {
    var name: PluginKind { "forward" }
    var pluginKeys: [ConfigKey] {
        [ConfigKey("coordinates", .choice(["device", "display"]), default: "device",
                   "Forwarded touches in the source's own units, or after rotation and calibration on a device spanning the display."),
         ConfigKey("cancel", .choice(["palm", "lift"]), default: "palm",
                   "How a touch evroute ends early ends on the virtual touchscreen: MT_TOOL_PALM then lifted, or lifted.")]
    }
    var handlerKeys: [ConfigKey] {
        [ConfigKey("press", .other("key or chord, e.g. KEY_F5 or \"alt+KEY_HOME\""), "Typed on the virtual keyboard when an event that is neither a touch nor a key reaches the handler."),
         ConfigKey("type-text", .boolean, default: "false", "Type the text the handler takes on the virtual keyboard, then Enter."),
         ConfigKey("map", .mapping, "A forwarded key's name to the key written in its place.")]
    }
    var metrics: [PluginMetric] { ForwardPlugin.metrics }
    var forwards: Bool { true }

    func checkHandler(_ check: inout HandlerOptionCheck) {
        var options = ForwardHandlerOptions()
        if let v = check.handler.options["press"] {
            if let s = v.string {
                switch KeyChord.read(s) {
                case .success(let chord):
                    options.press = chord
                    options.pressCodes = Self.codes(of: chord)
                case .failure(let e): check.error("'press' of a 'forward' handler: \(e)", at: "press")
                }
            } else {
                check.error("'press' of a 'forward' handler must be a key or chord, e.g. KEY_F5 or \"alt+KEY_HOME\"", at: "press")
            }
        }
        if let v = check.handler.options["type-text"] {
            if let b = v.bool { options.typeText = b }
            else { check.error("'type-text' of a 'forward' handler must be true or false", at: "type-text") }
        }
        if let v = check.handler.options["map"] {
            if case .map(let entries) = v {
                for (from, to) in entries.sorted(by: { $0.key < $1.key }) {
                    guard let toName = to.string else {
                        check.error("'map' of a 'forward' handler: '\(from)' must map to a key name, e.g. KEY_ESC", at: "map")
                        continue
                    }
                    switch (Self.keyCode(from), Self.keyCode(toName)) {
                    case (.success(let a), .success(let b)): options.keyMap[Int(a)] = Int(b)
                    case (.failure(let e), _), (_, .failure(let e)): check.error("'map' of a 'forward' handler: \(e)", at: "map")
                    }
                }
            } else {
                check.error("'map' of a 'forward' handler must map key names to key names, e.g. { KEY_CAPSLOCK: KEY_ESC }", at: "map")
            }
        }
        if options.press != nil, check.handler.on.contains(where: { Self.isPressable($0) == false }) {
            check.error("'press' of a 'forward' handler types a key on events that are not touches or keys (an action, gesture, idle, active, motion): this handler takes touches or keys too; give 'press' a handler of its own", at: "press")
        }
        check.options = options
    }

    /// The events `press:` types a key on.
    static func isPressable(_ f: EventFilter) -> Bool {
        switch f {
        case .action, .gesture, .idle, .active, .motion: true
        default: false
        }
    }

    func forwardsAlso(_ filter: EventFilter, handler: HandlerSpec) -> Bool {
        if handler.options["press"] != nil, Self.isPressable(filter) { return true }
        if filter == .text, handler.options["type-text"]?.bool == true { return true }
        return false
    }

    /// A plain key name's code (the chord parser's names and did-you-mean; no modifiers).
    static func keyCode(_ name: String) -> Result<UInt16, KeyChord.ChordError> {
        switch KeyChord.read(name) {
        case .success(let chord):
            guard chord.modifiers.isEmpty else { return .failure(KeyChord.ChordError("'\(name)' is a chord: 'map' maps one key to one key")) }
            guard let code = codes(of: chord)?.key else { return .failure(KeyChord.ChordError("'\(name)' is no key")) }
            return .success(code)
        case .failure(let e):
            return .failure(e)
        }
    }

    /// The codes a chord writes: each modifier's left key, then the key.
    static func codes(of chord: KeyChord) -> (modifiers: [UInt16], key: UInt16)? {
        guard let key = EventCodeNames.code(named: chord.key, type: EventType.key) else { return nil }
        var mods: [UInt16] = []
        for (m, code) in [(KeyModifiers.ctrl, UInt16(29)), (.alt, 56), (.shift, 42), (.super, 125)] where chord.modifiers.contains(m) {
            mods.append(code)
        }
        return (mods, key)
    }

    func readOptions(_ r: inout PluginOptionReader) -> (any Sendable)? {
        var coordinates = ForwardCoordinates.device
        if let s = r.string("coordinates") {
            if let c = ForwardCoordinates(rawValue: s) { coordinates = c }
            else { r.fail("coordinates", "`coordinates` must be `device` or `display`") }
        }
        var cancel = ForwardCancel.palm
        if let s = r.string("cancel") {
            if let c = ForwardCancel(rawValue: s) { cancel = c }
            else { r.fail("cancel", "`cancel` must be `palm` or `lift`") }
        }
        return ForwardOptions(coordinates: coordinates, cancel: cancel)
    }

    func makePlugin(spec: PluginSpec, options: (any Sendable)?, context: PluginContext) -> (any Plugin)? {
        (options as? ForwardOptions).map { ForwardPlugin(spec: spec, options: $0, context: context) }
    }
}

/// `forward`: the touches and keys its handlers take go to virtual devices made with uinput —
/// a touchscreen per physical touchscreen (`<name> (evroute)`), one keyboard (`evroute
/// keyboard`) — for the compositor behind evroute. The router hands it whole touches and keys
/// (``HandlerBinding/forwards``); the devices are shared by every `forward` instance and
/// outlive reloads (``ForwardOutputs``).
final class ForwardPlugin: Plugin {
    let spec: PluginSpec
    private let options: ForwardOptions
    private let outputs: ForwardOutputs
    private let context: PluginContext
    /// Its counters, but the phases handled (``handledPhases``).
    private var counted: PluginStatistics
    /// Handled events, counted apart: a private counter of this plugin's own, which the compiler
    /// sees every access to, is counted without an exclusivity check per phase.
    private var handledPhases = 0
    var statistics: PluginStatistics {
        var s = counted
        s.handled += handledPhases
        return s
    }
    private var started = false

    init(spec: PluginSpec, options: ForwardOptions, context: PluginContext) {
        self.spec = spec
        self.options = options
        self.context = context
        outputs = context.shared { ForwardOutputs(context: context) }
        counted = PluginStatistics(name: spec.name, type: spec.type)
    }

    var liveChildren: [ChildProcess] { [] }

    func start() {
        guard !started else { return }
        started = true
        outputs.attach(coordinates: options.coordinates)
    }

    func stop(_ reason: PluginStopReason) {
        guard started else { return }
        started = false
        outputs.detach(shutdown: reason == .shutdown)
    }

    func deviceAdded(_ device: PresentDevice) { outputs.deviceAdded(device) }
    func deviceRemoved(_ device: PresentDevice) { outputs.deviceRemoved(device) }

    /// `--verbose`: a forwarded touch's began and end, a forwarded key's down and up, in the log
    /// plugin's words (`touch 3 began (412.5, 96) → home/root [desktop] forwarded device touch`).
    private func logForwarded(_ event: RoutedEvent, handler: Int, responder: ResponderID) {
        context.log.log(.debug) { line in
            var head = LogLineHead(line: line, showKeys: context.showKeycodes)
            EventEncoder.encode(event, handledBy: nil, handler: nil, as: .line, into: &head)
            line = head.line
            line.append(" → \(event.layout.describe(responder)) [\(spec.name)] forwarded device \(event.device?.ruleName ?? "-")")
        }
    }

    func deliver(_ d: PluginDelivery) -> HandlerVerdict {
        deliverInPlace(d.event, handler: d.handlerIndex, responder: d.responder)
    }

    /// ``deliver(_:)`` from the walk's event in place (the plugin host's table calls it on this
    /// concrete type: no delivery record is made, so the event's parts are not retained for
    /// it). A touch's phase (nearly all of what comes) is queued in this one function with the
    /// queueing inlined.
    func deliverInPlace(_ event: RoutedEvent, handler: Int, responder: ResponderID) -> HandlerVerdict {
        if case .touch(let phase, _) = event.kind {
            guard let t = event.touch else { return .declined }
            guard outputs.touch(t, phase: phase, time: event.time, cancel: options.cancel) else { return declined() }
            handledPhases += 1
            if phase != .moved, phase != .stationary {
                if phase == .began { counted[counter: .forwardedTouches] += 1 }
                logForwarded(event, handler: handler, responder: responder)
            }
            return .handled
        }
        return deliver(event, handler: handler, responder: responder)
    }

    @inline(never)
    private func declined() -> HandlerVerdict {
        counted.declined += 1
        if let e = outputs.lastError { counted.lastError = e }
        return .declined
    }

    private func deliver(_ event: RoutedEvent, handler: Int, responder: ResponderID) -> HandlerVerdict {
        let written: Bool
        switch event.kind {
        case .touch(let phase, _):
            guard let t = event.touch else { return .declined }
            written = outputs.touch(t, phase: phase, time: event.time, cancel: options.cancel)
            if written, phase == .began { counted[counter: .forwardedTouches] += 1 }
        case .key(_, let phase):
            guard var k = event.key else { return .declined }
            if let own = event.layout.handlerOptions[handler] as? ForwardHandlerOptions, !own.keyMap.isEmpty { k = own.mapped(k) }
            written = outputs.key(k, phase: phase)
            if written, phase == .down { counted[counter: .forwardedKeys] += 1 }
        default:
            guard let own = event.layout.handlerOptions[handler] as? ForwardHandlerOptions else { return .declined }
            if let codes = own.pressCodes, !event.kind.isTextKind {
                written = outputs.press(codes)
                if written { counted[counter: .forwardedKeys] += 1 }
            } else if own.typeText, event.kind.isTextKind, let text = event.text {
                let rule = event.device.flatMap { d in event.layout.deviceRules.first { $0.name == d.ruleName } }
                let keymap = rule?.keymap ?? .default
                if let untyped = outputs.type(text, keymap: keymap) {
                    written = true
                    if untyped > 0 {
                        counted[counter: .untypedCharacters] += untyped
                        context.log.warning("forward [\(spec.name)]: \(untyped) of \(text.count) character(s) of a line of rule \(rule?.name ?? "-") have no key on keymap \(keymap); typed without them")
                    }
                } else {
                    written = false
                }
            } else {
                written = false
            }
        }
        if written {
            handledPhases += 1
            if event.kind.isTouchStartOrEnd || event.kind.isKeyDownOrUp { logForwarded(event, handler: handler, responder: responder) }
            return .handled
        }
        counted.declined += 1
        if let e = outputs.lastError { counted.lastError = e }
        return .declined
    }
}

/// The virtual devices of every `forward` instance (one set per daemon, kept by the
/// ``PluginContext``: they outlive reloads): a touchscreen per present touchscreen, the keyboard
/// from the first keyboard, which touch has which slot, which keys are held. Frames are queued
/// as the router hands phases over and written at the end of the wake-up, one write(2) per
/// virtual device (each source frame stays its own `SYN_REPORT` frame).
final class ForwardOutputs {
    private let context: PluginContext
    // Unchecked, like the fields below read and written per phase and per flush: plain
    // values only this class's methods touch, with no call out while one is held.
    @exclusivity(unchecked) private var instances = 0
    @exclusivity(unchecked) private var coordinates = ForwardCoordinates.device

    /// One forwarded touchscreen.
    final class Screen {
        let source: PresentDevice
        let id: DeviceID
        /// The source's mapper, kept here (not read out of ``source`` per event).
        let mapper: CoordinateMapper
        let device: UinputDevice
        // Its frames (slots, positions, what is queued), and how the touch in each slot ends
        // when evroute ends it early. Unchecked: only this screen's methods touch them, none
        // calls out while it holds them (docs/performance-vm.md, "Per source frame, counted").
        @exclusivity(unchecked) private var frames: ForwardTouchFrames
        @exclusivity(unchecked) private var cancels: [ForwardCancel]
        /// Read once from the device's spec (not per event): its position axes' maxima (display
        /// coordinates are clamped to them).
        let maximumX: Double
        let maximumY: Double

        init(source: PresentDevice, mapper: CoordinateMapper, device: UinputDevice, slots: Int) {
            self.source = source
            id = source.info.id
            self.mapper = mapper
            self.device = device
            let axes = device.spec.absinfo
            // Values the device holds are left out only where the kernel drops them as equal:
            // axes without fuzz (``ForwardTouchFrames/skipsUnchanged``).
            let unfiltered = [AbsCode.x, AbsCode.y, AbsCode.mtPositionX, AbsCode.mtPositionY, AbsCode.mtPressure]
                .allSatisfy { (axes[$0]?.fuzz ?? 0) == 0 }
            frames = ForwardTouchFrames(slots: slots, hasPressure: axes[AbsCode.mtPressure] != nil, skipsUnchanged: unfiltered)
            if mapper.rotation == .none, mapper.calibration.isIdentity {
                plain = (mapper.displaySize.width, mapper.displaySize.height,
                         Double(max(Int64(mapper.xAxis.maximum) - Int64(mapper.xAxis.minimum) + 1, 1)),
                         Double(max(Int64(mapper.yAxis.maximum) - Int64(mapper.yAxis.minimum) + 1, 1)),
                         Double(mapper.xAxis.minimum), Double(mapper.yAxis.minimum))
            } else {
                plain = nil
            }
            cancels = Array(repeating: .palm, count: frames.slots.count)
            maximumX = Double(device.spec.absinfo[AbsCode.mtPositionX]?.maximum ?? 0)
            maximumY = Double(device.spec.absinfo[AbsCode.mtPositionY]?.maximum ?? 0)
        }

        /// A mapper that neither rotates nor calibrates, as numbers: its display size, its
        /// axes' spans and minima (``unmap(_:)`` without a call into the mapper per point).
        private let plain: (width: Double, height: Double, xSpan: Double, ySpan: Double, xMin: Double, yMin: Double)?

        /// The point in the source's own units: ``CoordinateMapper/unmap(_:)``. Without rotation
        /// and calibration, its arithmetic here — the same operations in the same order, so the
        /// same numbers — and its rounding (to the nearest, halves away from zero) done on the
        /// integer part; far values and others, the mapper's own.
        @inline(__always)
        func unmap(_ p: Point) -> (Int32, Int32)? {
            if let m = plain, let x = Self.nearest(p.x / m.width * m.xSpan + m.xMin),
               let y = Self.nearest(p.y / m.height * m.ySpan + m.yMin) {
                return (x, y)
            }
            return mapper.unmap(p)
        }

        /// `v.rounded()` as an `Int32`, for |v| < 2^30 (nil beyond, and for NaN): the integer
        /// part, then one step away from zero when the rest is a half or more (the rest is
        /// exact: `v` and its integer part are within a factor of two of each other).
        @inline(__always)
        static func nearest(_ v: Double) -> Int32? {
            guard v.magnitude < 1_073_741_824 else { return nil }
            let whole = Int64(v)
            let rest = v - Double(whole)
            if rest >= 0.5 { return Int32(whole + 1) }
            if rest <= -0.5 { return Int32(whole - 1) }
            return Int32(whole)
        }

        /// The slot of router touch `touch`, if it is forwarded here (a look through the few
        /// slots: no table kept beside them).
        func slot(of touch: Int) -> Int? { frames.slots.firstIndex { $0 == touch } }
        func freeSlot() -> Int? { frames.freeSlot() }
        /// The touches forwarded here: (router touch id, slot).
        var forwarded: [(id: Int, slot: Int)] {
            frames.slots.enumerated().compactMap { slot, id in id.map { ($0, slot) } }
        }
        /// Whether a frame is open or queued (to write at the end of the wake-up).
        var hasQueued: Bool { frames.open || !frames.frame.isEmpty }

        /// A phase of `time`: a queued frame of another time ends first.
        func start(time: Timestamp) { frames.start(time: time) }

        func begin(slot: Int, touch: Int, trackingID: Int32, x: Int32, y: Int32, pressure: Double?,
                   cancel mode: ForwardCancel, time: Timestamp) {
            frames.start(time: time)
            cancels[slot] = mode
            frames.begin(slot: slot, touch: touch, trackingID: trackingID, x: x, y: y, pressure: pressure)
        }

        func move(slot: Int, x: Int32, y: Int32, pressure: Double?, time: Timestamp) {
            frames.start(time: time)
            frames.move(slot: slot, x: x, y: y, pressure: pressure)
        }

        func end(slot: Int, time: Timestamp) {
            frames.start(time: time)
            frames.end(slot: slot)
        }

        /// evroute ends the touch early, as its forwarder's `cancel` said; at `time`, or (nil)
        /// at the time of the last frame.
        func cancel(slot: Int, time: Timestamp?) {
            frames.start(time: time ?? frames.lastTime ?? .zero)
            frames.cancel(slot: slot, mode: cancels[slot])
        }

        /// Ends the open frame and writes what is queued in one write(2); on a failure the
        /// queued frames are dropped.
        @inline(__always)
        func write() throws(SystemError) {
            frames.endFrame()
            guard !frames.frame.isEmpty else { return }
            do { try frames.frame.write(to: device) } catch {
                frames.dropQueued()
                throw error
            }
        }
    }
    private var screens: [DeviceID: Screen] = [:]
    /// The screen last looked up: a wake-up's touches are mostly one device's. Emptied
    /// whenever a screen comes or goes.
    @exclusivity(unchecked) private var lastScreen: Screen?

    /// The virtual touchscreen forwarding device `id`.
    @inline(__always)
    private func screen(_ id: DeviceID) -> Screen? {
        if let last = lastScreen, last.id == id { return last }
        let found = screens[id]
        lastScreen = found
        return found
    }
    private var keyboard: UinputDevice?
    @exclusivity(unchecked) private var keyFrame = VirtualFrameBuffer()
    /// Forwarded keys held down (device, code).
    private var heldKeys: Set<KeyHold> = []
    @exclusivity(unchecked) private var nextTrackingID: Int32 = 0
    @exclusivity(unchecked) fileprivate var flushQueued = false
    /// The screen whose frames this wake-up queued, when only one did (a wake-up reads one
    /// device): the flush writes it without a look through every screen. With more than one,
    /// ``queuedMore``: every screen with frames queued is written.
    @exclusivity(unchecked) private var queuedScreen: Screen?
    @exclusivity(unchecked) private var queuedMore = false
    private var failureLogs = LogRateLimiter()
    /// The last failure (creating or writing a device), for the plugins' statistics.
    private(set) var lastError: String?

    struct KeyHold: Hashable {
        var device: DeviceID
        var code: Int
    }

    init(context: PluginContext) {
        self.context = context
        // Its own end-of-wake-up hook, added once (not a writer registered per wake-up with the
        // plugin host), ahead of the loop's others (a compositor waits on these frames): a
        // wake-up with frames queued writes them, one without does nothing.
        let hook = EndOfWakeup(self)
        context.loop.addEndOfWakeupHook(first: true) {
            if let outputs = hook.outputs, outputs.flushQueued { outputs.flush() }
        }
    }

    /// What the end-of-wake-up hook holds: the outputs, weakly (the loop may outlive them), in
    /// a constant (a weak capture is a variable, checked for exclusive access at each read).
    private final class EndOfWakeup {
        weak let outputs: ForwardOutputs?
        init(_ outputs: ForwardOutputs) { self.outputs = outputs }
    }

    // MARK: Instances

    /// A `forward` instance started: the first makes the devices of what is present.
    func attach(coordinates: ForwardCoordinates) {
        instances += 1
        guard instances == 1 else { return }
        if screens.isEmpty, keyboard == nil { self.coordinates = coordinates }
        for device in context.devices.values.sorted(by: { $0.info.id.rawValue < $1.info.id.rawValue }) { deviceAdded(device) }
    }

    /// A `forward` instance stopped. At shutdown, or when a reload leaves none (decided at the end
    /// of the wake-up: a reload starts the new instances after stopping the old), every forwarded
    /// touch is cancelled, every held key released, and the devices destroyed.
    func detach(shutdown: Bool) {
        instances = max(0, instances - 1)
        if shutdown {
            releaseAll(shutdown: true)
        } else {
            context.writeAtEndOfFrame(ReleaseWhenUnused(self))
        }
    }

    // MARK: Devices

    func deviceAdded(_ device: PresentDevice) {
        guard instances > 0 else { return }
        switch device.info.kind {
        case .touchscreen:
            guard screens[device.info.id] == nil, let mapper = device.mapper else { return }
            let spec = VirtualDeviceSpec.touchscreen(mirroring: device.description,
                                                     displaySize: coordinates == .display ? mapper.displaySize : nil)
            do {
                let made = try UinputDevice(spec)
                let slots = Int((spec.absinfo[AbsCode.mtSlot]?.maximum ?? 9) + 1)
                screens[device.info.id] = Screen(source: device, mapper: mapper, device: made, slots: slots)
                lastScreen = nil
                context.log.info("forward: \"\(Log.escaped(spec.name))\" made for \"\(Log.escaped(device.info.name))\" (rule \(device.info.ruleName))\(made.devnode.map { " at \($0)" } ?? "")")
            } catch {
                fail("cannot make the virtual touchscreen for \"\(Log.escaped(device.info.name))\": \(error); its touches are not forwarded")
            }
        case .keyboard:
            makeKeyboard()
        default:
            break
        }
    }

    /// A source went (its touches were cancelled and queued just before): its frames go out,
    /// then its virtual touchscreen. The keyboard stays (shared by every keyboard).
    func deviceRemoved(_ device: PresentDevice) {
        guard let screen = screens.removeValue(forKey: device.info.id) else { return }
        lastScreen = nil
        if queuedScreen === screen { queuedScreen = nil }
        write(screen)
        retire(screen.device)
        context.log.info("forward: \"\(Log.escaped(screen.device.spec.name))\" removed (its source went)")
    }

    // MARK: Retiring devices

    /// How long a virtual device outlives its going (its source unplugged, the last `forward`
    /// stopped). The kernel throws away what a device's readers have not read when it is
    /// destroyed: a compositor whose reader runs late would lose the lifts written just before
    /// and keep those touches down in its clients (a compositor that passes no cancel on does
    /// not end them when the device goes).
    static let readerGrace: Timestamp.Duration = .seconds(1)
    /// Devices gone from the outputs, destroyed when their grace is over (or at the stop, after
    /// waiting for it).
    private var retiring: [(device: UinputDevice, until: Timestamp, timer: EventLoop.TimerID)] = []

    /// Destroys `device` once its readers have had ``readerGrace`` to read what was written.
    private func retire(_ device: UinputDevice) {
        let until = MonotonicClock.now() + Self.readerGrace
        let timer = context.loop.schedule(at: until) { [weak self, weak device] in
            guard let self, let device else { return }
            self.retiring.removeAll { $0.device === device }
            device.destroy()
        }
        retiring.append((device, until, timer))
    }

    /// At the stop: waits (blocking, once) until every retiring device's grace is over, then
    /// destroys them.
    private func destroyRetiring() {
        guard let last = retiring.map(\.until).max() else { return }
        MonotonicClock.sleep(until: last)
        for r in retiring {
            context.loop.cancel(r.timer)
            r.device.destroy()
        }
        retiring.removeAll()
    }

    @discardableResult
    private func makeKeyboard() -> UinputDevice? {
        if let keyboard { return keyboard }
        do {
            let made = try UinputDevice(VirtualDeviceSpec.keyboard())
            keyboard = made
            context.log.info("forward: \"\(VirtualDeviceNames.keyboard)\" made\(made.devnode.map { " at \($0)" } ?? "")")
            return made
        } catch {
            fail("cannot make the virtual keyboard: \(error); keys are not forwarded")
            return nil
        }
    }

    private func fail(_ message: String) {
        lastError = message
        context.log.limited(.error, &failureLogs, "forward: \(message)")
    }

    // MARK: Touches

    /// Queues a forwarded touch's phase; false when it cannot be forwarded (no virtual device,
    /// no free slot, a later phase of a touch that was not forwarded). `cancel`: how the touch
    /// ends if evroute ends it early (the forwarding instance's option, kept with the touch).
    @inline(__always)
    func touch(_ t: Touch, phase: TouchPhase, time: Timestamp, cancel mode: ForwardCancel = .palm) -> Bool {
        guard instances > 0 else { return false }
        guard let screen = screen(t.device) else { return false }
        if phase == .began {
            guard let slot = screen.freeSlot(), let (x, y) = place(t.location, on: screen) else { return false }
            nextTrackingID = nextTrackingID >= 65535 ? 0 : nextTrackingID + 1
            screen.begin(slot: slot, touch: t.id, trackingID: nextTrackingID, x: x, y: y, pressure: t.pressure,
                         cancel: mode, time: time)
            queueFlush(screen)
            return true
        }
        guard let slot = screen.slot(of: t.id) else { return false }
        switch phase {
        case .moved, .stationary:
            if let (x, y) = self.place(t.location, on: screen) {
                screen.move(slot: slot, x: x, y: y, pressure: t.pressure, time: time)
            } else {
                screen.start(time: time)
            }
        case .ended:
            screen.end(slot: slot, time: time)
        case .cancelled:
            screen.cancel(slot: slot, time: time)
        case .began:
            break
        }
        queueFlush(screen)
        return true
    }

    /// The point's coordinates on the virtual device: the source's own units (exact), or
    /// display units.
    @inline(__always)
    private func place(_ p: Point, on screen: Screen) -> (Int32, Int32)? {
        switch coordinates {
        case .device:
            return screen.unmap(p)
        case .display:
            guard p.x.isFinite, p.y.isFinite else { return nil }
            return (Int32(min(max(p.x.rounded(), 0), screen.maximumX)), Int32(min(max(p.y.rounded(), 0), screen.maximumY)))
        }
    }


    // MARK: Keys

    /// Queues a forwarded key's down, up or cancel (as an up); repeats are not forwarded.
    func key(_ k: KeyInput, phase: KeyPhase) -> Bool {
        guard instances > 0 else { return false }
        let hold = KeyHold(device: k.device, code: k.code)
        switch phase {
        case .down:
            guard (1...0x2ff).contains(k.code), makeKeyboard() != nil else { return false }
            heldKeys.insert(hold)
            keyFrame.append(EventType.key, UInt16(k.code), 1)
        case .up, .cancelled:
            guard heldKeys.remove(hold) != nil else { return false }
            keyFrame.append(EventType.key, UInt16(k.code), 0)
        case .repeat:
            return false   // never routed here: a forwarded key's repeats are not routed (the compositor repeats)
        }
        keyFrame.report()
        queueFlush()
        return true
    }

    /// Types a chord on the virtual keyboard (made now if no keyboard came yet): each
    /// modifier's down, the key's down, its up, the modifiers' ups (last first), each its own
    /// frame. Nothing is left held: the downs and ups are in one wake-up's write.
    func press(_ codes: (modifiers: [UInt16], key: UInt16)) -> Bool {
        guard instances > 0, makeKeyboard() != nil else { return false }
        for (code, value) in Self.pressFrames(codes) {
            keyFrame.append(EventType.key, code, value)
            keyFrame.report()
        }
        queueFlush()
        return true
    }

    /// Types `text` on the virtual keyboard as `keymap` types it, then Enter: per character its
    /// modifier downs, key down, key up, modifier ups, a frame each. Returns how many characters
    /// no key types (left out), or nil when nothing could be written (no keymap, no keyboard).
    func type(_ text: String, keymap spec: KeymapSpec) -> Int? {
        guard instances > 0, makeKeyboard() != nil, let inverse = inverse(of: spec) else { return nil }
        var (strokes, untyped) = inverse.strokes(for: text)
        strokes.append(KeymapInverse.Stroke(modifiers: [], key: 28))   // KEY_ENTER
        // Bounded: what does not fit in the queue is left out, counted like an untyped character.
        let room = max(0, Self.typingLimit - typing.count)
        if strokes.count > room {
            untyped += strokes.count - room
            strokes.removeLast(strokes.count - room)
        }
        typing.append(contentsOf: strokes)
        typeSome()
        return untyped
    }

    /// Strokes waiting to be typed (``type(_:keymap:)``), at most ``typingLimit``.
    private var typing: [KeymapInverse.Stroke] = []
    private var typingTimer: EventLoop.TimerID?
    static let typingLimit = 4096
    /// Strokes per write: a reader of the virtual keyboard (the compositor's libinput) has a
    /// kernel buffer of 64 events per client; a line in one write overflows it (SYN_DROPPED,
    /// keys lost). A few strokes (at most 8 events each), then the next few a millisecond later.
    static let strokesPerWrite = 6

    /// Writes the next strokes now and schedules the rest.
    private func typeSome() {
        guard typingTimer == nil, !typing.isEmpty else { return }
        let n = min(Self.strokesPerWrite, typing.count)
        for s in typing.prefix(n) {
            for (code, value) in Self.pressFrames((s.modifiers, s.key)) {
                keyFrame.append(EventType.key, code, value)
                keyFrame.report()
            }
        }
        typing.removeFirst(n)
        flush()
        guard !typing.isEmpty else { return }
        typingTimer = context.loop.schedule(after: .milliseconds(2)) { [weak self] in
            guard let self else { return }
            typingTimer = nil
            guard instances > 0, keyboard != nil else { typing.removeAll(); return }
            typeSome()
        }
    }

    /// The keymaps read backwards so far (a few: one per keymap of the layouts' rules; the
    /// cache is emptied past 16).
    private var inverses: [KeymapSpec: KeymapInverse] = [:]
    private lazy var keymapLibrary = KeymapLibrary()

    private func inverse(of spec: KeymapSpec) -> KeymapInverse? {
        if let known = inverses[spec] { return known }
        guard let map = try? keymapLibrary.keymap(spec) else {
            fail("keymap \(spec) does not compile: text is not typed")
            return nil
        }
        if inverses.count >= 16 { inverses.removeAll() }
        let inverse = KeymapInverse(map)
        inverses[spec] = inverse
        return inverse
    }

    /// A chord's frames, one key event each: modifier downs, key down, key up, modifier ups.
    static func pressFrames(_ codes: (modifiers: [UInt16], key: UInt16)) -> [(code: UInt16, value: Int32)] {
        codes.modifiers.map { ($0, 1) } + [(codes.key, 1), (codes.key, 0)] + codes.modifiers.reversed().map { ($0, 0) }
    }

    // MARK: Writing

    private func queueFlush() {
        flushQueued = true
    }

    /// ``queueFlush()`` for frames queued on `screen`.
    @inline(__always)
    private func queueFlush(_ screen: Screen) {
        if !flushQueued {
            flushQueued = true
            queuedScreen = screen
        } else if queuedScreen !== screen {
            queuedMore = true
        }
    }

    /// The wake-up's frames, one write(2) per virtual device.
    @inline(__always)
    func flush() {
        flushQueued = false
        if queuedMore {
            for screen in screens.values where screen.hasQueued { write(screen) }
        } else if let screen = queuedScreen, screen.hasQueued {
            write(screen)
        }
        queuedScreen = nil
        queuedMore = false
        if !keyFrame.isEmpty {
            if let keyboard {
                do { try keyFrame.write(to: keyboard) } catch { fail("writing to \"\(VirtualDeviceNames.keyboard)\": \(error)") }
            }
            keyFrame.removeAll()
        }
    }

    @inline(__always)
    private func write(_ screen: Screen) {
        do throws(SystemError) { try screen.write() } catch {
            fail("writing to \"\(Log.escaped(screen.device.spec.name))\": \(error)")
        }
    }

    /// Every forwarded touch cancelled (each as its forwarder's `cancel` says), every held key released, written, and every virtual
    /// device destroyed.
    /// At the end of a wake-up in which an instance stopped: releases everything if none is left.
    private final class ReleaseWhenUnused: EndOfFrameWriter {
        weak var outputs: ForwardOutputs?
        init(_ outputs: ForwardOutputs) { self.outputs = outputs }
        func writeEndOfFrame() {
            guard let outputs, outputs.instances == 0 else { return }
            outputs.releaseAll(shutdown: false)
        }
    }

    /// `shutdown`: the daemon exits after this (the devices' grace is waited for here);
    /// otherwise the devices retire on the loop's timers.
    private func releaseAll(shutdown: Bool) {
        // Typing not done is dropped (every stroke written was whole: nothing is left down).
        if let t = typingTimer { context.loop.cancel(t); typingTimer = nil }
        typing.removeAll()
        var forwarded: [(id: Int, screen: Screen, slot: Int)] = []
        for screen in screens.values {
            for (id, slot) in screen.forwarded { forwarded.append((id, screen, slot)) }
        }
        for (_, screen, slot) in forwarded.sorted(by: { $0.id < $1.id }) {
            screen.cancel(slot: slot, time: nil)
            queueFlush(screen)
        }
        for hold in heldKeys.sorted(by: { ($0.device.rawValue, $0.code) < ($1.device.rawValue, $1.code) }) {
            keyFrame.append(EventType.key, UInt16(hold.code), 0)
            keyFrame.report()
        }
        let wrote = !forwarded.isEmpty || !keyFrame.isEmpty
        heldKeys.removeAll()
        flush()
        // What was just written gets its readers' grace; a device nothing was written to now
        // goes at once.
        for screen in screens.values {
            if wrote { retire(screen.device) } else { screen.device.destroy() }
        }
        screens.removeAll()
        lastScreen = nil
        if let keyboard { if wrote { retire(keyboard) } else { keyboard.destroy() } }
        keyboard = nil
        if shutdown { destroyRetiring() }
    }
}

private extension EventKind {
    /// A touch's began, ended or cancelled phase.
    var isTouchStartOrEnd: Bool {
        if case .touch(let phase, _) = self { return phase == .began || phase == .ended || phase == .cancelled }
        return false
    }
    /// A key's down, up or cancel.
    var isKeyDownOrUp: Bool {
        if case .key(_, let phase) = self { return phase != .repeat }
        return false
    }
}

extension EventKind {
    /// Text typed on a keyboard.
    var isTextKind: Bool {
        if case .text = self { return true }
        return false
    }
}

extension PluginMetric {
    /// `forward`: touches written to a virtual touchscreen.
    static let forwardedTouches = PluginMetric(counter: "forwarded_touches", help: "Touches written to a virtual touchscreen.")
    /// `forward`: keys written to the virtual keyboard.
    static let forwardedKeys = PluginMetric(counter: "forwarded_keys", help: "Keys written to the virtual keyboard.")
    /// `forward`: characters of typed text (`type-text`) that no key of the keymap types (left out).
    static let untypedCharacters = PluginMetric(counter: "untyped_characters", help: "Characters of typed text that no key of the keymap types (left out).")
}

extension ForwardPlugin {
    static let metrics: [PluginMetric] = [.forwardedTouches, .forwardedKeys, .untypedCharacters]
}
