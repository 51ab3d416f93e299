import EvrouteConfig
import EvrouteCore
import EvrouteInput

/// Ties the input stream to the router: builds each new device's stage chain from the rule its
/// source matched it to, runs its raw events through it into touch frames, keys, text and
/// motion signals in display coordinates, and feeds the router. Devices and recordings arrive
/// the same way, through the one ``InputSink`` channel, so a replay and a live device route
/// identically. One event loop owns a session.
///
/// The session owns the router's time: each item advances it to the item's time (the clock
/// the events are stamped with — `CLOCK_MONOTONIC` live, the recording's time in a replay), and
/// ``advanceTime(to:)`` moves it between items (a gesture deadline, a reload, shutdown).
public final class RoutingSession: InputSink {
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
    /// Called after a device is added (its stages built, the router told): its info, its
    /// description, and for a touch device the mapping of its axes onto its display.
    public var onDeviceAdded: ((DeviceInfo, DeviceDescription, CoordinateMapper?) -> Void)?
    /// Called after a device is removed (its touches, keys and line ended): its id and when.
    public var onDeviceRemoved: ((DeviceID, Timestamp) -> Void)?
    /// Contacts (and samples without a finite point) dropped so far, of devices gone included.
    public var contactsDropped: Int {
        devices.values.reduce(droppedByRemovedDevices) { $0 + ($1.touch.map { $0.droppedContacts + $0.droppedSamples } ?? 0) }
    }
    private var droppedByRemovedDevices = 0

    /// A device rule's input counters (`evroute_device_*_total`): its devices' raw events, the
    /// last one's time and their `SYN_DROPPED`s, of devices gone included.
    public struct DeviceCounts: Sendable, Equatable {
        public var events = 0
        public var lastEventTime: Timestamp?
        public var synDropped = 0

        public init() {}

        mutating func add(_ ctx: DeviceContext) {
            events += ctx.events
            if let t = ctx.lastEventTime, lastEventTime.map({ t > $0 }) ?? true { lastEventTime = t }
            synDropped += ctx.touch?.synDropped ?? 0
        }
    }
    /// The counters of devices removed, by rule name.
    private var removedDeviceCounts: [String: DeviceCounts] = [:]
    /// Each device rule's counters (by rule name), of its devices present and gone.
    public var deviceCounts: [String: DeviceCounts] {
        var counts = removedDeviceCounts
        for ctx in devices.values { counts[ctx.info.ruleName, default: DeviceCounts()].add(ctx) }
        return counts
    }

    /// A device's stage chain, built once when it arrives (``makeContext(for:time:)``), from its
    /// rule: touch decode → map → contact filters → frame; keys → text (→ line); motion.
    final class DeviceContext {
        let info: DeviceInfo
        /// `info.id`, stored (read per event).
        let id: DeviceID
        /// Touchscreens, touchpads, tablets: decode and map to the display, then build frames.
        let touch: TouchDecoder?
        /// `touch`, for the per-read path: used without a retain (`touch` keeps it).
        let touchRef: Unmanaged<TouchDecoder>?
        /// The touch frames' contact filters, in order (``TouchFrameFilters``; empty: none).
        let filters: [any TouchFrameFilter]
        @exclusivity(unchecked) var keys: KeyDecoder?
        /// Keys → text (libxkbcommon), for devices with typing keys whose rule wants text.
        let text: TextDecoder?
        /// `text: line`: the line being collected (and its keys are not routed).
        @exclusivity(unchecked) var line: LineCollector?
        /// Accelerometers: axes → samples in g → paced samples, orientation, shakes (the stage).
        @exclusivity(unchecked) var motion: MotionStage?
        /// Raw events read and the time of the last one (``deviceCounts``).
        @exclusivity(unchecked) var events = 0
        @exclusivity(unchecked) var lastEventTime: Timestamp?

        init(info: DeviceInfo, touch: TouchDecoder?, filters: [any TouchFrameFilter], keys: KeyDecoder?,
             text: TextDecoder?, line: LineCollector?, motion: MotionStage?) {
            self.info = info
            id = info.id
            self.touch = touch
            touchRef = touch.map { Unmanaged.passUnretained($0) }
            self.filters = filters
            self.keys = keys
            self.text = text
            self.line = line
            self.motion = motion
        }
    }

