/// One event walking a responder chain: a touch phase, a key, text, an action or a gesture event.
///
/// Small, because every phase of every touch builds one and hands it to the observer (and to a
/// dispatcher): the fields every event has, the touch as one reference (``Touch`` is
/// copy-on-write), and the parts only keys, text and gesture events have (``key``, ``text``,
/// ``gestureRegion``, ``gesture``) behind one more reference, nil for touches, actions and
/// motion. A few words (docs/performance.md); a touch phase holds three references (layout, device,
/// touch).
public struct RoutedEvent: Sendable {
    /// What is routed, as handler matching sees it.
    public var kind: EventKind
    /// Kernel time of the input (or the router's time, for actions and timers).
    public var time: Timestamp
    /// The layout whose responders the walk goes through.
    public var layout: Layout
    /// The display it happened on (in ``layout``), if any.
    public var display: Int?
    /// Where the walk starts (the bound region, the first responder, the screen …); nil = nowhere.
    public var start: ResponderID?
    /// The bound region (touches), the starting region (keys, actions), if any.
    public var region: Int?
    /// The device that produced it, if any.
    public var device: DeviceInfo?
    /// The touch, for touch phases: its values as of this phase (see ``Touch``).
    public var touch: Touch?
    /// Key, text and gesture parts; nil when the event has none of them.
    var details: Details?

    /// The parts of an event that only keys, text and gesture events have. Shared between
    /// copies of an event; the setters of ``RoutedEvent`` copy it first when it is shared, and
    /// a recognizer reuses its own for its next event when nothing kept the last one
    /// (``GestureRecognizer/eventDetails(region:values:)``).
    final class Details: @unchecked Sendable {
        var key: KeyInput?
        var gestureRegion: Int?
        var gesture: GestureValues?
        var text: String?

        init(key: KeyInput? = nil, gestureRegion: Int? = nil, gesture: GestureValues? = nil, text: String? = nil) {
            self.key = key
            self.gestureRegion = gestureRegion
            self.gesture = gesture
            self.text = text
        }

        func copy() -> Details { Details(key: key, gestureRegion: gestureRegion, gesture: gesture, text: text) }
    }

    /// The details to write into: this event's own (copied first when shared), or new ones.
    private mutating func uniqueDetails() -> Details {
        if details == nil {
            details = Details()
        } else if !isKnownUniquelyReferenced(&details) {
            details = details!.copy()
        }
        return details!
    }

    /// The key, for key events.
    public var key: KeyInput? {
        get { details?.key }
        set { uniqueDetails().key = newValue }
    }
    /// The gesture recognizer's region, for gesture events.
    public var gestureRegion: Int? {
        get { details?.gestureRegion }
        set { uniqueDetails().gestureRegion = newValue }
    }
    /// What the recognizer measured, for gesture events.
    public var gesture: GestureValues? {
        get { details?.gesture }
        set { uniqueDetails().gesture = newValue }
    }
    /// The text, for text events.
    public var text: String? {
        get { details?.text }
        set { uniqueDetails().text = newValue }
    }
    /// What a motion event carries (a sample, an orientation, a shake's phase).
    public var motion: MotionValues? {
        if case .motion(let v) = kind { return v }
        return nil
    }

    /// The touch's number and location, for touch phases: read in place, without copying the
    /// touch (one call where a copy and two getters were several, on the log's path).
    public var touchIDAndLocation: (id: Int, location: Point)? {
        guard let s = touch?.storage else { return nil }
        return (s.id, s.values.location)
    }

    /// The device's id, and for touch phases the touch's number and location (0 and the
    /// origin for other events), read in place: what a touch phase's log line and its cached
    /// tail need, in one call from another module.
    public var touchLineValues: (device: DeviceID?, id: Int, location: Point) {
        let s = touch?.storage
        return (device?.id, s?.id ?? 0, s?.values.location ?? Point(x: 0, y: 0))
    }

    /// The name of the display it happened on, or nil.
    public var displayName: String? {
        guard let d = display, d < layout.displays.count else { return nil }
        return layout.displays[d].name
    }

    /// The bound region's path, or nil.
    public var regionPath: String? { region.map { layout.regions[$0].path } }
}

extension RoutedEvent {
    // (In an extension, so that the struct keeps its memberwise initializer,
    // `init(kind:time:layout:display:start:region:device:touch:details:)`, which the router
    // uses: it builds the event in place, where an initializer written out field by field
    // builds it on the stack and copies it out.)

    public init(kind: EventKind, time: Timestamp, layout: Layout, display: Int? = nil, start: ResponderID? = nil,
                region: Int? = nil, device: DeviceInfo? = nil, touch: Touch? = nil, key: KeyInput? = nil,
                gestureRegion: Int? = nil, gesture: GestureValues? = nil, text: String? = nil) {
        // The details first, then every field once, in straight-line code (a branch between the
        // field stores makes the optimizer build the event on the stack and copy it out).
        let details = key != nil || gestureRegion != nil || gesture != nil || text != nil
            ? Details(key: key, gestureRegion: gestureRegion, gesture: gesture, text: text) : nil
        self.init(kind: kind, time: time, layout: layout, display: display, start: start, region: region,
                  device: device, touch: touch, details: details)
    }
}

