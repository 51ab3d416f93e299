/// Why a touch was not delivered to the region it hit.
public enum TouchBlock: String, Sendable {
    /// An exclusive-touch region is being touched, or this one is and others are touched.
    case exclusive
    /// The region takes one touch at a time (`multitouch: false`) and already has one.
    case multitouch
}

/// One contact for its whole life (UITouch): one identity, bound to the region it began in.
public struct Touch: Sendable {
    /// Unique for the router's life.
    public let id: Int
    public let device: DeviceID
    /// The input layer's contact identity on that device.
    public let contact: Int
    public internal(set) var phase: TouchPhase
    /// Display coordinates.
    public internal(set) var location: Point
    public internal(set) var previousLocation: Point
    public let beganLocation: Point
    public let beganTime: Timestamp
    /// Kernel time of the latest change.
    public internal(set) var timestamp: Timestamp
    /// Successive taps in place (1 for a single tap, 2 for the second of a double tap, …).
    public internal(set) var tapCount: Int
    public internal(set) var pressure: Double?
    public internal(set) var majorRadius: Double?
    public internal(set) var minorRadius: Double?
    public internal(set) var toolType: Int?
    /// The region it is bound to (in ``layout``), nil when it hit nothing.
    public let region: Int?
    public let display: Int
    /// The screen that was active on the display when it began.
    public let screen: Int?
    /// The layout it began in; it stays bound to it across reloads.
    public let layout: Layout
    /// Set when the touch was not delivered (exclusive touch, single-touch region).
    public let blocked: TouchBlock?
    /// The farthest it has been from where it began.
    public internal(set) var maxTravel: Double

    /// A moved sample for this touch: location, time, phase (`moved`, or `stationary` when it
    /// did not move), the properties the sample reports, and the farthest travel. Returns
    /// whether it moved.
    @inline(__always)
    mutating func apply(_ sample: ContactSample, time: Timestamp) -> Bool {
        let moved = location != sample.location
        previousLocation = location
        location = sample.location
        timestamp = time
        phase = moved ? .moved : .stationary
        if let p = sample.pressure { pressure = p }
        if let m = sample.majorRadius { majorRadius = m }
        if let m = sample.minorRadius { minorRadius = m }
        if let tool = sample.toolType { toolType = tool }
        if moved {
            let travel = beganLocation.distance(to: location)
            if travel > maxTravel { maxTravel = travel }
        }
        return moved
    }

    /// Where the touch is in a region's coordinates.
    public func location(in region: Int) -> Point { layout.convert(location, toRegion: region) }

    /// Whether, having ended now, it counts as a tap under `policy`.
    public func isTap(_ policy: TapPolicy) -> Bool {
        phase == .ended && maxTravel <= policy.maximumMovement && (timestamp - beganTime) <= policy.maximumDuration
    }
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
