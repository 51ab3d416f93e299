/// One event walking a responder chain: a touch phase, a key, text, an action or a gesture event.
public struct RoutedEvent: Sendable {
    public var kind: EventKind
    public var time: Timestamp
    /// The layout whose responders the walk goes through.
    public var layout: Layout
    public var display: Int?
    /// Where the walk starts (the bound region, the first responder, the screen …); nil = nowhere.
    public var start: ResponderID?
    /// The bound region (touches), the starting region (keys, actions), if any.
    public var region: Int?
    /// The device that produced it, if any.
    public var device: DeviceInfo?
    public var touch: Touch?
    public var key: KeyInput?
    /// The gesture recognizer's region, for gesture events.
    public var gestureRegion: Int?
    /// What the recognizer measured, for gesture events.
    public var gesture: GestureValues?
    /// The text, for text events.
    public var text: String?
    /// What a motion event carries (a sample, an orientation, a shake's phase).
    public var motion: MotionValues? {
        if case .motion(let v) = kind { return v }
        return nil
    }

    public init(kind: EventKind, time: Timestamp, layout: Layout, display: Int? = nil, start: ResponderID? = nil,
                region: Int? = nil, device: DeviceInfo? = nil, touch: Touch? = nil, key: KeyInput? = nil,
                gestureRegion: Int? = nil, gesture: GestureValues? = nil, text: String? = nil) {
        self.kind = kind
        self.time = time
        self.layout = layout
        self.display = display
        self.start = start
        self.region = region
        self.device = device
        self.touch = touch
        self.key = key
        self.gestureRegion = gestureRegion
        self.gesture = gesture
        self.text = text
    }

    /// The bound region's path, or nil.
    public var regionPath: String? { region.map { layout.regions[$0].path } }
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
}

/// Receives every decision the router makes.
public protocol RouteObserver: AnyObject {
    func record(_ record: RouteRecord)
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
    func dispatch(_ event: RoutedEvent, to handler: HandlerBinding, at responder: ResponderID) -> HandlerVerdict
}