    /// Devices being routed; events of any other device (one no rule matched) are dropped.
    @exclusivity(unchecked) var devices: [DeviceID: DeviceContext] = [:] {
        didSet { lastDevice = nil }
    }
    /// The device of the previous read (a device's events come in runs: one read of a live
    /// device, a frame of a recording), so most reads find their context without a hash — nor a
    /// retain: ``devices`` holds it, and it is forgotten whenever ``devices`` changes.
    @exclusivity(unchecked) private var lastDevice: Unmanaged<DeviceContext>?
    /// The devices collecting lines (`text: line`), for their deadlines.
    @exclusivity(unchecked) var lineDevices: [DeviceContext] = []
    /// The devices with contact filters (their deadlines: a held contact's bound).
    var filterDevices: [DeviceContext] = []
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
        if !filterDevices.isEmpty { expireFilters(until: time) }
        router.advanceTime(to: time)
    }

    /// The next time something is due without input: a gesture recognizer's timer or a
    /// scanner's line timeout. A live loop arms its timer for it (``SessionTimer``).
    public var nextDeadline: Timestamp? {
        if lineDevices.isEmpty && filterDevices.isEmpty { return router.nextTimerDeadline }
        var next = router.nextTimerDeadline
        for ctx in lineDevices {
            if let d = ctx.line?.deadline, next.map({ d < $0 }) ?? true { next = d }
        }
        for ctx in filterDevices {
            for filter in ctx.filters {
                if let d = filter.deadline, next.map({ d < $0 }) ?? true { next = d }
            }
        }
        return next
    }

    // MARK: InputSink

    /// A device its source matched to a rule: its stage chain is built and it is routed from now.
    public func deviceAdded(_ device: MatchedDevice, at time: Timestamp) {
        advanceTime(to: time)
        add(device)
    }

    /// A recorded device no rule takes: told to ``onDeviceIgnored``; its events are dropped.
    public func deviceIgnored(_ id: DeviceID, _ description: DeviceDescription, kind: DeviceKind,
                              reason: DeviceIgnoreReason, at time: Timestamp) {
        advanceTime(to: time)
        onDeviceIgnored?(id, description, kind, reason, now)
    }

    /// The device went: its touches, held keys and line end.
    public func deviceRemoved(_ id: DeviceID, at time: Timestamp) {
        advanceTime(to: time)
        remove(id, at: time)
        onDeviceRemoved?(id, time)
    }

    /// Takes a run of one device's raw events (one read of a live device), each at its time:
    /// the same as handing them one at a time, with the device found once.
    /// (Never inlined: one call per read, and the live path's boundary in a profile.)
    @inline(never)
    public func events(_ events: UnsafeBufferPointer<InputEvent>, from id: DeviceID) {
        if let last = lastDevice, last._withUnsafeGuaranteedRef({ $0.id == id }) {
            // Borrowed, not retained: `devices` keeps it while the read is routed (a device
            // is removed only by `deviceRemoved`, never from inside a read).
            last._withUnsafeGuaranteedRef { route(events, $0) }
            return
        }
        guard let ctx = devices[id] else {
            for event in events { advanceTime(to: event.time) }
            return
        }
        lastDevice = Unmanaged.passUnretained(ctx)
        route(events, ctx)
    }

    /// One read through a device's chain.
    @inline(__always)
    private func route(_ events: UnsafeBufferPointer<InputEvent>, _ ctx: DeviceContext) {
        guard let last = events.last else { return }
        ctx.events &+= events.count
        ctx.lastEventTime = last.time
        // A touch device's axis events, most of a frame, go to its decoder a run at a time
        // (the same as one by one: they only update the decoder).
        let touchOnly = ctx.motion == nil ? ctx.touchRef : nil
        var i = 0
        while i < events.count {
            let event = events[i]
            if event.type == EventType.abs {
                if let touchOnly {
                    i = touchOnly._withUnsafeGuaranteedRef { $0.feedAxes(events, from: i) }
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

    func add(_ device: MatchedDevice) {
        let time = router.clock.now
        let ctx = makeContext(for: device, time: time)
        devices[device.id] = ctx
        if ctx.line != nil { lineDevices.append(ctx) }
        if !ctx.filters.isEmpty { filterDevices.append(ctx) }
        router.addDevice(ctx.info, time: time)
        onDeviceAdded?(ctx.info, device.description, ctx.touch?.mapper)
        if let decoder = ctx.touch, decoder.hasWarnings { reportWarnings(decoder, ctx, time) }
    }

    /// A device's stage chain, from the rule it matched: the one place stages are chosen.
    func makeContext(for device: MatchedDevice, time: Timestamp) -> DeviceContext {
        let (id, description, kind, rule) = (device.id, device.description, device.kind, device.rule)
        let displays = layout.deviceRuleDisplays
        let display = layout.displays[displays.indices.contains(device.ruleIndex) ? displays[device.ruleIndex] : 0]
        var info = DeviceInfo(id: id, ruleName: rule.name, name: description.name, kind: kind, display: display.name)
        let touchLike = kind == .touchscreen || kind == .touchpad || kind == .tablet
        var touch: TouchDecoder?
        var filters: [any TouchFrameFilter] = []
        if touchLike {
            touch = TouchDecoder(device: id, description: description, displaySize: display.size,
                                 rotation: DisplayRotation(degrees: rule.rotate) ?? .none,
                                 calibration: rule.calibration.map { CalibrationMatrix($0[0], $0[1], $0[2], $0[3], $0[4], $0[5]) })
            filters = TouchFrameFilters.make(for: rule, displaySize: display.size)
        }
        let hasKeys = !(description.events[EventType.key]?.isEmpty ?? true)
        let keys = hasKeys ? KeyDecoder(device: id, description: description) : nil
        var text: TextDecoder?
        var line: LineCollector?
        if !touchLike, rule.text != .off, Self.hasTypingKeys(description) {
            text = textDecoder(for: rule, device: info, time: time)
            if text != nil, rule.text == .line {
                line = LineCollector(timeout: rule.lineTimeoutMs > 0 ? .milliseconds(Int64(rule.lineTimeoutMs)) : nil)
            }
        }
        info.typesText = text != nil
        if let text, !text.keymap.rightAltIsAlt { info.rightAltTypes = true }
        var motion: MotionStage?
        if kind == .accelerometer, let decoder = MotionDecoder(device: id, description: description) {
            motion = MotionStage(decoder: decoder)
            if decoder.assumedScale {
                onWarning?("device \"\(description.name)\" (rule \(rule.name)): an accelerometer axis has no resolution; its range is taken as ±2 g", time)
            }
        }
        return DeviceContext(info: info, touch: touch, filters: filters, keys: keys, text: text, line: line, motion: motion)
    }

    /// Runs a device's contact filters on a frame; what they drop or cancel goes to the router
    /// (counted, observed, never routed).
    func runFilters(_ filters: [any TouchFrameFilter], _ frame: inout TouchFrameInput) {
        // The contacts as they came: one the filters hold back is still a finger on the display.
        router.noteContacts(frame)
        var filtered: [FilteredContact] = []
        for filter in filters { filter.filter(&frame, &filtered) }
        for contact in filtered { router.filtered(contact) }
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
        if !ctx.filters.isEmpty { filterDevices.removeAll { $0 === ctx } }
        if var frame = ctx.touch?.cancelAll(at: time) {
            if !ctx.filters.isEmpty { runFilters(ctx.filters, &frame) }
            if !frame.contacts.isEmpty { router.handle(frame) }
        }
        if let decoder = ctx.touch {
            if decoder.hasWarnings { reportWarnings(decoder, ctx, time) }
            droppedByRemovedDevices += decoder.droppedContacts + decoder.droppedSamples
        }
        var gone = removedDeviceCounts[ctx.info.ruleName] ?? DeviceCounts()
        gone.add(ctx)
        removedDeviceCounts[ctx.info.ruleName] = gone
        router.removeDevice(id, time: time)
    }

    @inline(__always)
    func handleEvent(_ event: InputEvent, _ ctx: DeviceContext) {
        if ctx.motion != nil, let signals = ctx.motion!.feed(event, spec: layout.spec.motion) { router.handle(signals) }
        if let decoder = ctx.touchRef {
            if var frame = decoder._withUnsafeGuaranteedRef({ $0.feed(event) }) {
                if !ctx.filters.isEmpty { runFilters(ctx.filters, &frame) }
                if !frame.contacts.isEmpty { router.handle(frame) }
            }
            // Warnings come up while a frame is read and are told at its end (a frame's events
            // share their time), or when the device goes.
            if event.type == EventType.syn, decoder._withUnsafeGuaranteedRef({ $0.hasWarnings }) {
                reportWarnings(decoder.takeUnretainedValue(), ctx, event.time)
            }
        }
        if event.type == EventType.key, let key = ctx.keys?.feed(event) {
            guard let text = ctx.text else { router.handle(key); return }
            let typed = text.feed(key)
            if ctx.line != nil {
                // A scanner: its keys make a line, not key events.
                if let line = ctx.line!.feed(typed, at: key.time) {
                    router.handle(TextInput(device: ctx.id, time: key.time, text: line))
                }
                return
            }
            // The key first; its text only when the router found a taker for text and no chord.
            if router.handle(key), case .text(let s) = typed { router.handle(TextInput(device: ctx.id, time: key.time, text: s)) }
        }
    }

    /// Sends, in deadline order, each line whose silence ran out by `time`, at its deadline.
    /// Filters' deadlines up to `time`, in order: each as an empty frame of its device at the
    /// deadline, through that filter's `expire` and the filters after it, then routed.
    func expireFilters(until time: Timestamp) {
        while true {
            var due: (ctx: DeviceContext, index: Int, deadline: Timestamp)?
            for ctx in filterDevices {
                for (i, filter) in ctx.filters.enumerated() {
                    if let d = filter.deadline, d <= time, due.map({ d < $0.deadline }) ?? true { due = (ctx, i, d) }
                }
            }
            guard let due else { return }
            router.advanceTime(to: due.deadline)
            var frame = TouchFrameInput(device: due.ctx.info.id, time: due.deadline, contacts: [])
            var filtered: [FilteredContact] = []
            due.ctx.filters[due.index].expire(&frame, &filtered)
            for filter in due.ctx.filters[(due.index + 1)...] { filter.filter(&frame, &filtered) }
            for contact in filtered { router.filtered(contact) }
            if !frame.contacts.isEmpty { router.handle(frame) }
        }
    }

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
