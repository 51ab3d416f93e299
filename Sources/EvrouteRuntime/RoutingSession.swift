import EvrouteConfig
import EvrouteCore
import EvrouteInput

/// Ties the input stream to the router: builds each new device's dispatcher from the rule its
/// source matched it to (``DeviceDispatcher``: touch, keys or motion), which turns its raw
/// events into touch frames, keys, text and motion signals in display coordinates for the
/// router. Devices and recordings arrive
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
    /// Called after a device is added (its dispatcher built, the router told): its info, its
    /// description, and for a touch device the mapping of its axes onto its display.
    public var onDeviceAdded: ((DeviceInfo, DeviceDescription, CoordinateMapper?) -> Void)?
    /// Called after a device is removed (its touches, keys and line ended): its id and when.
    public var onDeviceRemoved: ((DeviceID, Timestamp) -> Void)?
    /// Contacts (and samples without a finite point) dropped so far, of devices gone included.
    public var contactsDropped: Int {
        devices.values.reduce(droppedByRemovedDevices) { $0 + $1.dispatcher.droppedContacts }
    }
    private var droppedByRemovedDevices = 0

    /// A device rule's input counters (`evroute_device_*_total`): its devices' raw events, the
    /// last one's time and their `SYN_DROPPED`s, of devices gone included.
    public struct DeviceCounts: Sendable, Equatable {
        public var events = 0
        public var lastEventTime: Timestamp?
        public var synDropped = 0

        public init() {}

        mutating func add(_ device: Device) {
            events += device.events
            if let t = device.lastEventTime, lastEventTime.map({ t > $0 }) ?? true { lastEventTime = t }
            synDropped += device.dispatcher.synDropped
        }
    }
    /// The counters of devices removed, by rule name.
    private var removedDeviceCounts: [String: DeviceCounts] = [:]
    /// Each device rule's counters (by rule name), of its devices present and gone.
    public var deviceCounts: [String: DeviceCounts] {
        var counts = removedDeviceCounts
        for device in devices.values { counts[device.info.ruleName, default: DeviceCounts()].add(device) }
        return counts
    }

    /// A device being routed: its dispatcher (built once when it arrives, from its rule:
    /// ``makeDispatcher(for:time:)``) and its counters.
    final class Device {
        let info: DeviceInfo
        /// `info.id`, stored (read per read).
        let id: DeviceID
        let dispatcher: any DeviceDispatcher
        /// Raw events read and the time of the last one (``deviceCounts``).
        var events = 0
        var lastEventTime: Timestamp?

        init(info: DeviceInfo, dispatcher: any DeviceDispatcher) {
            self.info = info
            id = info.id
            self.dispatcher = dispatcher
        }
    }

    /// Devices being routed; events of any other device (one no rule matched) are dropped.
    var devices: [DeviceID: Device] = [:] {
        didSet { lastDevice = nil }
    }
    /// The device of the previous read (a device's events come in runs: one read of a live
    /// device, a frame of a recording), so most reads find it without a hash.
    private var lastDevice: Device?
    /// The devices whose dispatchers can have deadlines, in arrival order (the first wins a tie).
    var timedDevices: [Device] = [] {
        didSet { dispatcherDue = .unknown }
    }
    /// The earliest of their deadlines, kept until a dispatcher says its own may have moved
    /// (``dispatcherDeadlinesChanged()``): time moves at nearly every event, deadlines seldom.
    private var dispatcherDue = DispatcherDue.none
    private enum DispatcherDue { case none, at(Timestamp), unknown }
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

    /// Moves the router's time forward (never back), firing on the way, each at its own time,
    /// what the devices' dispatchers have due (a contact filter's hold, a scanner's
    /// `line-timeout-ms`) and the router's deadlines (gestures, idle).
    @inline(__always)
    public func advanceTime(to time: Timestamp) {
        expireDispatchers(upTo: time)
        router.advanceTime(to: time)
    }

    /// The first half of ``advanceTime(to:)``: what the dispatchers have due up to `time`. (A
    /// dispatcher whose next step moves the router's time itself — a frame it routes — calls
    /// this, then leaves the router's to it.)
    @inline(__always)
    func expireDispatchers(upTo time: Timestamp) {
        switch dispatcherDue {
        case .none: break
        case .at(let due) where due > time: break
        default: expireDispatchers(until: time)
        }
    }

    /// A dispatcher's deadline may have moved (it took input that sets or clears one).
    func dispatcherDeadlinesChanged() {
        dispatcherDue = .unknown
    }

    /// The next time something is due without input: the router's (a gesture recognizer's timer,
    /// a display's idle) or a device dispatcher's. A live loop arms its timer for it (``SessionTimer``).
    public var nextDeadline: Timestamp? {
        let routers = router.nextTimerDeadline
        guard let own = earliestDispatcherDeadline()?.deadline else { return routers }
        return routers.map { min($0, own) } ?? own
    }

    /// The one deadline merge: the earliest of the dispatchers' deadlines and whose it is.
    private func earliestDispatcherDeadline() -> (device: Device, deadline: Timestamp)? {
        var due: (device: Device, deadline: Timestamp)?
        for device in timedDevices {
            if let d = device.dispatcher.deadline, due.map({ d < $0.deadline }) ?? true { due = (device, d) }
        }
        return due
    }

    /// Fires, in deadline order, each dispatcher deadline up to `time`, the router's time
    /// moved to each first (its own deadlines before it fire first).
    private func expireDispatchers(until time: Timestamp) {
        var next = earliestDispatcherDeadline()
        while let due = next, due.deadline <= time {
            router.advanceTime(to: due.deadline)
            due.device.dispatcher.expire(at: due.deadline, in: self)
            next = earliestDispatcherDeadline()
        }
        dispatcherDue = next.map { .at($0.deadline) } ?? .none
    }

    // MARK: InputSink

    /// A device its source matched to a rule: its dispatcher is built and it is routed from now.
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
    public func events(_ batch: InputBatch, from id: DeviceID) {
        guard let last = batch.lastEvent else { return }
        guard let dispatcher = countRead(of: id, batch.count, last: last.time) else {
            for i in batch.indices { advanceTime(to: batch[i].time) }
            return
        }
        dispatcher.dispatch(batch, in: self)
    }

    /// Counts a read of `count` events, the last at `time`, for device `id`; returns its
    /// dispatcher (nil: a device not routed). The device is not kept past the count: only its
    /// dispatcher is held for the read.
    @inline(__always)
    private func countRead(of id: DeviceID, _ count: Int, last time: Timestamp) -> (any DeviceDispatcher)? {
        if let last = lastDevice, last.id == id {
            last.events &+= count
            last.lastEventTime = time
            return last.dispatcher
        }
        guard let found = devices[id] else { return nil }
        lastDevice = found
        found.events &+= count
        found.lastEventTime = time
        return found.dispatcher
    }

    func add(_ matched: MatchedDevice) {
        let time = router.clock.now
        let (info, dispatcher) = makeDispatcher(for: matched, time: time)
        let device = Device(info: info, dispatcher: dispatcher)
        devices[matched.id] = device
        if dispatcher.hasDeadlines { timedDevices.append(device) }
        router.addDevice(info, time: time)
        let touch = dispatcher as? TouchDispatcher
        onDeviceAdded?(info, matched.description, touch?.decoder.mapper)
        if let touch, touch.decoder.hasWarnings { touch.reportWarnings(self, at: time) }
    }

    /// A device's dispatcher, from the rule it matched: the one place stages are chosen.
    /// Touchscreens, touchpads, tablets: touch; accelerometers: motion; any other: keys.
    func makeDispatcher(for device: MatchedDevice, time: Timestamp) -> (DeviceInfo, any DeviceDispatcher) {
        let (id, description, kind, rule) = (device.id, device.description, device.kind, device.rule)
        let displays = layout.deviceRuleDisplays
        let display = layout.displays[displays.indices.contains(device.ruleIndex) ? displays[device.ruleIndex] : 0]
        var info = DeviceInfo(id: id, ruleName: rule.name, name: description.name, kind: kind, display: display.name)
        let touchLike = kind == .touchscreen || kind == .touchpad || kind == .tablet
        let hasKeys = !(description.events[EventType.key]?.isEmpty ?? true)
        let keyDecoder = hasKeys ? KeyDecoder(device: id, description: description) : nil
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
        let keys = KeyDispatcher(device: id, keys: keyDecoder, text: text, line: line)
        if touchLike {
            let decoder = TouchDecoder(device: id, description: description, displaySize: display.size,
                                       rotation: DisplayRotation(degrees: rule.rotate) ?? .none,
                                       calibration: rule.calibration.map { CalibrationMatrix($0[0], $0[1], $0[2], $0[3], $0[4], $0[5]) })
            let filters = TouchFrameFilters.make(for: rule, displaySize: display.size)
            return (info, TouchDispatcher(info: info, decoder: decoder, filters: filters, keys: hasKeys ? keys : nil))
        }
        if kind == .accelerometer, let decoder = MotionDecoder(device: id, description: description) {
            if decoder.assumedScale {
                onWarning?("device \"\(description.name)\" (rule \(rule.name)): an accelerometer axis has no resolution; its range is taken as ±2 g", time)
            }
            return (info, MotionDispatcher(stage: MotionStage(decoder: decoder), keys: hasKeys ? keys : nil))
        }
        return (info, keys)
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
        guard let device = devices.removeValue(forKey: id) else { return }
        timedDevices.removeAll { $0 === device }
        device.dispatcher.removeAll(at: time, in: self)
        droppedByRemovedDevices += device.dispatcher.droppedContacts
        var gone = removedDeviceCounts[device.info.ruleName] ?? DeviceCounts()
        gone.add(device)
        removedDeviceCounts[device.info.ruleName] = gone
        router.removeDevice(id, time: time)
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
