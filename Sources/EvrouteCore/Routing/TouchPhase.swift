/// The phase of a touch in one frame (UITouch.Phase).
public enum TouchPhase: String, Sendable {
    case began, moved, stationary, ended, cancelled

    /// Whether the touch is over after this phase.
    public var isTerminal: Bool { self == .ended || self == .cancelled }
}
