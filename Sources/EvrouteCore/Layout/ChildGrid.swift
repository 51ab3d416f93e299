/// A uniform grid over a region's frame that lists, per cell, the children whose touchable
/// rectangle overlaps the cell, front to back. Hit-testing a region with thousands of children
/// then looks at a handful of candidates instead of all of them.
struct ChildGrid: Sendable {
    /// Regions with fewer children are scanned linearly (that is faster for them).
    static let minimumChildren = 24

    let origin: Point
    let cellWidth: Double
    let cellHeight: Double
    let columns: Int
    let rows: Int
    /// `cellStart[c] ..< cellStart[c + 1]` indexes `items` for cell `c`.
    let cellStart: [Int32]
    let items: [Int32]

    init(parent: RegionNode, children: [Int], regions: [RegionNode]) {
        let bounds = parent.absoluteFrame
        let side = max(1, Int(Double(children.count).squareRoot().rounded(.up)))
        columns = min(side, 256)
        rows = min(side, 256)
        origin = bounds.origin
        cellWidth = max(bounds.width / Double(columns), .leastNormalMagnitude)
        cellHeight = max(bounds.height / Double(rows), .leastNormalMagnitude)
        var buckets = [[Int32]](repeating: [], count: columns * rows)
        // Front to back: the last declared child first.
        for child in children.reversed() {
            let r = regions[child].hitRect
            guard regions[child].isHittable, r.width > 0, r.height > 0, r.intersects(bounds) else { continue }
            let c0 = max(0, Int(((r.minX - origin.x) / cellWidth).rounded(.down)))
            let c1 = min(columns - 1, Int(((r.maxX - origin.x) / cellWidth).rounded(.down)))
            let r0 = max(0, Int(((r.minY - origin.y) / cellHeight).rounded(.down)))
            let r1 = min(rows - 1, Int(((r.maxY - origin.y) / cellHeight).rounded(.down)))
            guard c0 <= c1, r0 <= r1 else { continue }
            for row in r0...r1 { for col in c0...c1 { buckets[row * columns + col].append(Int32(child)) } }
        }
        var start: [Int32] = [0]
        var flat: [Int32] = []
        for b in buckets { flat.append(contentsOf: b); start.append(Int32(flat.count)) }
        cellStart = start
        items = flat
    }

    /// The cell holding `p`, or nil when `p` is outside the grid.
    @inline(__always)
    func cell(for p: Point) -> Int? {
        let col = Int(((p.x - origin.x) / cellWidth).rounded(.down))
        let row = Int(((p.y - origin.y) / cellHeight).rounded(.down))
        guard col >= 0, col < columns, row >= 0, row < rows else { return nil }
        return row * columns + col
    }
}