/// What the router decided, for the trace (dry-run), the log and the control socket.
public enum RouteRecord: Sendable {
    case deviceAdded(DeviceInfo, time: Timestamp)
    case deviceRemoved(DeviceInfo, time: Timestamp)
    /// An event walked its chain; `handledBy`/`handler` are nil when nothing took it.
    case routed(RoutedEvent, handledBy: ResponderID?, handler: HandlerBinding?)
    /// The first responder of a screen changed.
    case focus(screen: Int, region: Int?, layout: Layout, time: Timestamp)
    /// A screen was presented over another (`over`), or dismissed from it.
    case presentation(screen: Int, over: Int?, presented: Bool, layout: Layout, time: Timestamp)
    /// A recognizer changed state without routing an event: `failed`, or `possible` while
    /// waiting for the recognizer `waitingFor` to fail (`require-to-fail`). Routed state
    /// changes (began, changed, ended, recognized, cancelled) appear as `.routed` gesture events.
    case gestureState(name: String, state: GestureState, waitingFor: String?, layout: Layout, region: Int,
                      time: Timestamp, values: GestureValues)
    /// A new layout took over.
    case layoutReplaced(time: Timestamp, cancelledTouches: Int)
    /// A region changed at run time (``Router/apply(_:time:)``): hidden, shown, disabled,
    /// enabled, moved (`frame`) or given new `children`. `layout` is the layout it made (`path`
    /// is a region of it); `cancelledTouches` touches were cancelled, before this record, because
    /// their region is gone. A first responder the change took away follows as a `focus` record.
    case regionChanged(path: String, change: RegionChangeKind, layout: Layout, time: Timestamp, cancelledTouches: Int)
    /// A device filter dropped or cancelled a contact; nothing was routed.
    case filtered(FilteredContact)
}

/// A handler of a layout, by its position in ``Layout/handlers``: what the router names the
/// handler that took an event by (plain data: passing it copies no reference, where the
/// ``HandlerBinding`` it stands for holds one). ``Layout/subscript(handler:)`` gives the binding.
public struct HandlerIndex: Hashable, Sendable {
    /// The position in ``Layout/handlers`` (``HandlerBinding/index``).
    public let rawValue: Int

    @inline(__always)
    public init(_ rawValue: Int) { self.rawValue = rawValue }
}

extension HandlerBinding {
    /// This binding's position in its layout, typed.
    public var handlerIndex: HandlerIndex { HandlerIndex(index) }
}

extension Layout {
    /// The handler at `handler`.
    @inline(__always)
    public subscript(handler handler: HandlerIndex) -> HandlerBinding { handlers[handler.rawValue] }
}

/// Receives every decision the router makes.
public protocol RouteObserver: AnyObject {
    func record(_ record: RouteRecord)
    /// An event walked its chain: what a `.routed` record says, with the handler named by its
    /// index in `event.layout` (``Layout/subscript(handler:)``). The router calls this, not
    /// ``record(_:)``, for every routed event when ``observesRoutedEvents``: one per touch move,
    /// so an observer that sees many implements it and reads the event where it is (building
    /// the record, as the default does, copies the event and its binding, reference counts and
    /// all).
    func routed(_ event: RoutedEvent, handledBy responder: ResponderID?, handler: HandlerIndex?)
    /// Whether it wants each routed event (read when it becomes the router's observer). An
    /// observer that only counts says no and reads ``Router/routeCounts``: the router then
    /// calls it for no routed event. True unless implemented.
    var observesRoutedEvents: Bool { get }
}

extension RouteObserver {
    public var observesRoutedEvents: Bool { true }

    /// Builds the `.routed` record and hands it to ``record(_:)``.
    public func routed(_ event: RoutedEvent, handledBy responder: ResponderID?, handler: HandlerIndex?) {
        record(.routed(event, handledBy: responder, handler: handler.map { event.layout[handler: $0] }))
    }
}

/// What a handler said when offered an event.
public enum HandlerVerdict: Sendable {
    /// Taken (or, for an asynchronous plugin, dispatched: it may still decline later through
    /// ``Router/continueRouting(_:after:)``).
    case handled
    /// Not taken: the walk goes on up the chain.
    case declined
}

/// Runs handlers. The router offers each event to the first handler that declares it takes
/// it; without a dispatcher (dry-run), that handler counts as having handled it.
/// A dispatcher must never block: routing waits for nothing.
public protocol HandlerDispatcher: AnyObject {
    /// Offers `event` to a handler of its layout (`event.layout[handler: handler]`) at `responder`.
    func dispatch(_ event: RoutedEvent, toHandler handler: HandlerIndex, at responder: ResponderID) -> HandlerVerdict
}
