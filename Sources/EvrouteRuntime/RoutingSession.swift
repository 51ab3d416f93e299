import EvrouteCore
import EvrouteInput

/// Ties the input stream to the router: matches each new device to a device rule, decodes its
/// raw events into touch frames and keys in display coordinates, and feeds the router.
/// Devices and recordings arrive the same way, as ``InputItem``s, so a replay and a live
/// device route identically. One event loop owns a session.
///
/// The session owns the router's time: each item advances it to the item's time (the clock
/// the events are stamped with — `CLOCK_MONOTONIC` live, the recording's time in a replay), and
/// ``advanceTime(to:)`` moves it between items (a gesture deadline, a reload, shutdown).
public final class RoutingSession: InputEventSink {
    public let router: Router
    /// The layout new touches and devices use: the router's (run-time changes included).
    public var layout: Layout { router.layout }
    /// Called for a device that matches no rule (it is then ignored): its id, description,
    /// kind, why no rule takes it, and when.
    public var onDeviceIgnored: ((DeviceID, DeviceDescription, DeviceKind, DeviceIgnoreReason, Timestamp) -> Void)?
    /// Called when a device's input cannot be taken as sent (a contact beyond the slot or
    /// per-frame limits, a point that maps to no finite display point, a bad udev calibration):
    /// once per kind and device, with what was left out and the limit.
    public var onDeviceWarning: ((DeviceInfo, TouchDecoder.Warning, Timestamp) -> Void)?
    /// Contacts (and samples without a finite point) dropped so far, of devices gone included.
    public var contactsDropped: Int {
        devices.values.reduce(droppedByRemovedDevices) { $0 + ($1.touch.map { $0.droppedContacts + $0.droppedSamples } ?? 0) }
    }
    private var droppedByRemovedDevices = 0

    /// Per-device decoding state.
    final class DeviceContext {
        let info: DeviceInfo
        /// `info.id`, stored (read per event).
        let id: DeviceID
        let touch: TouchDecoder?
        @exclusivity(unchecked) var keys: KeyDecoder?
        /// Keys → text (libxkbcommon), for devices with typing keys whose rule wants text.
        let text: TextDecoder?
        /// `text: line`: the line being collected (and its keys are not routed).
        @exclusivity(unchecked) var line: LineCollector?
        /// Accelerometers: axes → samples in g → paced samples, orientation, shakes (the stage).
        @exclusivity(unchecked) var motion: MotionStage?

        init(info: DeviceInfo, description: DeviceDescription, touch: TouchDecoder?, text: TextDecoder?, line: LineCollector?) {
            self.info = info
            id = info.id
            self.touch = touch
            let hasKeys = !(description.events[EventType.key]?.isEmpty ?? true)
            keys = hasKeys ? KeyDecoder(device: info.id, description: description) : nil
            self.text = text
            self.line = line
        }
    }

    /// Devices being routed; events of any other device (one no rule matched) are dropped.
    @exclusivity(unchecked) var devices: [DeviceID: DeviceContext] = [:] {
        didSet { lastDevice = nil }
    }
    /// The device of the previous event (a device's events come in runs: one read of a live
    /// device, a frame of a recording), so most events find their context without a hash.
    /// Forgotten whenever ``devices`` changes.
    @exclusivity(unchecked) private var lastDevice: DeviceContext?
    /// The devices collecting lines (`text: line`), for their deadlines.
    @exclusivity(unchecked) var lineDevices: [DeviceContext] = []
    /// The xkbcommon context, keymaps and compose table: the one given to ``init(layout:clock:keymaps:)``,
    /// else made when the first keyboard comes.
    lazy var keymaps: KeymapLibrary = givenKeymaps ?? KeymapLibrary()
    private let givenKeymaps: KeymapLibrary?
    /// Said once per session: no compose table could be loaded.
    var composeProblemSaid = false
    /// Called with what keeps a device from typing text as its rule says (a keymap that does
    /// not compile, no compose table): the device still routes its keys.
    public var onWarning: ((String, Timestamp) -> Void)?

    /// `keymaps`: a library to compile keymaps in, shared with other sessions (a keymap is
    /// compiled once per library, in a few milliseconds: the fuzzer makes a session per input);
    /// by default the session makes its own when the first keyboard comes.
    public init(layout: Layout, clock: EventClock = ManualClock(), keymaps: KeymapLibrary? = nil) {
        router = Router(layout: layout, clock: clock)
        givenKeymaps = keymaps
    }

    /// Devices being routed.
    public var activeDevices: [DeviceInfo] { devices.values.map(\.info) }

    /// The router's time: the latest item's, or later.
    public var now: Timestamp { router.clock.now }

