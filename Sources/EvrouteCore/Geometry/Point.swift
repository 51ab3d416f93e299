/// A point in some coordinate space (display units unless stated otherwise).
public struct Point: Hashable, Sendable, CustomStringConvertible {
    public var x: Double
    public var y: Double

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    public static let zero = Point(x: 0, y: 0)

    /// Both coordinates are finite (not infinite, not NaN).
    @inline(__always)
    public var isFinite: Bool { x.isFinite && y.isFinite }

    /// Euclidean distance to another point.
    public func distance(to other: Point) -> Double { squaredDistance(to: other).squareRoot() }

    /// The square of ``distance(to:)`` (no square root: for comparisons and maxima).
    @inline(__always)
    public func squaredDistance(to other: Point) -> Double {
        let dx = other.x - x, dy = other.y - y
        return dx * dx + dy * dy
    }

    public static func - (a: Point, b: Point) -> Point { Point(x: a.x - b.x, y: a.y - b.y) }
    public static func + (a: Point, b: Point) -> Point { Point(x: a.x + b.x, y: a.y + b.y) }

    public var description: String { "(\(x), \(y))" }
}
