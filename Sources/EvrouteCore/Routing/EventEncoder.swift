/// A field of a routed event, as the encoder names it. ``name`` is its JSON key (docs/events.md);
/// the `exec` environment upper-cases it (`EVROUTE_HANDLED_BY`).
public enum EventField: UInt8, Sendable {
    case type, time, device, touch, phase, x, y, z, key, action, gesture, state, text, orientation, motion
    case region, handledBy, handler, tapCount, tap, blocked, pressure
    case touches, dx, dy, taps, scale, rotation, direction, edge
    /// Taken by a forwarding handler (``HandlerBinding/forwards``): written only then.
    case forwarded
    /// The touch's location (``EventEncoding/line``).
    case location
    /// The filter that dropped or cancelled a contact (``FilteredContact``).
    case filter
    /// The display that went idle or active.
    case display

    /// The JSON key.
    public var name: StaticString {
        switch self {
        case .type: "type"
        case .time: "time"
        case .device: "device"
        case .touch: "touch"
        case .phase: "phase"
        case .x: "x"
        case .y: "y"
        case .z: "z"
        case .key: "key"
        case .action: "action"
        case .gesture: "gesture"
        case .state: "state"
        case .text: "text"
        case .orientation: "orientation"
        case .motion: "motion"
        case .region: "region"
        case .handledBy: "handled_by"
        case .handler: "handler"
        case .tapCount: "tap_count"
        case .tap: "tap"
        case .blocked: "blocked"
        case .pressure: "pressure"
        case .touches: "touches"
        case .dx: "dx"
        case .dy: "dy"
        case .taps: "taps"
        case .scale: "scale"
        case .rotation: "rotation"
        case .direction: "direction"
        case .edge: "edge"
        case .forwarded: "forwarded"
        case .location: "location"
        case .filter: "filter"
        case .display: "display"
        }
    }
}

/// Which fields of a routed event the encoder writes, in which order: the one choice a renderer
/// makes (no renderer switches over event kinds; ``EventEncoder`` does, once).
public enum EventEncoding: Sendable {
    /// docs/events.md's object: every field of the kind, null where it has no value, the
    /// handler's travelling options last (the JSON trace, what `socket` and `process` peers get).
    case json
    /// The `exec` environment's variables (docs/plugins.md): only fields with a value; a gesture's
    /// state as `phase`; no gesture measurements, blocking or pressure.
    case environment
    /// The sentence people read (the text trace, the log): the device, then what happened
    /// (`touch 3 began` and its location, `key KEY_A down`, …), where (the region, or what stands
    /// for none), how a touch was blocked, and a tap's count.
    case line
}

/// Receives a routed event's fields from ``EventEncoder``, in order: one writer per rendering
/// (JSON, text, environment). Generic, so that each writer's encoding is specialized.
public protocol EventFieldWriter {
    /// A string; nil: the field has no value (JSON writes null).
    mutating func field(_ field: EventField, _ value: String?)
    mutating func field(_ field: EventField, integer value: Int)
    /// A number; nil: no value.
    mutating func field(_ field: EventField, number value: Double?)
    mutating func field(_ field: EventField, bool value: Bool)
    mutating func field(_ field: EventField, time value: Timestamp)
    /// A point (``EventEncoding/line``: a touch's location).
    mutating func field(_ field: EventField, point value: Point)
    /// An accelerometer's sample in g (``EventEncoding/line``).
    mutating func field(_ field: EventField, x: Double, y: Double, z: Double)
    /// The handler's travelling options (the keys its plugin does not read itself), when it took
    /// the event.
    mutating func options(of handler: HandlerBinding)
    /// A touch's phase (``EventEncoding/line``); unless the writer says otherwise, its raw value
    /// as a string.
    mutating func field(_ field: EventField, phase value: TouchPhase)
}

extension EventFieldWriter {
    @inlinable
    public mutating func field(_ field: EventField, phase value: TouchPhase) { self.field(field, value.rawValue) }
}

