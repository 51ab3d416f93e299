/// The touchable outline of a region inside its frame. Points are in the region's own
/// coordinates (origin at the frame's top-left corner).
public enum Shape: Hashable, Sendable {
    /// The whole frame.
    case rectangle
    /// The ellipse inscribed in the frame.
    case ellipse
    /// The frame with rounded corners of the given radius.
    case roundedRectangle(radius: Double)
    /// A closed polygon (at least three vertices), even-odd rule.
    case polygon([Point])

    /// Whether `p` (region coordinates) lies inside the shape drawn in `bounds`
    /// (region coordinates too: the frame at origin zero, after hit insets).
    public func contains(_ p: Point, in bounds: Rect) -> Bool {
        guard bounds.contains(p) else { return false }
        switch self {
        case .rectangle:
            return true
        case .ellipse:
            let rx = bounds.width / 2, ry = bounds.height / 2
            guard rx > 0, ry > 0 else { return false }
            let c = bounds.center
            let nx = (p.x - c.x) / rx, ny = (p.y - c.y) / ry
            return nx * nx + ny * ny <= 1
        case .roundedRectangle(let radius):
            let r = min(max(radius, 0), bounds.width / 2, bounds.height / 2)
            guard r > 0 else { return true }
            // Inside unless in a corner square and outside that corner's circle.
            let cx: Double
            if p.x < bounds.minX + r { cx = bounds.minX + r } else if p.x > bounds.maxX - r { cx = bounds.maxX - r } else { return true }
            let cy: Double
            if p.y < bounds.minY + r { cy = bounds.minY + r } else if p.y > bounds.maxY - r { cy = bounds.maxY - r } else { return true }
            let dx = p.x - cx, dy = p.y - cy
            return dx * dx + dy * dy <= r * r
        case .polygon(let vertices):
            return Shape.polygonContains(vertices, p)
        }
    }

    /// Even-odd ray casting.
    static func polygonContains(_ v: [Point], _ p: Point) -> Bool {
        guard v.count >= 3 else { return false }
        var inside = false
        var j = v.count - 1
        for i in 0..<v.count {
            let a = v[i], b = v[j]
            if (a.y > p.y) != (b.y > p.y) {
                let xCross = (b.x - a.x) * (p.y - a.y) / (b.y - a.y) + a.x
                if p.x < xCross { inside.toggle() }
            }
            j = i
        }
        return inside
    }
}