    /// Moves the router's time forward (never back), firing gesture deadlines and sending
    /// scanners' lines whose `line-timeout-ms` ran out on the way, each at its own time.
    @inline(__always)
    public func advanceTime(to time: Timestamp) {
        if !lineDevices.isEmpty { sendTimedOutLines(until: time) }
        router.advanceTime(to: time)
    }

    /// The next time something is due without input: a gesture recognizer's timer or a
    /// scanner's line timeout. A live loop arms its timer for it (``SessionTimer``).
    public var nextDeadline: Timestamp? {
        if lineDevices.isEmpty { return router.nextTimerDeadline }
        var next = router.nextTimerDeadline
        for ctx in lineDevices {
            if let d = ctx.line?.deadline, next.map({ d < $0 }) ?? true { next = d }
        }
        return next
    }

    /// Takes one item of the input stream, at its time (an event as a run of one: see
    /// ``handle(_:from:)``).
    public func handle(_ item: InputItem) {
        switch item {
        case .event(let id, let event):
            withUnsafePointer(to: event) { handle(UnsafeBufferPointer(start: $0, count: 1), from: id) }
        case .added(let id, let description, let time):
            advanceTime(to: time)
            add(id, description)
        case .removed(let id, let time):
            advanceTime(to: time)
            remove(id, at: time)
        }
    }

    /// Takes a run of one device's raw events (one read of a live device), each at its time:
    /// the same as handing them one by one as `.event` items, with the device found once.
    /// (Never inlined: one call per read, and the live path's boundary in a profile.)
    @inline(never)
    public func handle(_ events: UnsafeBufferPointer<InputEvent>, from id: DeviceID) {
        let ctx: DeviceContext?
        if let last = lastDevice, last.id == id {
            ctx = last
        } else {
            ctx = devices[id]
            if ctx != nil { lastDevice = ctx }
        }
        guard let ctx else {
            for event in events { advanceTime(to: event.time) }
            return
        }
        // A touch device's axis events, most of a frame, go to its decoder a run at a time
        // (the same as one by one: they only update the decoder).
        let touchOnly = ctx.motion == nil ? ctx.touch : nil
        var i = 0
        while i < events.count {
            let event = events[i]
            if event.type == EventType.abs {
                if let touchOnly {
                    i = touchOnly.feedAxes(events, from: i)
                    continue
                }
            } else {
                // An axis event only updates a decoder (frames and samples go out on
                // `SYN_REPORT`): the router's time, its timers and the line timeouts move at
                // the other events, before anything is routed — as if they had moved at every event.
                advanceTime(to: event.time)
            }
            handleEvent(event, ctx)
            i += 1
        }
    }

    func add(_ id: DeviceID, _ description: DeviceDescription) {
        let kind = DeviceKind.of(description)
        let time = router.clock.now
        let matcher = DeviceRuleMatcher(rules: layout.deviceRules)
        guard let rule = matcher.firstMatch(for: description, kind: kind),
              let ruleIndex = layout.deviceRules.firstIndex(where: { $0.name == rule.name }) else {
            onDeviceIgnored?(id, description, kind, matcher.whyNone(for: description, kind: kind), time)
            return
        }
        let display = layout.displays[layout.deviceRuleDisplays[ruleIndex]]
        let info = DeviceInfo(id: id, ruleName: rule.name, name: description.name, kind: kind, display: display.name)
        let touchLike = kind == .touchscreen || kind == .touchpad || kind == .tablet
        var decoder: TouchDecoder?
        if touchLike {
            decoder = TouchDecoder(device: id, description: description, displaySize: display.size,
                                   rotation: DisplayRotation(degrees: rule.rotate) ?? .none,
                                   calibration: rule.calibration.map { CalibrationMatrix($0[0], $0[1], $0[2], $0[3], $0[4], $0[5]) })
        }
        var text: TextDecoder?
        var line: LineCollector?
        if !touchLike, rule.text != .off, Self.hasTypingKeys(description) {
            text = textDecoder(for: rule, device: info, time: time)
            if text != nil, rule.text == .line {
                line = LineCollector(timeout: rule.lineTimeoutMs > 0 ? .milliseconds(Int64(rule.lineTimeoutMs)) : nil)
            }
        }
        let ctx = DeviceContext(info: info, description: description, touch: decoder, text: text, line: line)
        if kind == .accelerometer, let motion = MotionDecoder(device: id, description: description) {
            ctx.motion = MotionStage(decoder: motion)
            if motion.assumedScale {
                onWarning?("device \"\(description.name)\" (rule \(rule.name)): an accelerometer axis has no resolution; its range is taken as ±2 g", time)
            }
        }
        devices[id] = ctx
        if line != nil { lineDevices.append(ctx) }
        router.addDevice(info, time: time)
        if let decoder, decoder.hasWarnings { reportWarnings(decoder, ctx, time) }
    }

