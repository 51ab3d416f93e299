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

    /// The JSON key. (Always inlined: a writer's key for a field known where it is written is a
    /// constant.)
    @inlinable @inline(__always)
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
    /// A touch's phase; unless the writer says otherwise, its raw value as a string.
    mutating func field(_ field: EventField, phase value: TouchPhase)
    /// A string known at compile time that needs no escape (an event's type); unless the writer
    /// says otherwise, as a string.
    mutating func field(_ field: EventField, literal value: StaticString)
}

extension EventFieldWriter {
    @inlinable
    public mutating func field(_ field: EventField, phase value: TouchPhase) { self.field(field, value.rawValue) }
    @inlinable
    public mutating func field(_ field: EventField, literal value: StaticString) { self.field(field, value.description) }
}

extension TouchPhase {
    /// The raw value as a literal (no `String` made).
    @inlinable @inline(__always)
    public var name: StaticString {
        switch self {
        case .began: "began"
        case .moved: "moved"
        case .stationary: "stationary"
        case .ended: "ended"
        case .cancelled: "cancelled"
        }
    }
}

/// Turns a routed event into its fields: the only place that switches over event kinds to
/// render one (the JSON and text traces, the log line, the `exec` environment and the plugins'
/// JSON are writers of these fields, in the runtime and the plugin layer).
public enum EventEncoder {
    /// Writes the fields of `e`, taken by `handledBy` (nil: by nothing) through `handler`, in
    /// `encoding` into `w`. (Inlinable: specialized for each writer where it is called, its
    /// fields written by direct calls, not through the protocol's witness table.)
    @inlinable
    public static func encode<W: EventFieldWriter>(_ e: RoutedEvent, handledBy: ResponderID?, handler: HandlerBinding?,
                                                   as encoding: EventEncoding, into w: inout W) {
        var names = FieldNames<W>()
        encode(e, handledBy: handledBy, handler: handler, as: encoding, into: &w, names: &names)
    }

    /// ``EventEncoding/json`` of `e`, as ``encode(_:handledBy:handler:as:into:)`` writes it, with
    /// the layout's names (region, responder, handler) and the device's written from `fragments`
    /// (encoded once per layout and device, not once per event).
    @inlinable
    public static func encode<W: EventFragmentWriter>(_ e: RoutedEvent, handledBy: ResponderID?, handler: HandlerBinding?,
                                                      into w: inout W, fragments: inout EventFragments<W>) {
        encode(e, handledBy: handledBy, handler: handler, as: .json, into: &w, names: &fragments)
    }