/// Turns a routed event into its fields: the only place that switches over event kinds to
/// render one (the JSON and text traces, the log line, the `exec` environment and the plugins'
/// JSON are writers of these fields, in the runtime and the plugin layer).
public enum EventEncoder {
    /// Writes the fields of `e`, taken by `handledBy` (nil: by nothing) through `handler`, in
    /// `encoding` into `w`.
    public static func encode<W: EventFieldWriter>(_ e: RoutedEvent, handledBy: ResponderID?, handler: HandlerBinding?,
                                                   as encoding: EventEncoding, into w: inout W) {
        if case .line = encoding {
            encodeLine(e, into: &w)
            return
        }
        let json = encoding == .json
        // JSON has a field whatever its value; the environment only the fields with one.
        switch e.kind {
        case .touch(let phase, let isTap):
            w.field(.type, "touch")
            if json { w.field(.time, time: e.time); w.field(.device, e.device?.ruleName) }
            let t = e.touch
            if json || t != nil { w.field(.touch, integer: t?.id ?? 0) }
            w.field(.phase, phase.rawValue)
            if json || t != nil {
                w.field(.x, number: t?.location.x)
                w.field(.y, number: t?.location.y)
            }
            if json { encodeTaken(e, handledBy: handledBy, handler: handler, into: &w) }
            if json || t != nil { w.field(.tapCount, integer: t?.tapCount ?? 0) }
            if isTap { w.field(.tap, bool: true) }
            if json {
                if let b = t?.blocked { w.field(.blocked, b.rawValue) }
                if let p = t?.pressure { w.field(.pressure, number: p) }
            }
        case .key(let name, let phase):
            w.field(.type, "key")
            if json { w.field(.time, time: e.time); w.field(.device, e.device?.ruleName) }
            w.field(.key, name)
            w.field(.phase, phase.rawValue)
            if json { encodeTaken(e, handledBy: handledBy, handler: handler, into: &w) }
        case .action(let name):
            w.field(.type, "action")
            if json { w.field(.time, time: e.time) }
            w.field(.action, name)
            if json { encodeTaken(e, handledBy: handledBy, handler: handler, into: &w) }
        case .gesture(let name, let state):
            w.field(.type, "gesture")
            if json { w.field(.time, time: e.time) }
            w.field(.gesture, name)
            w.field(json ? .state : .phase, state)
            if json {
                encodeTaken(e, handledBy: handledBy, handler: handler, into: &w)
                if let v = e.gesture { encode(v, into: &w) }
            }
        case .text:
            w.field(.type, "text")
            if json { w.field(.time, time: e.time); w.field(.device, e.device?.ruleName) }
            w.field(.text, json ? e.text ?? "" : e.text)
            if json { encodeTaken(e, handledBy: handledBy, handler: handler, into: &w) }
        case .motion(let values):
            switch values {
            case .sample(let x, let y, let z):
                w.field(.type, "motion")
                if json { w.field(.time, time: e.time); w.field(.device, e.device?.ruleName) }
                w.field(.x, number: x)
                w.field(.y, number: y)
                w.field(.z, number: z)
            case .orientation(let o):
                w.field(.type, "orientation")
                if json { w.field(.time, time: e.time); w.field(.device, e.device?.ruleName) }
                w.field(.orientation, o.rawValue)
            case .shake(let phase):
                w.field(.type, "motion")
                if json { w.field(.time, time: e.time); w.field(.device, e.device?.ruleName) }
                w.field(.motion, "shake")
                w.field(.phase, phase.rawValue)
                if json { w.field(.region, e.regionPath) }
            }
            if json {
                w.field(.handledBy, handledBy.map { e.layout.describe($0) })
                w.field(.handler, handler?.plugin)
            }
        case .idle, .active:
            w.field(.type, e.kind == .idle ? "idle" : "active")
            if json { w.field(.time, time: e.time) }
            w.field(.display, e.displayName)
            if json {
                w.field(.handledBy, handledBy.map { e.layout.describe($0) })
                w.field(.handler, handler?.plugin)
            }
        }
        if json {
            if handledBy != nil, let handler { w.options(of: handler) }
        } else {
            // The environment: where, by whom, when (the exec command's own part follows).
            w.field(.region, e.regionPath)
            w.field(.device, e.device?.ruleName)
            w.field(.handledBy, handledBy.map { e.layout.describe($0) })
            w.field(.handler, handler?.plugin)
            w.field(.time, time: e.time)
        }
    }

    /// The region, the responder that took the event and its handler's plugin (JSON).
    static func encodeTaken<W: EventFieldWriter>(_ e: borrowing RoutedEvent, handledBy: ResponderID?, handler: HandlerBinding?,
                                                 into w: inout W) {
        w.field(.region, e.regionPath)
        w.field(.handledBy, handledBy.map { e.layout.describe($0) })
        w.field(.handler, handler?.plugin)
        if handledBy != nil, let handler, handler.forwards { w.field(.forwarded, bool: true) }
    }

