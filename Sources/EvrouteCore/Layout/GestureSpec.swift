/// A gesture recognizer declared on a region (`gestures:` in the config).
public struct GestureSpec: Sendable {
    public enum Kind: String, Sendable, CaseIterable {
        case tap, longPress = "long-press", swipe, pan, pinch, rotation, screenEdgePan = "screen-edge-pan"
    }
    public enum Direction: String, Sendable, CaseIterable { case left, right, up, down }
    public enum Edge: String, Sendable, CaseIterable { case left, right, top, bottom }

    public var name: String
    public var kind: Kind
    /// Tap: taps required.
    public var taps: Int
    /// Touches required (tap, long press, swipe, pan: minimum).
    public var touches: Int
    /// Pan: maximum touches.
    public var maximumTouches: Int?
    /// Long press: seconds the touches must stay down.
    public var minimumDuration: Double
    /// Long press and tap: how far (display units) a touch may move and still count.
    public var allowableMovement: Double
    /// Swipe: the direction(s) accepted.
    public var directions: [Direction]
    /// Swipe: minimum distance; pan and edge pan: distance before it begins.
    public var minimumDistance: Double
    /// Swipe: the most seconds it may take.
    public var maximumDuration: Double
    /// Screen-edge pan: the display edges it starts from.
    public var edges: [Edge]
    /// Cancel the region's touches on recognition (UIKit default true).
    public var cancelsTouches: Bool
    public var delaysTouchesBegan: Bool
    public var delaysTouchesEnded: Bool
    /// Recognizers (names, same screen) that must fail before this one may recognize.
    public var requireToFail: [String]
    /// Recognizers (names, same screen) this one may recognize together with.
    public var simultaneousWith: [String]
    /// An action to send up the chain from the region on recognition.
    public var action: String?
    public var location: SourceLocation?

    public init(name: String, kind: Kind, taps: Int = 1, touches: Int = 1, maximumTouches: Int? = nil,
                minimumDuration: Double = 0.5, allowableMovement: Double = 10, directions: [Direction] = [.right],
                minimumDistance: Double = 50, maximumDuration: Double = 0.5, edges: [Edge] = [],
                cancelsTouches: Bool = true, delaysTouchesBegan: Bool = false, delaysTouchesEnded: Bool = true,
                requireToFail: [String] = [], simultaneousWith: [String] = [], action: String? = nil,
                location: SourceLocation? = nil) {
        self.name = name
        self.kind = kind
        self.taps = taps
        self.touches = touches
        self.maximumTouches = maximumTouches
        self.minimumDuration = minimumDuration
        self.allowableMovement = allowableMovement
        self.directions = directions
        self.minimumDistance = minimumDistance
        self.maximumDuration = maximumDuration
        self.edges = edges
        self.cancelsTouches = cancelsTouches
        self.delaysTouchesBegan = delaysTouchesBegan
        self.delaysTouchesEnded = delaysTouchesEnded
        self.requireToFail = requireToFail
        self.simultaneousWith = simultaneousWith
        self.action = action
        self.location = location
    }

    /// The config keys only some kinds of gesture take, and which.
    public static let kindKeys: [(key: String, kinds: [Kind])] = [
        ("taps", [.tap]),
        ("touches", [.tap, .longPress, .swipe, .pan]),
        ("maximum-touches", [.pan]),
        ("minimum-duration", [.longPress]),
        ("allowable-movement", [.tap, .longPress]),
        ("direction", [.swipe]),
        ("minimum-distance", [.swipe, .pan, .screenEdgePan]),
        ("maximum-duration", [.swipe]),
        ("edges", [.screenEdgePan]),
        ("edge", [.screenEdgePan]),
    ]
}
