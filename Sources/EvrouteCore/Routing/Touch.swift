/// Why a touch was not delivered to the region it hit.
public enum TouchBlock: String, Sendable {
    /// An exclusive-touch region is being touched, or this one is and others are touched.
    case exclusive
    /// The region takes one touch at a time (`multitouch: false`) and already has one.
    case multitouch
}

/// One contact for its whole life (UITouch): one identity, bound to the region it began in.
///
/// A value, one word long: everything lives behind one copy-on-write reference. UIKit reuses one
/// mutable `UITouch` for every phase; here the router updates its touch in place too, as long
/// as nothing else holds that phase (the common case: an event's observers and handlers look
/// at it and let it go). Whoever keeps an event (a test's trace, a plugin's pending answer, a
/// recognizer's held phases) keeps the values of the phase it was sent for: the router's next
/// change copies the touch first. So routing a phase copies one reference, not the whole
/// touch.
public struct Touch: Sendable {
    /// The parts that change from phase to phase.
    struct PhaseValues {
        var phase: TouchPhase
        var location: Point
        var previousLocation: Point
        var timestamp: Timestamp
        var pressure: Double?
        var majorRadius: Double?
        var minorRadius: Double?
        var toolType: Int?
        /// The square of the farthest distance from where the touch began (its square root is
        /// taken only when ``Touch/maxTravel`` is read: the largest square root is the square
        /// root of the largest square, to the bit, and a move then costs no square root).
        var maxTravelSquared: Double
    }

    /// A touch's fixed parts, its current phase values, and the router's cache of where its
    /// moved phase goes. Shared between copies of a `Touch`; the phase values are written only
    /// when it is uniquely referenced (``Touch/values``).
    final class Storage: @unchecked Sendable {
        let id: Int
        let device: DeviceID
        let contact: Int
        let beganLocation: Point
        let beganTime: Timestamp
        let tapCount: Int
        let region: Int?
        let display: Int
        let screen: Int?
        let layout: Layout
        let blocked: TouchBlock?
        // Written only through a uniquely referenced storage.
        var values: PhaseValues
        /// The first taker of the moved phase (``Router/route(_:device:time:)``): not part of the
        /// touch's value (it follows from the fields above and the router's chain generation),
        /// so the router may fill it in while the storage is shared.
        var movedTaker: CachedTaker?
        /// The forwarding handler that took the touch's began (``Router/route(_:device:time:)``),
        /// kept beside the router's table of them so that a later phase of the same touch finds
        /// it without a lookup; not part of the touch's value either.
        var forwardedTo: Router.Taker?

        init(id: Int, device: DeviceID, contact: Int, beganLocation: Point, beganTime: Timestamp, tapCount: Int,
             region: Int?, display: Int, screen: Int?, layout: Layout, blocked: TouchBlock?, values: PhaseValues) {
            self.id = id
            self.device = device
            self.contact = contact
            self.beganLocation = beganLocation
            self.beganTime = beganTime
            self.tapCount = tapCount
            self.region = region
            self.display = display
            self.screen = screen
            self.layout = layout
            self.blocked = blocked
            self.values = values
        }

        func copy() -> Storage {
            let s = Storage(id: id, device: device, contact: contact, beganLocation: beganLocation, beganTime: beganTime,
                            tapCount: tapCount, region: region, display: display, screen: screen, layout: layout,
                            blocked: blocked, values: values)
            s.movedTaker = movedTaker
            s.forwardedTo = forwardedTo
            return s
        }
    }

    var storage: Storage

    init(id: Int, device: DeviceID, contact: Int, beganLocation: Point, beganTime: Timestamp, tapCount: Int,
         region: Int?, display: Int, screen: Int?, layout: Layout, blocked: TouchBlock?, values: PhaseValues) {
        storage = Storage(id: id, device: device, contact: contact, beganLocation: beganLocation, beganTime: beganTime,
                          tapCount: tapCount, region: region, display: display, screen: screen, layout: layout,
                          blocked: blocked, values: values)
    }

    /// The phase values, for reading and for writing in place (copied first when another
    /// `Touch` shares the storage).
    var values: PhaseValues {
        @inline(__always) get { storage.values }
        @inline(__always) _modify {
            if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
            yield &storage.values
        }
    }

