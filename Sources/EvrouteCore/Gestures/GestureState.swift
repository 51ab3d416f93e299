/// The state of a gesture recognizer (UIKit's `UIGestureRecognizer.State`).
///
/// Discrete recognizers (tap, swipe): `possible → recognized | failed`.
/// Continuous recognizers (long press, pan, pinch, rotation, screen-edge pan):
/// `possible → began → changed* → ended | cancelled`, or `possible → failed`.
/// A recognizer goes back to `possible` (resets) once it is in a final state and all the
/// touches it tracked have ended.
public enum GestureState: String, Sendable, CaseIterable {
    case possible, began, changed, ended, recognized, cancelled, failed

    /// Whether this state change routes up the responder chain as a `gesture:NAME` event.
    /// `failed` (and `possible`) are traced, not routed.
    public var routes: Bool {
        switch self {
        case .began, .changed, .ended, .recognized, .cancelled: true
        case .possible, .failed: false
        }
    }

    /// Whether the recognizer is done with the current touch sequence.
    public var isFinal: Bool {
        switch self {
        case .ended, .recognized, .cancelled, .failed: true
        case .possible, .began, .changed: false
        }
    }
}

/// What a recognizer measured when it changed state, carried by its gesture event.
public struct GestureValues: Sendable, Equatable {
    /// The centroid of the recognizer's touches (display coordinates).
    public var location: Point
    /// How far the centroid moved since the touches began (pan, swipe, edge pan).
    public var translation: Point
    /// Pinch: current distance between the two touches over the distance when it began tracking.
    public var scale: Double
    /// Rotation: radians turned since tracking began (clockwise positive, display y down).
    public var rotation: Double
    /// Touches down (or, for a tap, touches of the tap).
    public var touches: Int
    /// Tap: taps counted.
    public var taps: Int
    /// Swipe: the direction recognized.
    public var direction: GestureSpec.Direction?
    /// Screen-edge pan: the edge it started from.
    public var edge: GestureSpec.Edge?

    public init(location: Point = .zero, translation: Point = .zero, scale: Double = 1, rotation: Double = 0,
                touches: Int = 0, taps: Int = 0, direction: GestureSpec.Direction? = nil, edge: GestureSpec.Edge? = nil) {
        self.location = location
        self.translation = translation
        self.scale = scale
        self.rotation = rotation
        self.touches = touches
        self.taps = taps
        self.direction = direction
        self.edge = edge
    }
}

/// A recognizer in a layout: the region it is attached to and its index in that region's `gestures`.
public struct GestureRef: Hashable, Sendable {
    public var region: Int
    public var index: Int

    public init(region: Int, index: Int) {
        self.region = region
        self.index = index
    }
}

/// Fixed thresholds of the recognizers that have no config key for them.
public enum GestureThresholds {
    /// Pinch begins when the distance between the two touches changed by this much (display units).
    public static let pinchDistance: Double = 10
    /// Rotation begins when the two touches turned by this many radians (~8.6°).
    public static let rotationAngle: Double = 0.15
    /// Screen-edge pan: how close to the display edge (display units) a touch must begin.
    public static let edgeMargin: Double = 20
}

/// `atan2` without Foundation (the core imports nothing): a minimax polynomial for atan on
/// [0, 1] with range reduction; error below 1e-5 rad. (Also the input layer's: a motion
/// stage's orientation.)
@inline(__always)
public func gestureAtan2(_ y: Double, _ x: Double) -> Double {
    let ax = abs(x), ay = abs(y)
    if ax == 0 && ay == 0 { return 0 }
    let swap = ay > ax
    let z = swap ? ax / ay : ay / ax
    let z2 = z * z
    var a = z * (0.99997726 + z2 * (-0.33262347 + z2 * (0.19354346 + z2 * (-0.11643287 + z2 * (0.05265332 + z2 * -0.01172120)))))
    if swap { a = Double.pi / 2 - a }
    if x < 0 { a = Double.pi - a }
    return y < 0 ? -a : a
}