    /// The one body of both: the names from `names`, the rest field by field.
    @inlinable
    static func encode<W: EventFieldWriter, N: EventNameSource>(_ e: RoutedEvent, handledBy: ResponderID?, handler: HandlerBinding?,
                                                                as encoding: EventEncoding, into w: inout W, names: inout N)
    where N.Writer == W {
        if case .line = encoding {
            encodeLine(e, into: &w)
            return
        }
        let json = encoding == .json
        // JSON has a field whatever its value; the environment only the fields with one.
        switch e.kind {
        case .touch(let phase, let isTap):
            w.field(.type, literal: "touch")
            if json { w.field(.time, time: e.time); names.device(e, into: &w) }
            let t = e.touch
            if json || t != nil { w.field(.touch, integer: t?.id ?? 0) }
            w.field(.phase, phase: phase)
            if json || t != nil {
                w.field(.x, number: t?.location.x)
                w.field(.y, number: t?.location.y)
            }
            if json { names.taken(e, handledBy: handledBy, handler: handler, into: &w) }
            if json || t != nil { w.field(.tapCount, integer: t?.tapCount ?? 0) }
            if isTap { w.field(.tap, bool: true) }
            if json {
                if let b = t?.blocked { w.field(.blocked, b.rawValue) }
                if let p = t?.pressure { w.field(.pressure, number: p) }
            }
        case .key(let name, let phase):
            w.field(.type, "key")
            if json { w.field(.time, time: e.time); names.device(e, into: &w) }
            w.field(.key, name)
            w.field(.phase, phase.rawValue)
            if json { names.taken(e, handledBy: handledBy, handler: handler, into: &w) }
        case .action(let name):
            w.field(.type, "action")
            if json { w.field(.time, time: e.time) }
            w.field(.action, name)
            if json { names.taken(e, handledBy: handledBy, handler: handler, into: &w) }
        case .gesture(let name, let state):
            w.field(.type, "gesture")
            if json { w.field(.time, time: e.time) }
            w.field(.gesture, name)
            w.field(json ? .state : .phase, state)
            if json {
                names.taken(e, handledBy: handledBy, handler: handler, into: &w)
                if let v = e.gesture { encode(v, into: &w) }
            }
        case .text:
            w.field(.type, "text")
            if json { w.field(.time, time: e.time); names.device(e, into: &w) }
            w.field(.text, json ? e.text ?? "" : e.text)
            if json { names.taken(e, handledBy: handledBy, handler: handler, into: &w) }
        case .motion(let values):
            switch values {
            case .sample(let x, let y, let z):
                w.field(.type, "motion")
                if json { w.field(.time, time: e.time); names.device(e, into: &w) }
                w.field(.x, number: x)
                w.field(.y, number: y)
                w.field(.z, number: z)
            case .orientation(let o):
                w.field(.type, "orientation")
                if json { w.field(.time, time: e.time); names.device(e, into: &w) }
                w.field(.orientation, o.rawValue)
            case .shake(let phase):
                w.field(.type, "motion")
                if json { w.field(.time, time: e.time); names.device(e, into: &w) }
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
            if handledBy != nil { names.options(e, of: handler, into: &w) }
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
    @inlinable
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
    @inlinable
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
        encodeTouchLine(touch: t?.id ?? 0, phase: phase, location: t?.location ?? Point(x: 0, y: 0), into: &w)
        if withPlace {
            w.field(.region, e.regionPath ?? "(no region)")
            if let b = e.touch?.blocked { w.field(.blocked, b.rawValue) }
        }
        if isTap { w.field(.tapCount, integer: e.touch?.tapCount ?? 1) }
    }

    /// What a touch phase's line says happened, its number, phase and location
    /// (``encodeTouchLine(_:phase:isTap:withPlace:into:)`` without the place and a tap's count):
    /// from values read once (``RoutedEvent/touchLineValues``).
    @inlinable @inline(__always)
    public static func encodeTouchLine<W: EventFieldWriter>(touch id: Int, phase: TouchPhase, location: Point, into w: inout W) {
        w.field(.type, "touch")
        w.field(.touch, integer: id)
        w.field(.phase, phase: phase)
        w.field(.location, point: location)
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


/// A writer whose fields can be encoded once and written again as they are: what
/// ``EventFragments`` keeps a layout's names in.
public protocol EventFragmentWriter: EventFieldWriter {
    /// Fields as this writer writes them, encoded.
    associatedtype Fragment
    /// The fields `write` writes into a writer of this kind, encoded: ``write(_:)`` of the result
    /// writes what `write` would have written in its place.
    static func fragment(_ write: (inout Self) -> Void) -> Fragment
    /// Writes the fields of a fragment (``fragment(_:)``).
    mutating func write(_ fragment: Fragment)
}

/// Where the encoder takes the names of an event from (the device's, the region's, the
/// responder's and handler's): written field by field (``FieldNames``), or from ``EventFragments``.
@usableFromInline
protocol EventNameSource {
    associatedtype Writer: EventFieldWriter
    /// The `device` field.
    mutating func device(_ e: borrowing RoutedEvent, into w: inout Writer)
    /// The `region`, `handled_by`, `handler` and (a forwarding handler's) `forwarded` fields.
    mutating func taken(_ e: borrowing RoutedEvent, handledBy: ResponderID?, handler: HandlerBinding?, into w: inout Writer)
    /// The travelling options of the handler that took the event (JSON).
    mutating func options(_ e: borrowing RoutedEvent, of handler: HandlerBinding?, into w: inout Writer)
}

/// The names written field by field, from the event.
@usableFromInline
struct FieldNames<Writer: EventFieldWriter>: EventNameSource {
    @inlinable init() {}

    @inlinable
    func device(_ e: borrowing RoutedEvent, into w: inout Writer) { w.field(.device, e.device?.ruleName) }

    @inlinable
    func taken(_ e: borrowing RoutedEvent, handledBy: ResponderID?, handler: HandlerBinding?, into w: inout Writer) {
        EventEncoder.encodeTaken(e, handledBy: handledBy, handler: handler, into: &w)
    }

    @inlinable
    func options(_ e: borrowing RoutedEvent, of handler: HandlerBinding?, into w: inout Writer) {
        if let handler { w.options(of: handler) }
    }
}

/// A layout's names as JSON (or any ``EventFragmentWriter``'s) text, encoded once and written
/// from here for every event (``EventEncoder/encode(_:handledBy:handler:into:fragments:)``):
/// each region's path as `region` and as `handled_by`, each other responder's name as
/// `handled_by`, each handler's plugin name as `handler` (with `forwarded` when it forwards) and
/// its travelling options, and the last device's rule name as `device`. Text is kept for the
/// event's layout and encoded the first time an event needs it; an event of another layout
/// (after a reload, or a region hidden, shown, moved or renamed at run time: each makes a new
/// layout) starts afresh, the layout before it kept beside it for the touches that began in
/// it. What is kept is bounded by the two layouts' sizes.
public struct EventFragments<W: EventFragmentWriter> {
    /// One layout's text, by index.
    @usableFromInline
    struct Table {
        @usableFromInline let layout: Layout
        /// By region: `region` with its path.
        @usableFromInline var regions: [W.Fragment?]
        /// By ``EventFragments/slot(of:in:)``: `handled_by` with the responder's name.
        @usableFromInline var responders: [W.Fragment?]
        /// By handler: `handler` with its plugin name, and `forwarded` when it forwards.
        @usableFromInline var handlers: [W.Fragment?]
        /// By handler: its travelling options (nothing when it has none).
        @usableFromInline var options: [W.Fragment?]
        /// By region: the responder and handler (their indices) that took its last event, and
        /// the three fields as one (a region's events are mostly taken by the same ones).
        @usableFromInline var taken: [(slot: Int, handler: Int, fragment: W.Fragment)?]

        init(_ layout: Layout) {
            self.layout = layout
            regions = Array(repeating: nil, count: layout.regions.count)
            responders = Array(repeating: nil, count: layout.regions.count + layout.screens.count + layout.displays.count + 3)
            handlers = Array(repeating: nil, count: layout.handlers.count)
            options = Array(repeating: nil, count: layout.handlers.count)
            taken = Array(repeating: nil, count: layout.regions.count)
        }
    }

    /// The last event's layout's text, and the layout's before it.
    @usableFromInline var current: Table?
    @usableFromInline var previous: Table?
    /// The last device's rule name and its `device` field.
    @usableFromInline var device: (name: String, fragment: W.Fragment)?

    public init() {}

    /// The layout whose text is at hand (nil: none yet).
    public var layout: Layout? { current?.layout }

    /// Makes ``current`` the text of `layout`.
    @inlinable
    mutating func use(_ layout: Layout) {
        if current?.layout !== layout { switchTo(layout) }
    }

    @usableFromInline @inline(never)
    mutating func switchTo(_ layout: Layout) {
        swap(&current, &previous)
        if current?.layout !== layout { current = Table(layout) }
    }

    /// A responder's place in ``Table/responders``.
    @inlinable
    static func slot(of responder: ResponderID, in layout: Layout) -> Int {
        switch responder {
        case .region(let i): return i
        case .screen(let i): return layout.regions.count + i
        case .display(let i): return layout.regions.count + layout.screens.count + i
        case .application: return layout.regions.count + layout.screens.count + layout.displays.count
        case .fallback: return layout.regions.count + layout.screens.count + layout.displays.count + 1
        case .motion: return layout.regions.count + layout.screens.count + layout.displays.count + 2
        }
    }

    /// The `region`, `handled_by` and `handler` fields of these indices as one (each encoded
    /// once, then kept), kept as the region's.
    @usableFromInline @inline(never)
    mutating func makeTaken(region: Int, responder: ResponderID, slot: Int, handler: Int) -> W.Fragment {
        let layout = current!.layout
        if current!.regions[region] == nil {
            let path = layout.regions[region].path
            current!.regions[region] = W.fragment { $0.field(.region, path) }
        }
        if current!.responders[slot] == nil {
            let name = layout.describe(responder)
            current!.responders[slot] = W.fragment { $0.field(.handledBy, name) }
        }
        if current!.handlers[handler] == nil {
            let binding = layout.handlers[handler]
            current!.handlers[handler] = W.fragment { w in
                w.field(.handler, binding.plugin)
                if binding.forwards { w.field(.forwarded, bool: true) }
            }
        }
        let parts = [current!.regions[region]!, current!.responders[slot]!, current!.handlers[handler]!]
        let f = W.fragment { w in for part in parts { w.write(part) } }
        current!.taken[region] = (slot, handler, f)
        return f
    }

    @usableFromInline @inline(never)
    mutating func makeOptions(_ handler: Int) -> W.Fragment {
        let binding = current!.layout.handlers[handler]
        let f = W.fragment { $0.options(of: binding) }
        current!.options[handler] = f
        return f
    }

    @usableFromInline @inline(never)
    mutating func makeDevice(_ name: String) -> W.Fragment {
        let f = W.fragment { $0.field(.device, name) }
        device = (name, f)
        return f
    }
}

extension EventFragments: EventNameSource {
    @inlinable
    mutating func device(_ e: borrowing RoutedEvent, into w: inout W) {
        guard let name = e.device?.ruleName else { w.field(.device, nil); return }
        if device?.name == name { w.write(device!.fragment) } else { w.write(makeDevice(name)) }
    }

    @inlinable
    mutating func taken(_ e: borrowing RoutedEvent, handledBy: ResponderID?, handler: HandlerBinding?, into w: inout W) {
        // An event nothing took, or with no region, field by field. (`handler` is of `e.layout`,
        // as the router names it.)
        guard let region = e.region, let responder = handledBy, let index = handler?.index,
              index < e.layout.handlers.count else {
            EventEncoder.encodeTaken(e, handledBy: handledBy, handler: handler, into: &w)
            return
        }
        let layout = e.layout
        use(layout)
        let slot = Self.slot(of: responder, in: layout)
        if let last = current!.taken[region], last.slot == slot, last.handler == index {
            w.write(last.fragment)
        } else {
            w.write(makeTaken(region: region, responder: responder, slot: slot, handler: index))
        }
    }

    @inlinable
    mutating func options(_ e: borrowing RoutedEvent, of handler: HandlerBinding?, into w: inout W) {
        let layout = e.layout
        guard let index = handler?.index, index < layout.handlers.count else {
            if let handler { w.options(of: handler) }
            return
        }
        use(layout)
        if let f = current!.options[index] { w.write(f) } else { w.write(makeOptions(index)) }
    }
}
