/// How a touch device sits on its display: the angle, clockwise, by which the device's own
/// picture of a touch must be turned to land where the finger is on the display.
/// With `.clockwise90`, the device's top-left corner maps to the display's top-right corner.
public enum DisplayRotation: Int, Sendable, CaseIterable {
    case none = 0
    case clockwise90 = 90
    case clockwise180 = 180
    case clockwise270 = 270

    /// The rotation for an angle in degrees (multiples of 90, any sign), or nil.
    public init?(degrees: Int) {
        let normalized = ((degrees % 360) + 360) % 360
        self.init(rawValue: normalized)
    }

    /// Turns a normalized point ([0, 1]², y down) by this rotation.
    @inline(__always)
    public func apply(x: Double, y: Double) -> (x: Double, y: Double) {
        switch self {
        case .none: return (x, y)
        case .clockwise90: return (1 - y, x)
        case .clockwise180: return (1 - x, 1 - y)
        case .clockwise270: return (y, 1 - x)
        }
    }

    /// Turns a normalized point back: the point `apply(x:y:)` took to (x, y).
    @inline(__always)
    public func undo(x: Double, y: Double) -> (x: Double, y: Double) {
        switch self {
        case .none: return (x, y)
        case .clockwise90: return (y, 1 - x)
        case .clockwise180: return (1 - x, 1 - y)
        case .clockwise270: return (1 - y, x)
        }
    }

    /// Whether the rotation swaps the device's axes relative to the display's.
    public var swapsAxes: Bool { self == .clockwise90 || self == .clockwise270 }
}