    /// Unique for the router's life.
    public var id: Int { storage.id }
    /// The device it is on.
    public var device: DeviceID { storage.device }
    /// The input layer's contact identity on that device.
    public var contact: Int { storage.contact }
    /// The phase it is in (the one its event routes).
    public internal(set) var phase: TouchPhase {
        get { storage.values.phase }
        set { values.phase = newValue }
    }
    /// Display coordinates.
    public internal(set) var location: Point {
        get { storage.values.location }
        set { values.location = newValue }
    }
    /// Where it was before this phase (display coordinates).
    public internal(set) var previousLocation: Point {
        get { storage.values.previousLocation }
        set { values.previousLocation = newValue }
    }
    /// Where it began (display coordinates).
    public var beganLocation: Point { storage.beganLocation }
    /// Kernel time of its beginning.
    public var beganTime: Timestamp { storage.beganTime }
    /// Kernel time of the latest change.
    public internal(set) var timestamp: Timestamp {
        get { storage.values.timestamp }
        set { values.timestamp = newValue }
    }
    /// Successive taps in place (1 for a single tap, 2 for the second of a double tap, …).
    public var tapCount: Int { storage.tapCount }
    /// Pressure (raw device units), once the device has reported one.
    public internal(set) var pressure: Double? {
        get { storage.values.pressure }
        set { values.pressure = newValue }
    }
    /// Major radius of the contact ellipse (display units), once reported.
    public internal(set) var majorRadius: Double? {
        get { storage.values.majorRadius }
        set { values.majorRadius = newValue }
    }
    /// Minor radius of the contact ellipse (display units), once reported.
    public internal(set) var minorRadius: Double? {
        get { storage.values.minorRadius }
        set { values.minorRadius = newValue }
    }
    /// Tool type (`MT_TOOL_FINGER` = 0, pen = 1, palm = 2), once reported.
    public internal(set) var toolType: Int? {
        get { storage.values.toolType }
        set { values.toolType = newValue }
    }
    /// The region it is bound to (in ``layout``), nil when it hit nothing.
    public var region: Int? { storage.region }
    /// Its display (in ``layout``).
    public var display: Int { storage.display }
    /// The screen that was active on the display when it began.
    public var screen: Int? { storage.screen }
    /// The layout it began in; it stays bound to it across reloads.
    public var layout: Layout { storage.layout }
    /// Set when the touch was not delivered (exclusive touch, single-touch region).
    public var blocked: TouchBlock? { storage.blocked }
    /// The farthest it has been from where it began.
    public var maxTravel: Double { storage.values.maxTravelSquared.squareRoot() }

    /// A moved sample for this touch: location, time, phase (`moved`, or `stationary` when it
    /// did not move), the properties the sample reports, and the farthest travel. Returns
    /// whether it moved. One uniqueness check, then the values change in place.
    @inline(__always)
    mutating func apply(_ sample: ContactSample, time: Timestamp) -> Bool {
        let beganLocation = storage.beganLocation
        return Touch.apply(sample, time: time, to: &values, beganLocation: beganLocation)
    }

    @inline(__always)
    private static func apply(_ sample: ContactSample, time: Timestamp, to v: inout PhaseValues, beganLocation: Point) -> Bool {
        let moved = v.location != sample.location
        v.previousLocation = v.location
        v.location = sample.location
        v.timestamp = time
        v.phase = moved ? .moved : .stationary
        if let p = sample.pressure { v.pressure = p }
        if let m = sample.majorRadius { v.majorRadius = m }
        if let m = sample.minorRadius { v.minorRadius = m }
        if let tool = sample.toolType { v.toolType = tool }
        if moved {
            let travel = beganLocation.squaredDistance(to: v.location)
            if travel > v.maxTravelSquared { v.maxTravelSquared = travel }
        }
        return moved
    }

    /// The last phase (`ended` or `cancelled`): where it lifted (nil: where it last was), when,
    /// and the pressure and tool type of the last sample, if it has them.
    mutating func finish(_ phase: TouchPhase, at location: Point?, time: Timestamp, sample: ContactSample?) {
        let beganLocation = storage.beganLocation
        Touch.finish(phase, at: location, time: time, sample: sample, values: &values, beganLocation: beganLocation)
    }

    private static func finish(_ phase: TouchPhase, at location: Point?, time: Timestamp, sample: ContactSample?,
                               values v: inout PhaseValues, beganLocation: Point) {
        v.previousLocation = v.location
        if let location {
            v.location = location
            let travel = beganLocation.squaredDistance(to: location)
            if travel > v.maxTravelSquared { v.maxTravelSquared = travel }
        }
        v.timestamp = time
        v.phase = phase
        if let s = sample {
            if let p = s.pressure { v.pressure = p }
            if let tool = s.toolType { v.toolType = tool }
        }
    }

    /// Where the touch is in a region's coordinates.
    public func location(in region: Int) -> Point { layout.convert(location, toRegion: region) }

    /// Whether, having ended now, it counts as a tap under `policy`.
    public func isTap(_ policy: TapPolicy) -> Bool {
        let v = storage.values
        return v.phase == .ended && v.maxTravelSquared.squareRoot() <= policy.maximumMovement && (v.timestamp - storage.beganTime) <= policy.maximumDuration
    }
}

/// The first taker of a touch's moved phase, remembered for the touch's life: its chain is
/// fixed while its layout and the router's presentation stacks are, so the router walks it
/// once per ``Router`` chain generation (bumped by every change of the current layout or of a
/// presentation stack) instead of once per move. `taker` nil: nothing takes it.
struct CachedTaker {
    var generation: UInt64
    var taker: Router.Taker?
}

/// What makes a touch a tap, and taps successive (for `tapCount` and `on: [tap]`).
public struct TapPolicy: Sendable {
    /// How far (display units) a touch may travel and still be a tap.
    public var maximumMovement: Double
    /// How long a tap may be held.
    public var maximumDuration: Timestamp.Duration
    /// The most time from one tap's end to the next one's beginning to count them together.
    public var multiTapInterval: Timestamp.Duration
    /// How far the next tap may begin from the previous one to count them together.
    public var multiTapDistance: Double

    public init(maximumMovement: Double = 20, maximumDuration: Timestamp.Duration = .milliseconds(500),
                multiTapInterval: Timestamp.Duration = .milliseconds(350), multiTapDistance: Double = 45) {
        self.maximumMovement = maximumMovement
        self.maximumDuration = maximumDuration
        self.multiTapInterval = multiTapInterval
        self.multiTapDistance = multiTapDistance
    }
}