    func reportWarnings(_ decoder: TouchDecoder, _ ctx: DeviceContext, _ time: Timestamp) {
        for warning in decoder.takeWarnings() { onDeviceWarning?(ctx.info, warning, time) }
    }

    /// Whether a device has a key that types (a letter, digit, symbol or keypad key).
    static func hasTypingKeys(_ description: DeviceDescription) -> Bool {
        (description.events[EventType.key] ?? []).contains { KeyNames.isTyping(EventCodeNames.keyName($0)) }
    }

    /// A text decoder on the rule's keymap; nil, after a warning, when the keymap does not compile.
    func textDecoder(for rule: DeviceRuleSpec, device: DeviceInfo, time: Timestamp) -> TextDecoder? {
        let keymap: Keymap
        do {
            keymap = try keymaps.keymap(rule.keymap)
        } catch {
            let place = rule.keymapLocation.map { "\($0): " } ?? ""
            onWarning?("\(place)device \"\(device.name)\" (rule \(rule.name)): \(error); it types no text, its keys route as keys", time)
            return nil
        }
        let compose = keymaps.compose()
        if compose == nil, !composeProblemSaid, let problem = keymaps.composeProblem {
            composeProblemSaid = true
            onWarning?(problem, time)
        }
        return TextDecoder(keymap: keymap, composeTable: compose)
    }

    func remove(_ id: DeviceID, at time: Timestamp) {
        guard let ctx = devices.removeValue(forKey: id) else { return }
        if ctx.line != nil {
            lineDevices.removeAll { $0 === ctx }
            // A line still collecting goes out now, as if its silence had run out.
            if let line = ctx.line?.take() { router.handle(TextInput(device: id, time: time, text: line)) }
        }
        if let frame = ctx.touch?.cancelAll(at: time), !frame.contacts.isEmpty { router.handle(frame) }
        if let decoder = ctx.touch {
            if decoder.hasWarnings { reportWarnings(decoder, ctx, time) }
            droppedByRemovedDevices += decoder.droppedContacts + decoder.droppedSamples
        }
        router.removeDevice(id, time: time)
    }

    @inline(__always)
    func handleEvent(_ event: InputEvent, _ ctx: DeviceContext) {
        if ctx.motion != nil, let signals = ctx.motion!.feed(event, spec: layout.spec.motion) { router.handle(signals) }
        if let decoder = ctx.touch {
            if let frame = decoder.feed(event), !frame.contacts.isEmpty { router.handle(frame) }
            // Warnings come up while a frame is read and are told at its end (a frame's events
            // share their time), or when the device goes.
            if event.type == EventType.syn, decoder.hasWarnings {
                reportWarnings(decoder, ctx, event.time)
            }
        }
        if event.type == EventType.key, let key = ctx.keys?.feed(event) {
            guard let text = ctx.text else { return router.handle(key) }
            let typed = text.feed(key)
            if ctx.line != nil {
                // A scanner: its keys make a line, not key events.
                if let line = ctx.line!.feed(typed, at: key.time) {
                    router.handle(TextInput(device: ctx.id, time: key.time, text: line))
                }
                return
            }
            router.handle(key)
            if case .text(let s) = typed { router.handle(TextInput(device: ctx.id, time: key.time, text: s)) }
        }
    }

    /// Sends, in deadline order, each line whose silence ran out by `time`, at its deadline.
    func sendTimedOutLines(until time: Timestamp) {
        while true {
            var due: (ctx: DeviceContext, deadline: Timestamp)?
            for ctx in lineDevices {
                if let d = ctx.line?.deadline, d <= time, due.map({ d < $0.deadline }) ?? true { due = (ctx, d) }
            }
            guard let due else { return }
            router.advanceTime(to: due.deadline)
            if let line = due.ctx.line?.take() {
                router.handle(TextInput(device: due.ctx.info.id, time: due.deadline, text: line))
            }
        }
    }

    /// Swaps in a new layout (reload): devices keep their decoders; touches stay bound.
    public func replaceLayout(_ new: Layout, time: Timestamp) {
        router.replaceLayout(new, time: time)
    }

    /// Ends the session: every device is removed (touches and held keys cancelled).
    public func finish(at time: Timestamp) {
        for id in Array(devices.keys).sorted(by: { $0.rawValue < $1.rawValue }) { remove(id, at: time) }
    }
}
