import EvrouteCore
import EvrouteJSON

/// `evroute tree --format svg`: a picture of the layout. Each display is a row of panels, one per
/// screen, each the display's size scaled alike; regions are drawn to scale at their display
/// frames, parents under children (children back to front), with their names and handlers.
/// Styles: hidden regions dashed and faded, non-interactive ones hatched, exclusive-touch ones
/// with a thick red border, focusable ones marked ◆; a screen presented over another (at start,
/// or by a `present` handler) stands right after its presenter with an arrow from it. A legend
/// and the application and fallback handlers end the picture.
struct TreeSVG {
    let layout: Layout
    /// The config file, for the title.
    let source: String

    /// The longest side of a screen panel, in SVG pixels.
    static let panelSide = 560.0
    static let margin = 24.0
    static let gap = 56.0
    /// Room above each panel for its name, notes and the presentation arrows.
    static let header = 64.0

    /// The responders whose `present` handlers present `screen`.
    static func presenters(of screen: Int, in layout: Layout) -> [ResponderID] {
        let name = layout.screens[screen].name
        return layout.handlers.filter { $0.pluginType == .present && $0.options["screen"]?.string == name }.map(\.owner)
    }

    /// The screen a responder belongs to (nil for the display, application and fallback).
    func screen(of responder: ResponderID) -> Int? {
        switch responder {
        case .region(let r): layout.regions[r].screen
        case .screen(let s): s
        case .display, .application, .fallback, .motion: nil
        }
    }

    /// A display's screens in drawing order: each screen followed by the screens presented over
    /// it or from it (depth first), so that a presented screen stands beside its presenter.
    func screenOrder(_ display: DisplayNode) -> [(screen: Int, from: Int?)] {
        var parentOf: [Int: Int] = [:]
        for s in display.screens {
            if let over = layout.screens[s].presentedOver {
                parentOf[s] = over
            } else if let from = Self.presenters(of: s, in: layout).lazy.compactMap(screen(of:)).first(where: { $0 != s }) {
                parentOf[s] = from
            }
        }
        var order: [(screen: Int, from: Int?)] = []
        var placed = Set<Int>()
        func place(_ s: Int, from: Int?) {
            guard placed.insert(s).inserted else { return }
            order.append((s, from))
            for child in display.screens where parentOf[child] == s { place(child, from: s) }
        }
        for s in display.screens where parentOf[s] == nil || !display.screens.contains(parentOf[s]!) { place(s, from: nil) }
        for s in display.screens { place(s, from: parentOf[s]) }   // presentation cycles
        return order
    }

