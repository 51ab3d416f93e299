import EvrouteCore

/// Where a region's label goes in an SVG picture, so that it stays readable: inside the region,
/// clear of what is drawn over it, each line clipped to the width it has.
///
/// The first line (the name) takes the first spot, top to bottom and left to right (bottom
/// first for a region drawn as an outline only), where it fits whole beside and below the boxes
/// to avoid; failing that, the widest spot, with the name drawn smaller (down to `minimumSize`);
/// failing that, nowhere (the picture names the region under its panel). The other lines follow
/// below it while they fit whole (drawn smaller down to `minimumSize` if need be). A line is
/// never cut: widths are estimated from the font size (no font metrics without a renderer)
/// with room to spare, and each line's box is still a clip against an estimate gone wrong.
struct SVGLabelPlacer {
    /// A line to place: its text and whether it is bold (the name).
    struct Line {
        var text: String
        var bold: Bool
        var fill: String
    }

    /// A placed line: its box (to clip to) and font size.
    struct PlacedLine {
        var text: String
        var box: Rect
        var size: Double
        var bold: Bool
        var fill: String
        /// The text's baseline, from the top of its box.
        var baseline: Double { 1 + size * 0.8 }
    }

    /// The smallest font size a name is shrunk to before it is clipped.
    static let minimumSize = 6.0
    /// Room between a region's edge (or a box to avoid) and its label.
    static let padding = 3.0

    /// The estimated width of `text` in the picture's sans-serif font (DejaVu Sans averages
    /// about 0.58 em a character, its bold 0.64).
    static func width(of text: String, size: Double, bold: Bool) -> Double {
        Double(text.count) * size * (bold ? 0.64 : 0.58)
    }

    /// The region's box (where its label may go), in picture coordinates.
    let box: Rect
    /// Boxes the label must not overlap: regions drawn over this one, labels drawn before.
    let obstacles: [Rect]

    init(box: Rect, avoiding obstacles: [Rect]) {
        self.box = box
        self.obstacles = obstacles.filter { $0.intersects(box) }
    }

    /// The width free for a line at `x` between `top` and `top + height` (0 when `x` is covered).
    func available(x: Double, top: Double, height: Double) -> Double {
        var right = box.maxX - 1
        for o in obstacles where o.minY < top + height && o.maxY > top && o.maxX > x {
            if o.minX <= x { return 0 }
            right = min(right, o.minX - 1)
        }
        return max(0, right - x)
    }

    /// Places `lines` (the name first) at font size `size` (the name; the others a little
    /// smaller): at the first spot where the whole label fits, else the first where the name
    /// and the most lines fit, else the widest spot with the name shrunk and clipped. Empty when
    /// the name has no room anywhere in the box.
    func place(_ lines: [Line], size: Double, bottomFirst: Bool = false) -> [PlacedLine] {
        guard let name = lines.first, box.width > 2 * Self.padding else { return [] }
        let nameHeight = size + 2
        let lineHeight = max(Self.minimumSize, size - 1.5) + 2
        guard nameHeight <= box.height + 1 else { return [] }
        let xs = ([box.minX + Self.padding] + obstacles.map { $0.maxX + Self.padding }.filter { $0 > box.minX && $0 < box.maxX - Self.padding }).sorted()
        var ys = [box.minY] + obstacles.map { $0.maxY }.filter { $0 > box.minY && $0 + nameHeight <= box.maxY + 1 }
        if bottomFirst {
            let block = nameHeight + Double(lines.count - 1) * lineHeight
            ys.append(max(box.minY, box.maxY - block))
            ys += obstacles.map { $0.minY - block }.filter { $0 > box.minY && $0 + block <= box.maxY }
        }
        ys.sort(by: bottomFirst ? (>) : (<))
        let needed = Self.width(of: name.text, size: size, bold: name.bold)
        var fitting: [PlacedLine]?
        var widest: (x: Double, y: Double, width: Double)?
        for y in ys {
            for x in xs {
                let width = available(x: x, top: y, height: nameHeight)
                if width >= needed {
                    let label = lay(lines, x: x, y: y, width: width, nameSize: size, size: size)
                    if label.count == lines.count { return label }
                    if label.count > fitting?.count ?? 0 { fitting = label }
                } else if width > widest?.width ?? 0 {
                    widest = (x, y, width)
                }
            }
        }
        if let fitting { return fitting }
        // The name shrunk to the widest spot — whole, never clipped: when it would be smaller
        // than `minimumSize` there, the region has no room for it (it is named under the panel).
        guard let widest else { return [] }
        let nameSize = size * widest.width / needed
        guard nameSize >= Self.minimumSize else { return [] }
        return lay(lines, x: widest.x, y: widest.y, width: widest.width, nameSize: nameSize, size: size)
    }

    /// The name at (`x`, `y`) in `width`, and the lines below it while they have room; the
    /// other lines are never larger than a shrunk name.
    func lay(_ lines: [Line], x: Double, y: Double, width: Double, nameSize: Double, size: Double) -> [PlacedLine] {
        let name = lines[0]
        var placed = [PlacedLine(text: name.text, box: Rect(x: x, y: y, width: width, height: nameSize + 2),
                                 size: nameSize, bold: name.bold, fill: name.fill)]
        let otherSize = min(max(Self.minimumSize, size - 1.5), nameSize)
        var top = y + nameSize + 2
        for line in lines.dropFirst() {
            let height = otherSize + 2
            guard top + height <= box.maxY + 1 else { break }
            let width = available(x: x, top: top, height: height)
            // Whole or not at all (drawn smaller, down to `minimumSize`, when that makes it fit):
            // what does not fit is in the tooltip.
            let needed = Self.width(of: line.text, size: otherSize, bold: line.bold)
            let lineSize = needed <= width ? otherSize : otherSize * width / needed
            guard lineSize >= Self.minimumSize else { break }
            placed.append(PlacedLine(text: line.text, box: Rect(x: x, y: top, width: width, height: height),
                                     size: lineSize, bold: line.bold, fill: line.fill))
            top += height
        }
        return placed
    }
}
