/// A compiled display.
public struct DisplayNode: Sendable {
    public let name: String
    public let size: Size
    /// Screens declared for this display, in declaration order.
    public let screens: [Int]
    /// The screen active at start (nil when the display has none).
    public let initialScreen: Int?
    public let handlers: [Int]
}

/// A compiled screen.
public struct ScreenNode: Sendable {
    public let name: String
    public let display: Int
    public let root: Int
    public let handlers: [Int]
    /// The screen this one is presented over at start, if any.
    public let presentedOver: Int?
    /// All regions of this screen, pre-order (root first).
    public let regions: Range<Int>
}

/// A compiled region: its place in the tree, its geometry in display coordinates, its flags.
public struct RegionNode: Sendable {
    public let name: String
    /// `screen/root/…/name`, as the trace prints it.
    public let path: String
    public let screen: Int
    public let parent: Int?
    /// Children back to front (the last is on top).
    public let children: [Int]
    public let depth: Int
    /// The frame as written, in the parent's coordinates.
    public let frame: Rect
    /// The frame in display coordinates.
    public let absoluteFrame: Rect
    /// The touchable rectangle in display coordinates (frame after hit insets).
    public let hitRect: Rect
    public let shape: Shape
    public let hitInsets: EdgeInsets
    public let hidden: Bool
    public let interactive: Bool
    public let opacity: Double
    public let exclusive: Bool
    public let multitouch: Bool
    public let focusable: Bool
    /// The `next` override, resolved.
    public let next: ResponderID?
    public let handlers: [Int]
    public let gestures: [GestureSpec]
    /// Whether hit-testing may enter this region at all (visible, interactive, opaque enough).
    public let isHittable: Bool

    /// Whether `p` (display coordinates) is inside this region's touchable area (frame, insets, shape).
    @inline(__always)
    public func containsPoint(_ p: Point) -> Bool {
        guard hitRect.contains(p) else { return false }
        if case .rectangle = shape { return true }
        let local = Point(x: p.x - absoluteFrame.minX, y: p.y - absoluteFrame.minY)
        let bounds = Rect(x: hitInsets.left, y: hitInsets.top,
                          width: frame.width - hitInsets.left - hitInsets.right,
                          height: frame.height - hitInsets.top - hitInsets.bottom)
        return shape.contains(local, in: bounds)
    }
}
