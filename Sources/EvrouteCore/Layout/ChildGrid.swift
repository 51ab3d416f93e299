/// A uniform grid over a region's touchable rectangle that lists, per cell, the children whose
/// touchable rectangle overlaps the cell, front to back. Hit-testing a region with thousands of
/// children then looks at a handful of candidates instead of all of them.
///
/// The grid covers the parent's hit rectangle (its frame after hit insets): the only points
/// that reach its children, so it answers exactly what the front-to-back scan would, also
/// where negative insets grow the parent beyond its frame. Cell numbers are computed in
/// `Double` and clamped before they become `Int`, so no frame, inset or point traps — zero
/// or negative sizes, huge, infinite or NaN values included (a degenerate axis is one cell).
struct ChildGrid: Sendable {
    /// Regions with fewer children are scanned linearly (that is faster for them).
    static let minimumChildren = 24

    /// The rectangle the cells divide (the parent's hit rectangle).
    let area: Rect
    let cellWidth: Double
    let cellHeight: Double
    let columns: Int
    let rows: Int
    /// `cellStart[c] ..< cellStart[c + 1]` indexes `items` for cell `c`.
    let cellStart: [Int32]
    let items: [Int32]

    init(parent: RegionNode, children: [Int], regions: [RegionNode]) {
        let area = parent.hitRect
        self.area = area
        let side = max(1, Int(Double(children.count).squareRoot().rounded(.up)))
        // An axis without a positive, finite extent is one cell (nothing to divide).
        let usableWidth = area.width > 0 && area.width.isFinite && area.minX.isFinite && area.maxX.isFinite
        let usableHeight = area.height > 0 && area.height.isFinite && area.minY.isFinite && area.maxY.isFinite
        columns = usableWidth ? min(side, 256) : 1
        rows = usableHeight ? min(side, 256) : 1
        cellWidth = usableWidth ? max(area.width / Double(columns), .leastNormalMagnitude) : .infinity
        cellHeight = usableHeight ? max(area.height / Double(rows), .leastNormalMagnitude) : .infinity
        var buckets = [[Int32]](repeating: [], count: columns * rows)
        // Front to back: the last declared child first.
        for child in children.reversed() {
            let r = regions[child].hitRect
            // (A NaN anywhere fails these comparisons: such a child can hold no point.)
            guard regions[child].isHittable, r.width > 0, r.height > 0, r.intersects(area) else { continue }
            let c0 = Self.slot(r.minX, area.minX, cellWidth, columns)
            let c1 = Self.slot(r.maxX, area.minX, cellWidth, columns)
            let r0 = Self.slot(r.minY, area.minY, cellHeight, rows)
            let r1 = Self.slot(r.maxY, area.minY, cellHeight, rows)
            guard c0 <= c1, r0 <= r1 else { continue }
            for row in r0...r1 { for col in c0...c1 { buckets[row * columns + col].append(Int32(child)) } }
        }
        var start: [Int32] = [0]
        var flat: [Int32] = []
        for b in buckets { flat.append(contentsOf: b); start.append(Int32(flat.count)) }
        cellStart = start
        items = flat
    }

    /// The cell along one axis that holds `value`, clamped to `0 ..< count` (below the area,
    /// NaN and a degenerate axis give 0; above it, the last cell).
    @inline(__always)
    static func slot(_ value: Double, _ origin: Double, _ cell: Double, _ count: Int) -> Int {
        let f = ((value - origin) / cell).rounded(.down)
        guard f >= 0 else { return 0 }
        guard f < Double(count) else { return count - 1 }
        return Int(f)
    }

    /// The cell holding `p`, or nil when `p` is outside the grid's area.
    @inline(__always)
    func cell(for p: Point) -> Int? {
        guard area.contains(p) else { return nil }
        return Self.slot(p.y, area.minY, cellHeight, rows) * columns + Self.slot(p.x, area.minX, cellWidth, columns)
    }
}
