/// A compiled handler: a plugin instance attached to a responder, with the event kinds it takes.
public struct HandlerBinding: Sendable {
    /// Index in ``Layout/handlers``.
    public let index: Int
    /// The plugin instance name (`shell`, `log`, …).
    public var plugin: String { storage.plugin }
    /// The plugin's type (`exec`, `log`, …).
    public var pluginType: PluginKind { storage.pluginType }
    public var filters: [EventFilter] { storage.filters }
    public var options: [String: ConfigValue] { storage.options }
    public let owner: ResponderID
    public var location: SourceLocation? { storage.location }
    /// The device rules (names) whose devices' events it takes (`devices:`); nil: every device's.
    public var devices: [String]? { storage.devices }
    /// The handler options its plugin type reads itself (they do not travel with its events).
    public var ownOptionKeys: [String] { storage.ownOptionKeys }
    /// A plugin type that acts on routing itself (``PluginKind/isRoutingBuiltIn``: `action`,
    /// `focus`, `present`, `dismiss`): it runs in the router, even in dry-run.
    public let isBuiltIn: Bool
    /// Its type forwards (``HandlerCheckResult/forwards``): it takes a touch's `began` and a key's
    /// down only by walking; the router then binds the touch or key to it (``Router``), so its
    /// later phases come to it and to nobody else, and those of touches and keys it did not
    /// take never do.
    public let forwards: Bool

    /// The reference-counted parts, behind one reference: a binding is copied on every routed
    /// event (into the route record), and one retain is cheaper than five.
    private final class Storage: Sendable {
        let plugin: String
        let pluginType: PluginKind
        let filters: [EventFilter]
        let options: [String: ConfigValue]
        let location: SourceLocation?
        let devices: [String]?
        /// `devices` as a set: the lookup per event (the compiler refuses a name given twice).
        let deviceSet: Set<String>?
        let ownOptionKeys: [String]

        init(plugin: String, pluginType: PluginKind, filters: [EventFilter], options: [String: ConfigValue], location: SourceLocation?,
             devices: [String]?, ownOptionKeys: [String]) {
            self.plugin = plugin
            self.pluginType = pluginType
            self.filters = filters
            self.options = options
            self.location = location
            self.devices = devices
            self.deviceSet = devices.map(Set.init)
            self.ownOptionKeys = ownOptionKeys
        }
    }
    private let storage: Storage

    // Precomputed for the hot path.
    private let touchPhaseMask: UInt8
    private let takesTap: Bool
    private let takesAny: Bool
    private let takesAllKeys: Bool
    private let takesText: Bool
    private let takesMotion: Bool
    private let takesOrientation: Bool
    private let takesIdle: Bool
    private let takesActive: Bool
    /// Whether it takes only some devices' events (`devices:`): the walk's one extra test for
    /// a handler without them.
    private let filtersDevices: Bool

    init(index: Int, spec: HandlerSpec, pluginType: PluginKind, ownOptionKeys: [String], owner: ResponderID, forwards: Bool = false) {
        self.index = index
        self.storage = Storage(plugin: spec.plugin, pluginType: pluginType, filters: spec.on,
                               options: spec.options, location: spec.location, devices: spec.devices, ownOptionKeys: ownOptionKeys)
        filtersDevices = spec.devices != nil
        self.owner = owner
        self.isBuiltIn = pluginType.isRoutingBuiltIn
        self.forwards = forwards
        var mask: UInt8 = 0
        var tap = false, any = false, keys = false, text = false, motion = false, orientation = false, idle = false, active = false
        for f in spec.on {
            switch f {
            case .touch: mask |= 0b1_1111
            case .touchBegan: mask |= HandlerBinding.bit(.began)
            case .touchMoved: mask |= HandlerBinding.bit(.moved)
            case .touchEnded: mask |= HandlerBinding.bit(.ended)
            case .touchCancelled: mask |= HandlerBinding.bit(.cancelled)
            case .tap: tap = true
            case .key: keys = true
            case .any: any = true
            case .text: text = true
            case .motion: motion = true
            case .orientation: orientation = true
            case .idle: idle = true
            case .active: active = true
            case .keyNamed, .chord, .action, .gesture: break
            }
        }
        // A forwarding handler is found by the walk for a touch's began only; the rest of the
        // touch comes to it through its binding.
        touchPhaseMask = forwards ? mask & HandlerBinding.bit(.began) : mask
        takesTap = tap
        takesAny = any
        takesAllKeys = keys
        takesText = text
        takesMotion = motion
        takesOrientation = orientation
        takesIdle = idle
        takesActive = active
    }

    @inline(__always)
    static func bit(_ phase: TouchPhase) -> UInt8 {
        switch phase {
        case .began: 1
        case .moved: 2
        case .stationary: 4
        case .ended: 8
        case .cancelled: 16
        }
    }

    /// Whether this handler takes events of `device` (`devices:` names its rule, or there is
    /// no `devices:`). An event of no device (an action) passes a handler with `devices:` by.
    @inline(__always)
    public func accepts(device: DeviceInfo?) -> Bool {
        guard filtersDevices else { return true }
        return acceptsFiltered(device)
    }

    /// ``accepts(device:)`` for a handler with `devices:` (out of line: the walk inlines only
    /// the flag test).
    @inline(never)
    func acceptsFiltered(_ device: DeviceInfo?) -> Bool {
        guard let device, let rules = storage.deviceSet else { return false }
        return rules.contains(device.ruleName)
    }

    /// Whether `devices:` lets events of rule `name` through (no `devices:`: every rule's).
    public func accepts(rule name: String) -> Bool {
        storage.deviceSet?.contains(name) ?? true
    }

    /// Whether this handler takes `event` of `device` on a walk: it declares the event
    /// (``takes(_:modifiers:)``), takes the device's events (``accepts(device:)``), and — a
    /// forwarding handler — it is not a typing key whose text someone takes (the router routes
    /// such a key with a device that ``DeviceInfo/typesText``; a key whose text no one takes, or
    /// a chord, routes with one that does not, and a forwarder takes it).
    @inline(__always)
    public func takes(_ event: EventKind, of device: DeviceInfo?, modifiers: KeyModifiers = []) -> Bool {
        guard takes(event, modifiers: modifiers), accepts(device: device) else { return false }
        if forwards, case .key(let name, _) = event, device?.typesText == true, KeyNames.isTyping(name) { return false }
        return true
    }

    /// Whether this handler declares that it takes `event`. `any` takes everything but
    /// actions, which a handler must name (`action:NAME`) to receive.
    @inline(__always)
    public func takes(_ event: EventKind, modifiers: KeyModifiers = []) -> Bool {
        switch event {
        case .touch(let phase, let isTap):
            if takesAny || touchPhaseMask & HandlerBinding.bit(phase) != 0 { return true }
            return takesTap && isTap && phase == .ended
        case .key(let name, let phase):
            if forwards, phase != .down { return false }
            if takesAny || takesAllKeys { return true }
            for f in filters {
                switch f {
                case .keyNamed(let k) where k == name: return true
                case .chord(let m, let k) where k == name && m == modifiers: return true
                default: continue
                }
            }
            return false
        case .action(let name):
            for case .action(let a) in filters where a == name { return true }
            return false
        case .gesture(let name, _):
            if takesAny { return true }
            for case .gesture(let g) in filters where g == name { return true }
            return false
        case .text:
            return takesAny || takesText
        case .motion(let values):
            if takesAny { return true }
            if case .orientation = values { return takesOrientation }
            return takesMotion
        case .idle:
            return takesAny || takesIdle
        case .active:
            return takesAny || takesActive
        }
    }
}