    func render() -> String {
        var body = ""
        var y = Self.margin + 28
        var width = 0.0
        var regionCount = 0
        for display in layout.displays {
            let scale = min(4, Self.panelSide / max(display.size.width, display.size.height, 1))
            let panelWidth = display.size.width * scale, panelHeight = display.size.height * scale
            body += text("display \(display.name) — \(fmt(display.size.width))×\(fmt(display.size.height)) (drawn at \(fmt((scale * 100).rounded()))%)",
                         x: Self.margin, y: y, size: 15, weight: "bold")
            y += 8
            let top = y + Self.header
            var x = Self.margin
            var panelX: [Int: Double] = [:]
            for (s, from) in screenOrder(display) {
                let screen = layout.screens[s]
                panelX[s] = x
                var notes: [String] = []
                if display.initialScreen == s { notes.append("active at start") }
                if let over = screen.presentedOver { notes.append("presented over \(layout.screens[over].name) at start") }
                let by = Self.presenters(of: s, in: layout).map { layout.describe($0) }
                if !by.isEmpty { notes.append("presented by " + by.joined(separator: ", ")) }
                body += text("screen \(screen.name)", x: x, y: top - 24, size: 13, weight: "bold")
                if !notes.isEmpty { body += text(notes.joined(separator: "; "), x: x, y: top - 8, size: 10, fill: "#555", maxWidth: panelWidth) }
                if let from, let fromX = panelX[from] {
                    let x1 = fromX + panelWidth / 2, x2 = x + panelWidth / 2
                    body += "<path d=\"M \(fmt(x1)) \(fmt(top - 36)) Q \(fmt((x1 + x2) / 2)) \(fmt(top - 60)) \(fmt(x2 - 8)) \(fmt(top - 36))\" fill=\"none\" stroke=\"#36c\" stroke-width=\"1.5\" marker-end=\"url(#arrow)\"/>\n"
                }
                body += "<rect x=\"\(fmt(x))\" y=\"\(fmt(top))\" width=\"\(fmt(panelWidth))\" height=\"\(fmt(panelHeight))\" fill=\"#fafafa\" stroke=\"#222\" stroke-width=\"1.5\"/>\n"
                body += "<svg x=\"\(fmt(x))\" y=\"\(fmt(top))\" width=\"\(fmt(panelWidth))\" height=\"\(fmt(panelHeight))\" overflow=\"hidden\">\n"
                for r in screen.regions {
                    body += region(r, scale: scale)
                    regionCount += 1
                }
                body += "</svg>\n"
                // Regions whose label a region drawn over them hides (a container filled by its
                // children) are named under the panel, so every region is named in the picture.
                let covered = Array(screen.regions).filter { r in
                    let f = layout.regions[r].absoluteFrame
                    let spot = Point(x: f.minX + 3 / scale, y: f.minY + 6 / scale)
                    return screen.regions.contains { o in o > r && !layout.regions[o].hidden && layout.regions[o].absoluteFrame.contains(spot) }
                }
                if !covered.isEmpty {
                    body += text("under others: " + covered.map { layout.regions[$0].name }.joined(separator: ", "),
                                 x: x, y: top + panelHeight + 14, size: 10, fill: "#555", maxWidth: panelWidth)
                }
                x += panelWidth + Self.gap
            }
            width = max(width, x - Self.gap + Self.margin)
            y = top + panelHeight + Self.margin + 16
        }
        // Legend.
        let legend: [(String, String)] = [
            ("region", "fill=\"#dde8f5\" stroke=\"#444\""),
            ("hidden", "fill=\"none\" stroke=\"#444\" stroke-dasharray=\"5 3\" opacity=\"0.6\""),
            ("not interactive", "fill=\"url(#hatch)\" stroke=\"#444\""),
            ("exclusive touch", "fill=\"#dde8f5\" stroke=\"#c00\" stroke-width=\"3\""),
        ]
        var lx = Self.margin
        body += text("legend", x: lx, y: y + 12, size: 11, weight: "bold")
        lx += 52
        for (label, style) in legend {
            body += "<rect x=\"\(fmt(lx))\" y=\"\(fmt(y))\" width=\"28\" height=\"16\" \(style)/>\n"
            body += text(label, x: lx + 34, y: y + 12, size: 11)
            lx += 34 + Double(label.count) * 6.5 + 18
        }
        body += text("◆ focusable", x: lx, y: y + 12, size: 11, fill: "#1a5fb4")
        lx += 90
        body += text("→ presents", x: lx, y: y + 12, size: 11, fill: "#36c")
        width = max(width, lx + 90)
        y += 34
        for (name, handlers) in [("application", layout.applicationHandlers), ("fallback", layout.fallbackHandlers)] where !handlers.isEmpty {
            body += text("\(name): " + handlerText(handlers), x: Self.margin, y: y, size: 11)
            y += 16
        }
        let height = y + Self.margin
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        out += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(fmt(width.rounded(.up)))\" height=\"\(fmt(height.rounded(.up)))\" "
        out += "viewBox=\"0 0 \(fmt(width.rounded(.up))) \(fmt(height.rounded(.up)))\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n"
        out += "<title>\(Self.escape("evroute layout \(source)"))</title>\n"
        out += """
            <defs>
            <pattern id="hatch" width="8" height="8" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
            <rect width="8" height="8" fill="#e4e4e4"/><line x1="0" y1="0" x2="0" y2="8" stroke="#999" stroke-width="3"/>
            </pattern>
            <marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
            <path d="M 0 0 L 10 5 L 0 10 z" fill="#36c"/>
            </marker>
            </defs>
            <rect width="100%" height="100%" fill="white"/>

            """
        out += text("evroute layout: \(source) — \(layout.displays.count) display(s), \(layout.screens.count) screen(s), \(regionCount) region(s)",
                    x: Self.margin, y: Self.margin + 4, size: 16, weight: "bold")
        return out + body + "</svg>\n"
    }

