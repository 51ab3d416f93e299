/// One accelerometer sample, as the input layer decodes it: the acceleration the device
/// measures along its axes, in g (the axis resolution's units per g), at rest ≈ 1 g pointing
/// up (the reaction to gravity).
public struct MotionSample: Sendable, Equatable {
    public var device: DeviceID
    public var time: Timestamp
    public var x: Double
    public var y: Double
    public var z: Double

    public init(device: DeviceID, time: Timestamp, x: Double, y: Double, z: Double) {
        self.device = device
        self.time = time
        self.x = x
        self.y = y
        self.z = z
    }

    /// The length of the acceleration vector, in g (≈ 1 at rest).
    public var magnitude: Double { (x * x + y * y + z * z).squareRoot() }
}

/// Which edge of the display is up, from an accelerometer's gravity: `portrait` with the
/// sensor's y axis pointing up, `landscape` turned 90° clockwise from there (its x axis
/// pointing down: the left edge up), `portrait-flipped` upside down, `landscape-flipped`
/// turned 90° counter-clockwise (the right edge up). `rotate: auto` maps them to 0, 90, 180
/// and 270 degrees.
public enum Orientation: String, Sendable, CaseIterable {
    case portrait
    case landscape
    case portraitFlipped = "portrait-flipped"
    case landscapeFlipped = "landscape-flipped"

    /// Clockwise rotation from `portrait`, in degrees.
    public var degrees: Int {
        switch self {
        case .portrait: 0
        case .landscape: 90
        case .portraitFlipped: 180
        case .landscapeFlipped: 270
        }
    }

    /// The direction (radians, counter-clockwise from +x) the measured gravity reaction points
    /// to in the x-y plane when the device is held this way.
    public var angle: Double {
        switch self {
        case .portrait: Double.pi / 2             // +y up
        case .landscape: Double.pi                // −x up
        case .portraitFlipped: -Double.pi / 2     // −y up
        case .landscapeFlipped: 0                 // +x up
        }
    }
}

/// What the input layer's motion stage (EvrouteInput's `MotionStage`: sample pacing,
/// orientation with hysteresis, shake detection) made of one accelerometer sample, in the order
/// the router routes them: a shake, an orientation change, the sample.
public struct MotionSignals: Sendable {
    /// A jolt that begins a shake, or one during it: the shake ends at `until` (a window after
    /// its last jolt) unless another jolt moves it.
    public enum Shake: Sendable, Equatable {
        case began(until: Timestamp)
        case continues(until: Timestamp)
    }

    public var device: DeviceID
    public var time: Timestamp
    public var shake: Shake?
    /// The orientation changed to this.
    public var orientation: Orientation?
    /// The sample, when `motion.rate` lets it out.
    public var sample: MotionSample?

    public init(device: DeviceID, time: Timestamp, shake: Shake? = nil, orientation: Orientation? = nil, sample: MotionSample? = nil) {
        self.device = device
        self.time = time
        self.shake = shake
        self.orientation = orientation
        self.sample = sample
    }
}

/// A motion event's phase (UIKit's motionBegan / motionEnded / motionCancelled).
public enum MotionPhase: String, Sendable {
    case began, ended, cancelled
}

/// What a motion event carries, for the trace and plugins.
public enum MotionValues: Sendable, Equatable {
    /// A sample (to the `motion:` handlers only), in g.
    case sample(x: Double, y: Double, z: Double)
    /// The orientation changed (to the `motion:` handlers only).
    case orientation(Orientation)
    /// A shake of the device, routed from the first responder up the chain.
    case shake(MotionPhase)
}

/// The top-level `motion:` section: the handlers that accelerometer samples and orientation
/// changes go to (they never walk a responder chain), how often samples are delivered, and
/// how shakes and orientation are detected.
public struct MotionSpec: Sendable {
    public var handlers: [HandlerSpec]
    /// Samples delivered per second and device, at most (the others are dropped; orientation
    /// and shakes still see every sample).
    public var rate: Double
    /// A sample is a jolt when its length differs from 1 g by at least this much (in g).
    public var shakeThreshold: Double
    /// A shake begins with the second jolt within this window, and ends when this long passes
    /// without one (milliseconds).
    public var shakeWindowMs: Int
    /// The orientation changes only when gravity is within 45° minus this many degrees of the
    /// new orientation's axis (so a device held near 45° does not flip back and forth).
    public var orientationHysteresis: Double
    public var location: SourceLocation?

    public init(handlers: [HandlerSpec] = [], rate: Double = MotionSpec.defaultRate,
                shakeThreshold: Double = MotionSpec.defaultShakeThreshold,
                shakeWindowMs: Int = MotionSpec.defaultShakeWindowMs,
                orientationHysteresis: Double = MotionSpec.defaultOrientationHysteresis,
                location: SourceLocation? = nil) {
        self.handlers = handlers
        self.rate = rate
        self.shakeThreshold = shakeThreshold
        self.shakeWindowMs = shakeWindowMs
        self.orientationHysteresis = orientationHysteresis
        self.location = location
    }

    public static let defaultRate = 10.0
    public static let defaultShakeThreshold = 1.0
    public static let defaultShakeWindowMs = 500
    public static let defaultOrientationHysteresis = 15.0
    /// Below this much gravity in the x-y plane (g) the device lies flat: the orientation stays.
    public static let flatLimit = 0.5
    /// Orientation reads only samples whose length is within this much of 1 g (g): a device
    /// being moved or shaken does not turn.
    public static let restTolerance = 0.3
}
