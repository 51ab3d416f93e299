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
public final class RoutingSession {
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
        let touch: TouchDecoder?
        var keys: KeyDecoder?

        init(info: DeviceInfo, description: DeviceDescription, touch: TouchDecoder?) {
            self.info = info
            self.touch = touch
            let hasKeys = !(description.events[EventType.key]?.isEmpty ?? true)
            keys = hasKeys ? KeyDecoder(device: info.id, description: description) : nil
        }
    }

    /// Devices being routed; events of any other device (one no rule matched) are dropped.
    var devices: [DeviceID: DeviceContext] = [:]

    public init(layout: Layout, clock: EventClock = ManualClock()) {
        router = Router(layout: layout, clock: clock)
    }

    /// Devices being routed.
    public var activeDevices: [DeviceInfo] { devices.values.map(\.info) }

    /// The router's time: the latest item's, or later.
    public var now: Timestamp { router.clock.now }

    /// Moves the router's time forward (never back), firing gesture deadlines on the way.
    public func advanceTime(to time: Timestamp) { router.advanceTime(to: time) }

    /// Takes one item of the input stream, at its time.
    public func handle(_ item: InputItem) {
        router.advanceTime(to: item.time)
        switch item {
        case .event(let id, let event):
            guard let ctx = devices[id] else { return }
            handleEvent(event, ctx)
        case .added(let id, let description, _):
            add(id, description)
        case .removed(let id, let time):
            remove(id, at: time)
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
        let context = DeviceContext(info: info, description: description, touch: decoder)
        devices[id] = context
        router.addDevice(info, time: time)
        if let decoder, decoder.hasWarnings { reportWarnings(decoder, context, time) }
    }

    func reportWarnings(_ decoder: TouchDecoder, _ ctx: DeviceContext, _ time: Timestamp) {
        for warning in decoder.takeWarnings() { onDeviceWarning?(ctx.info, warning, time) }
    }

    func remove(_ id: DeviceID, at time: Timestamp) {
        guard let ctx = devices.removeValue(forKey: id) else { return }
        if let frame = ctx.touch?.cancelAll(at: time), !frame.contacts.isEmpty { router.handle(frame) }
        if let decoder = ctx.touch {
            if decoder.hasWarnings { reportWarnings(decoder, ctx, time) }
            droppedByRemovedDevices += decoder.droppedContacts + decoder.droppedSamples
        }
        router.removeDevice(id, time: time)
    }

    @inline(__always)
    func handleEvent(_ event: InputEvent, _ ctx: DeviceContext) {
        if let decoder = ctx.touch {
            if let frame = decoder.feed(event), !frame.contacts.isEmpty { router.handle(frame) }
            if decoder.hasWarnings { reportWarnings(decoder, ctx, event.time) }
        }
        if event.type == EventType.key, let key = ctx.keys?.feed(event) {
            router.handle(key)
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