    /// ``EventEncoding/line``: the device (for events that come from one), what happened, where
    /// (the region, or what stands for none: `(no region)` for a touch, `(no first responder)`
    /// for what goes to one, `-` otherwise), a touch's blocking and a tap's count.
    static func encodeLine<W: EventFieldWriter>(_ e: borrowing RoutedEvent, into w: inout W) {
        let region = e.regionPath
        switch e.kind {
        case .touch(let phase, let isTap):
            encodeTouchLine(e, phase: phase, isTap: isTap, withPlace: true, into: &w)
        case .key(let name, let phase):
            w.field(.device, e.device?.ruleName)
            w.field(.type, "key")
            w.field(.key, name)
            w.field(.phase, phase.rawValue)
            w.field(.region, region ?? "(no first responder)")
        case .action(let name):
            w.field(.type, "action")
            w.field(.action, name)
            w.field(.region, region ?? "-")
        case .gesture(let name, let state):
            w.field(.type, "gesture")
            w.field(.gesture, name)
            w.field(.state, state)
            w.field(.region, region ?? "-")
        case .text:
            w.field(.device, e.device?.ruleName)
            w.field(.type, "text")
            w.field(.text, e.text ?? "")
            w.field(.region, region ?? "(no first responder)")
        case .motion(let values):
            w.field(.device, e.device?.ruleName)
            switch values {
            case .sample(let x, let y, let z):
                w.field(.type, "motion")
                w.field(.motion, x: x, y: y, z: z)
                w.field(.region, "-")
            case .orientation(let o):
                w.field(.type, "orientation")
                w.field(.orientation, o.rawValue)
                w.field(.region, "-")
            case .shake(let phase):
                w.field(.type, "motion")
                w.field(.motion, "shake")
                w.field(.phase, phase.rawValue)
                w.field(.region, region ?? "(no first responder)")
            }
        case .idle, .active:
            // `display main idle`: the display, then what it became.
            w.field(.type, "display")
            w.field(.display, e.displayName)
            w.field(.state, e.kind == .idle ? "idle" : "active")
            w.field(.region, "-")
        }
    }

    /// ``EventEncoding/line`` of a touch phase (`e.kind` is `.touch(phase, isTap)`): the device,
    /// `touch`, its number, the phase, the location, the region (`(no region)`), how it was
    /// blocked and a tap's count. Without the place (`withPlace` false: the device, the region
    /// and the blocking left out), what happened only: the head of the log's line, whose tail
    /// says where. (Inlined into the log's writer: most of the daemon's lines are these.)
    @inlinable @inline(__always)
    public static func encodeTouchLine<W: EventFieldWriter>(_ e: RoutedEvent, phase: TouchPhase, isTap: Bool,
                                                            withPlace: Bool, into w: inout W) {
        if withPlace { w.field(.device, e.device?.ruleName) }
        let t = e.touchIDAndLocation
        w.field(.type, "touch")
        w.field(.touch, integer: t?.id ?? 0)
        w.field(.phase, phase: phase)
        w.field(.location, point: t?.location ?? Point(x: 0, y: 0))
        if withPlace {
            w.field(.region, e.regionPath ?? "(no region)")
            if let b = e.touch?.blocked { w.field(.blocked, b.rawValue) }
        }
        if isTap { w.field(.tapCount, integer: e.touch?.tapCount ?? 1) }
    }

    /// A filtered contact's fields: JSON `{"type":"filtered","time","device","filter","x","y"}`;
    /// the line: the device, `filtered`, the filter, the location.
    public static func encode<W: EventFieldWriter>(_ c: FilteredContact, as encoding: EventEncoding, into w: inout W) {
        switch encoding {
        case .line:
            w.field(.device, c.device)
            w.field(.type, "filtered")
            w.field(.filter, c.filter)
            w.field(.location, point: c.location)
        case .json, .environment:
            w.field(.type, "filtered")
            w.field(.time, time: c.time)
            w.field(.device, c.device)
            w.field(.filter, c.filter)
            w.field(.x, number: c.location.x)
            w.field(.y, number: c.location.y)
        }
    }

    /// What a gesture recognizer measured (JSON: a routed gesture event's, and a `gesture`
    /// record's that routed nothing).
    public static func encode<W: EventFieldWriter>(_ v: GestureValues, into w: inout W) {
        w.field(.x, number: v.location.x)
        w.field(.y, number: v.location.y)
        w.field(.touches, integer: v.touches)
        w.field(.dx, number: v.translation.x)
        w.field(.dy, number: v.translation.y)
        if v.taps > 0 { w.field(.taps, integer: v.taps) }
        if v.scale != 1 { w.field(.scale, number: v.scale) }
        if v.rotation != 0 { w.field(.rotation, number: v.rotation) }
        if let d = v.direction { w.field(.direction, d.rawValue) }
        if let edge = v.edge { w.field(.edge, edge.rawValue) }
    }
}

