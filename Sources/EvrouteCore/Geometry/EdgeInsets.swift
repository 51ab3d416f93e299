/// Distances inward from each edge. Used for hit insets: positive values shrink the
/// touchable area, negative values enlarge it (like Android's TouchDelegate).
public struct EdgeInsets: Hashable, Sendable {
    public var top: Double
    public var left: Double
    public var bottom: Double
    public var right: Double

    public init(top: Double, left: Double, bottom: Double, right: Double) {
        self.top = top
        self.left = left
        self.bottom = bottom
        self.right = right
    }

    /// The same inset on all four edges.
    public init(all v: Double) { self.init(top: v, left: v, bottom: v, right: v) }

    public static let zero = EdgeInsets(all: 0)
    public var isZero: Bool { self == .zero }
}