    /// One region: its shape at its display frame (panel coordinates), its style, and its
    /// label (name, handlers, marks) clipped to the region.
    func region(_ r: Int, scale: Double) -> String {
        let node = layout.regions[r]
        let f = node.absoluteFrame
        let x = f.minX * scale, y = f.minY * scale, w = max(f.width * scale, 0), h = max(f.height * scale, 0)
        let palette = ["#eef2f7", "#dde8f5", "#d3ecd9", "#f6e9cf", "#ead9f2", "#f5d9dc"]
        // A hidden region is an outline only (it hides nothing drawn before it), labelled at its
        // bottom so that the regions under it keep their labels.
        var style = node.hidden ? "fill=\"none\"" : "fill=\"\(palette[min(node.depth, palette.count - 1)])\""
        if node.opacity < 1 { style += " fill-opacity=\"\(fmt(max(node.opacity, 0.15)))\"" }
        style += node.exclusive ? " stroke=\"#c00\" stroke-width=\"3\"" : " stroke=\"#444\" stroke-width=\"1\""
        var out = "<g\(node.hidden ? " opacity=\"0.6\"" : "")><title>\(Self.escape(node.path))</title>\n"
        let dash = node.hidden ? " stroke-dasharray=\"5 3\"" : ""
        out += shapeElement(node, x: x, y: y, w: w, h: h, scale: scale, attributes: style + dash)
        if !node.interactive {
            out += shapeElement(node, x: x, y: y, w: w, h: h, scale: scale, attributes: "fill=\"url(#hatch)\" fill-opacity=\"0.8\" stroke=\"none\"")
        }
        // The label: name on the first line, handlers and flags below, clipped to the region.
        let size = max(7, min(12, h / 3.2, w / 5))
        var lines = [(node.name + (node.focusable ? " ◆" : ""), "bold", node.focusable ? "#1a5fb4" : "#111")]
        if !node.handlers.isEmpty { lines.append((handlerText(node.handlers), "normal", "#333")) }
        var flags: [String] = []
        if node.hidden { flags.append("hidden") }
        if !node.interactive { flags.append("not interactive") }
        if node.exclusive { flags.append("exclusive") }
        if !node.multitouch { flags.append("single touch") }
        if !node.gestures.isEmpty { flags.append("gestures: " + node.gestures.map(\.name).joined(separator: ", ")) }
        if !flags.isEmpty { lines.append((flags.joined(separator: ", "), "normal", "#7a1f1f")) }
        out += "<svg x=\"\(fmt(x))\" y=\"\(fmt(y))\" width=\"\(fmt(w))\" height=\"\(fmt(h))\" overflow=\"hidden\">\n"
        let first = node.hidden ? max(h - Double(lines.count) * (size + 2) - 2, 0) : 0
        for (i, line) in lines.enumerated() where Double(i + 1) * (size + 2) <= h + size / 2 {
            out += text(line.0, x: 3, y: first + 2 + size + Double(i) * (size + 2), size: i == 0 ? size : max(6, size - 1.5), weight: line.1, fill: line.2)
        }
        out += "</svg></g>\n"
        return out
    }

    func shapeElement(_ node: RegionNode, x: Double, y: Double, w: Double, h: Double, scale: Double, attributes: String) -> String {
        switch node.shape {
        case .rectangle:
            return "<rect x=\"\(fmt(x))\" y=\"\(fmt(y))\" width=\"\(fmt(w))\" height=\"\(fmt(h))\" \(attributes)/>\n"
        case .roundedRectangle(let radius):
            return "<rect x=\"\(fmt(x))\" y=\"\(fmt(y))\" width=\"\(fmt(w))\" height=\"\(fmt(h))\" rx=\"\(fmt(radius * scale))\" \(attributes)/>\n"
        case .ellipse:
            return "<ellipse cx=\"\(fmt(x + w / 2))\" cy=\"\(fmt(y + h / 2))\" rx=\"\(fmt(w / 2))\" ry=\"\(fmt(h / 2))\" \(attributes)/>\n"
        case .polygon(let vertices):
            let points = vertices.map { "\(fmt(x + $0.x * scale)),\(fmt(y + $0.y * scale))" }.joined(separator: " ")
            return "<polygon points=\"\(points)\" \(attributes)/>\n"
        }
    }

    func handlerText(_ handlers: [Int]) -> String {
        handlers.map { h in
            let b = layout.handlers[h]
            return "\(b.plugin): \(b.filters.map(\.description).joined(separator: ","))"
        }.joined(separator: "; ")
    }

    func text(_ content: String, x: Double, y: Double, size: Double, weight: String = "normal", fill: String = "#111",
              maxWidth: Double? = nil) -> String {
        var attributes = "x=\"\(fmt(x))\" y=\"\(fmt(y))\" font-size=\"\(fmt(size))\" fill=\"\(fill)\""
        if weight != "normal" { attributes += " font-weight=\"\(weight)\"" }
        // Shrink a long line to the width it has rather than let it run into the next panel.
        if let maxWidth, Double(content.count) * size * 0.55 > maxWidth {
            attributes += " textLength=\"\(fmt(maxWidth))\" lengthAdjust=\"spacingAndGlyphs\""
        }
        return "<text \(attributes)>\(Self.escape(content))</text>\n"
    }

    func fmt(_ v: Double) -> String {
        // Two decimals at most: the picture's precision, and short files.
        JSONText.number((v * 100).rounded() / 100, style: .shortest)
    }

    /// The one XML escaper: text and attribute values (`&`, `<`, `>`, `"`, `'`); characters XML
    /// 1.0 cannot hold (C0 controls but tab and newline) become U+FFFD.
    static func escape(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for scalar in s.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\t", "\n": out.unicodeScalars.append(scalar)
            default: if scalar.value < 0x20 { out += "\u{FFFD}" } else { out.unicodeScalars.append(scalar) }
            }
        }
        return out
    }
}
