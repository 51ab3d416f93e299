extension Layout {
    /// UIKit's `hitTest(_:with:)`: the deepest region of `screen` whose touchable area holds
    /// `point` (display coordinates). A region that is hidden, non-interactive or nearly
    /// transparent is skipped with its subtree, and a point outside a region never reaches its
    /// children. Children are tried front to back (last declared first).
    public func hitTest(_ point: Point, inScreen screen: Int) -> Int? {
        hitTest(point, region: screens[screen].root)
    }

    /// Hit-tests the subtree rooted at `region`.
    public func hitTest(_ point: Point, region: Int) -> Int? {
        let node = regions[region]
        guard node.isHittable, node.containsPoint(point) else { return nil }
        if let grid = childGrids[region] {
            if let cell = grid.cell(for: point) {
                var i = Int(grid.cellStart[cell]), end = Int(grid.cellStart[cell + 1])
                while i < end {
                    if let hit = hitTest(point, region: Int(grid.items[i])) { return hit }
                    i += 1
                }
            }
            return region
        }
        var i = node.children.count
        while i > 0 {
            i -= 1
            if let hit = hitTest(point, region: node.children[i]) { return hit }
        }
        return region
    }

    /// Where a point lies in a region's own coordinates (origin at its frame's top-left).
    public func convert(_ point: Point, toRegion region: Int) -> Point {
        point - regions[region].absoluteFrame.origin
    }
}
