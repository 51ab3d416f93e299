import EvrouteCore
import EvrouteInput
import EvrouteJSON
import EvrouteRuntime

/// `evroute tree --format svg`: a picture of the layout. Each display is a row of panels, one per
/// screen, each the display's size scaled alike; regions are drawn to scale at their display
/// frames, parents under children (children back to front), with their names, handlers and
/// flags. A label goes where the regions drawn over its region leave it room
/// (`SVGLabelPlacer`), each line clipped to its room; a region with no room for its name is
/// named under the panel; the tooltip (`<title>`) has the region's path and whole label.
/// Styles: hidden regions (and their subtrees) dashed and faded, non-interactive ones hatched,
/// exclusive-touch ones with a thick red border, focusable ones marked ◆; a screen presented
/// over another (at start, or by a `present` handler) stands right after its presenter with an
/// arrow from it; a screen only a UI can show says so. A legend and the application and
/// fallback handlers end the picture. Given `trails` (`--dry-run --replay … --heatmap`), the
/// replay's touches are drawn over their screens: a dot where each went down, its path.
struct TreeSVG {
    let layout: Layout
    /// The config file, for the title.
    let source: String
    /// Touches to draw over the layout (`--dry-run --replay … --heatmap`): where each went down
    /// and its path, on the screen that was active when it went down. Nil: no heatmap (an empty
    /// list is a heatmap of no touches, and says so).
    var trails: [TouchTrails.Trail]? = nil
    /// Where the touches come from (the recordings), for the legend.
    var trailSources: [String] = []
    /// Who presents each screen (by name), found once (``Layout/presenterIndex()``).
    let presenterIndex: [String: [ResponderID]]

    init(layout: Layout, source: String, trails: [TouchTrails.Trail]? = nil, trailSources: [String] = []) {
        self.layout = layout
        self.source = source
        self.trails = trails
        self.trailSources = trailSources
        presenterIndex = layout.presenterIndex()
    }

    /// The longest side of a screen panel, in SVG pixels.
    static let panelSide = 640.0
    static let margin = 24.0
    static let gap = 56.0
    /// Room above each panel for its name, notes and the presentation arrows.
    static let header = 64.0

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
        // Linear in the screens (and handlers): a presented chain of 10,000 screens is drawn at once.
        let onDisplay = Set(display.screens)
        var parentOf: [Int: Int] = [:]
        for s in display.screens {
            if let over = layout.screens[s].presentedOver {
                parentOf[s] = over
            } else if let from = (presenterIndex[layout.screens[s].name] ?? []).lazy.compactMap(screen(of:)).first(where: { $0 != s }) {
                parentOf[s] = from
            }
        }
        var children: [Int: [Int]] = [:]
        for s in display.screens { if let p = parentOf[s] { children[p, default: []].append(s) } }
        var order: [(screen: Int, from: Int?)] = []
        var placed = Set<Int>()
        // Depth first, children in declaration order, without recursion (chains can be long).
        func place(_ root: Int, from: Int?) {
            guard !placed.contains(root) else { return }
            var stack: [(screen: Int, from: Int?)] = [(root, from)]
            while let (s, from) = stack.popLast() {
                guard placed.insert(s).inserted else { continue }
                order.append((s, from))
                for child in (children[s] ?? []).reversed() where !placed.contains(child) { stack.append((child, s)) }
            }
        }
        for s in display.screens where parentOf[s] == nil || !onDisplay.contains(parentOf[s]!) { place(s, from: nil) }
        for s in display.screens { place(s, from: parentOf[s]) }   // presentation cycles
        return order
    }

    func render() -> String {
        var body = ""
        var y = Self.margin + 28
        var width = 0.0
        var regionCount = 0
        var drawnTouches = 0
        for display in layout.displays {
            // Lines under the panels beyond the first (the regions named there).
            var extraLines = 0
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
                let by = (presenterIndex[screen.name] ?? []).map { layout.describe($0) }
                if !by.isEmpty { notes.append("presented by " + by.joined(separator: ", ")) }
                if notes.isEmpty { notes.append("shown when presented at run time (evroute ctl, a UI)") }
                if !screen.handlers.isEmpty { notes.append("handlers: " + handlerText(screen.handlers)) }
                let touches = (trails ?? []).filter { $0.display == display.name && $0.screen == screen.name }
                if trails != nil { notes.insert("\(touches.count) touch(es)", at: 0) }
                body += text("screen \(screen.name)", x: x, y: top - 24, size: 13, weight: "bold")
                if !notes.isEmpty { body += text(notes.joined(separator: "; "), x: x, y: top - 8, size: 10, fill: "#555", maxWidth: panelWidth) }
                if let from, let fromX = panelX[from] {
                    let x1 = fromX + panelWidth / 2, x2 = x + panelWidth / 2
                    body += "<path d=\"M \(fmt(x1)) \(fmt(top - 36)) Q \(fmt((x1 + x2) / 2)) \(fmt(top - 60)) \(fmt(x2 - 8)) \(fmt(top - 36))\" fill=\"none\" stroke=\"#36c\" stroke-width=\"1.5\" marker-end=\"url(#arrow)\"/>\n"
                }
                body += "<rect x=\"\(fmt(x))\" y=\"\(fmt(top))\" width=\"\(fmt(panelWidth))\" height=\"\(fmt(panelHeight))\" fill=\"#fafafa\" stroke=\"#222\" stroke-width=\"1.5\"/>\n"
                body += "<svg class=\"panel\" x=\"\(fmt(x))\" y=\"\(fmt(top))\" width=\"\(fmt(panelWidth))\" height=\"\(fmt(panelHeight))\" overflow=\"hidden\">\n"
                // Labels are placed in drawing order, each clear of the regions drawn over its
                // region (and, for an outline, of what shows through it and the labels before).
                // With a heatmap, the labels go over the touches (drawn after them), so a dot
                // never hides a region's name.
                var labels: [Rect] = []
                var unnamed: [Int] = []
                var labelsOverTouches = ""
                var tightLabels: [Rect] = []
                for r in screen.regions {
                    let (svg, placed, tight) = region(r, scale: scale, labels: labels)
                    tightLabels += tight
                    if touches.isEmpty { body += svg.shapes + svg.labels + "</g>\n" } else {
                        body += svg.shapes + "</g>\n"
                        if !svg.labels.isEmpty { labelsOverTouches += "<g class=\"labels\"\(isHiddenInTree(r) ? " opacity=\"0.6\"" : "")>\n" + svg.labels + "</g>\n" }
                    }
                    if placed.isEmpty { unnamed.append(r) }
                    labels += placed
                    regionCount += 1
                }
                // A small region (no children, no room for its name inside) is named beside it,
                // with a leader line from its edge, where that finds room in the panel.
                var leaders = ""
                unnamed.removeAll { r in
                    guard layout.regions[r].children.isEmpty, !isHiddenInTree(r),
                          let (svg, placed) = leaderLabel(r, scale: scale, avoiding: tightLabels, panel: Rect(x: 0, y: 0, width: panelWidth, height: panelHeight))
                    else { return false }
                    leaders += svg
                    tightLabels.append(placed)
                    return true
                }
                if touches.isEmpty { body += leaders } else { labelsOverTouches += leaders }
                if !touches.isEmpty { body += touchMarks(touches, scale: scale) + labelsOverTouches }
                drawnTouches += touches.count
                body += "</svg>\n"
                // Regions with no room for their name (a container filled by its children, a
                // region too small) are named under the panel: every region is named somewhere.
                // Whole names, wrapped to the panel's width (never squeezed nor cut).
                if !unnamed.isEmpty {
                    let lines = Self.wrap(["not labelled above (covered or too small):"] + unnamed.map { layout.regions[$0].name },
                                          width: panelWidth, size: 10)
                    for (k, line) in lines.enumerated() {
                        body += text(line, x: x, y: top + panelHeight + 14 + Double(k) * 13, size: 10, fill: "#555", className: "unlabelled")
                    }
                    extraLines = max(extraLines, lines.count - 1)
                }
                x += panelWidth + Self.gap
            }
            width = max(width, x - Self.gap + Self.margin)
            y = top + panelHeight + Self.margin + 16 + Double(extraLines) * 13
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
        // The fills say how deep a region lies: the screen's root, its children, theirs, ….
        body += text("fill = depth:", x: lx, y: y + 12, size: 11)
        lx += 76
        for (depth, colour) in Self.depthPalette.enumerated() {
            body += "<rect x=\"\(fmt(lx))\" y=\"\(fmt(y))\" width=\"16\" height=\"16\" fill=\"\(colour)\" stroke=\"#444\"/>\n"
            body += text(depth == Self.depthPalette.count - 1 ? "\(depth)+" : "\(depth)", x: lx + 8, y: y + 12, size: 9, anchor: "middle")
            lx += 20
        }
        lx += 18
        body += text("◆ focusable", x: lx, y: y + 12, size: 11, fill: "#1a5fb4")
        lx += 90
        body += text("→ presents", x: lx, y: y + 12, size: 11, fill: "#36c")
        width = max(width, lx + 90)
        y += 34
        if let trails {
            lx = Self.margin
            body += text("touch-downs", x: lx, y: y + 2, size: 11, weight: "bold")
            lx += 84
            // `forwarded` only when a touch was (layouts without a `forward` handler draw as before).
            let forwards = trails.contains { $0.outcome == .forwarded }
            for outcome in (forwards ? [TouchTrails.Outcome.forwarded] : []) + [.handled, .fellThrough, .unhandled, .blocked] {
                let label = Self.legend(of: outcome), colour = Self.colour(of: outcome)
                body += "<circle cx=\"\(fmt(lx + 6))\" cy=\"\(fmt(y - 2))\" r=\"5\" fill=\"\(outcome == .blocked ? "none" : colour)\" fill-opacity=\"0.45\" stroke=\"\(colour)\"/>\n"
                body += text(label, x: lx + 16, y: y + 2, size: 11)
                lx += 16 + Double(label.count) * 6.2 + 18
            }
            body += "<polyline points=\"\(fmt(lx)),\(fmt(y + 2)) \(fmt(lx + 14)),\(fmt(y - 6)) \(fmt(lx + 28)),\(fmt(y))\" fill=\"none\" stroke=\"#1a5fb4\" stroke-opacity=\"0.55\" stroke-width=\"1.5\"/>\n"
            body += text("its path", x: lx + 34, y: y + 2, size: 11)
            width = max(width, lx + 100)
            y += 18
            var counts = "\(trails.count) touch(es) from " + trailSources.joined(separator: ", ")
            if drawnTouches < trails.count { counts += "; \(trails.count - drawnTouches) with no screen, not drawn" }
            body += text(counts, x: Self.margin, y: y, size: 11, fill: "#333", maxWidth: max(width - 2 * Self.margin, 200))
            y += 18
        }
        for (name, handlers) in [("application", layout.applicationHandlers), ("fallback", layout.fallbackHandlers)] where !handlers.isEmpty {
            body += text("\(name): " + handlerText(handlers), x: Self.margin, y: y, size: 11)
            y += 16
        }
        // The rest of the layout: device rules (with their filters), each display's idle and
        // each gesture's parameters, one line each (the picture widens to the longest).
        var facts: [String] = layout.deviceRules.indices.map { i in
            "device rule \(layout.deviceRules[i].name): " + LayoutFacts.line(LayoutFacts.rule(i, of: layout))
        }
        for (d, display) in layout.displays.enumerated() {
            let idle = LayoutFacts.line([LayoutFacts.idle(display: d, of: layout)])
            if !idle.isEmpty { facts.append("display \(display.name): " + idle) }
        }
        for region in layout.regions {
            for g in region.gestures { facts.append("gesture \(g.name) on \(region.path): " + LayoutFacts.line(LayoutFacts.gesture(g))) }
        }
        for line in facts {
            body += text(line, x: Self.margin, y: y, size: 11, className: "fact")
            width = max(width, Self.margin * 2 + SVGLabelPlacer.width(of: line, size: 11, bold: false))
            y += 16
        }
        let height = y + Self.margin
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        out += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(fmt(width.rounded(.up)))\" height=\"\(fmt(height.rounded(.up)))\" "
        out += "viewBox=\"0 0 \(fmt(width.rounded(.up))) \(fmt(height.rounded(.up)))\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n"
        out += "<title>\(XMLText.escape("evroute layout \(source)"))</title>\n"
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

    /// A region's box in panel coordinates.
    func box(_ r: Int, scale: Double) -> Rect {
        let f = layout.regions[r].absoluteFrame
        return Rect(x: f.minX * scale, y: f.minY * scale, width: max(f.width * scale, 0), height: max(f.height * scale, 0))
    }

    /// The box a region's drawing covers: its box and, exclusive, half its thick border.
    func drawnBox(_ r: Int, scale: Double) -> Rect {
        let b = box(r, scale: scale)
        return layout.regions[r].exclusive ? b.inset(by: EdgeInsets(top: -1.5, left: -1.5, bottom: -1.5, right: -1.5)) : b
    }

    /// Whether `a` is `r` or one of its ancestors.
    func isAncestor(_ a: Int, of r: Int) -> Bool {
        var node: Int? = r
        while let n = node {
            if n == a { return true }
            node = layout.regions[n].parent
        }
        return false
    }

    /// Touches over a screen's panel (panel coordinates): each path as a line, then each
    /// touch-down as a translucent dot (overlapping dots darken: where touches gather), coloured
    /// by whether a handler took the touch; the dot's tooltip names the touch and its region.
    func touchMarks(_ trails: [TouchTrails.Trail], scale: Double) -> String {
        var paths = "", downs = ""
        for t in trails {
            let colour = Self.colour(of: t.outcome)
            func point(_ p: Point) -> String { "\(fmt(p.x * scale)),\(fmt(p.y * scale))" }
            if t.points.count > 1 {
                let end = t.points[t.points.count - 1]
                paths += "<polyline points=\"\(t.points.map(point).joined(separator: " "))\" fill=\"none\" stroke=\"\(colour)\" stroke-opacity=\"0.55\" stroke-width=\"1.5\" stroke-linejoin=\"round\"/>"
                paths += "<circle cx=\"\(fmt(end.x * scale))\" cy=\"\(fmt(end.y * scale))\" r=\"2\" fill=\"\(colour)\"/>\n"
            }
            let down = t.points[0]
            var tip = "touch \(t.id) at [\(fmt(down.x)), \(fmt(down.y))] in \(t.region ?? "no region")"
            tip += ", " + Self.legend(of: t.outcome)
            if t.cancelled { tip += ", cancelled" }
            downs += "<circle cx=\"\(fmt(down.x * scale))\" cy=\"\(fmt(down.y * scale))\" r=\"5\" fill=\"\(t.outcome == .blocked ? "none" : colour)\" fill-opacity=\"0.45\" stroke=\"\(colour)\">"
            downs += "<title>\(XMLText.escape(tip))</title></circle>\n"
        }
        return "<g class=\"touches\">\n" + paths + downs + "</g>\n"
    }

    /// A touch's colour: blue when its region (or an ancestor, or its screen) took it, orange
    /// when it fell through to the display, application or fallback, red when nothing took it,
    /// grey (an empty dot) when it was blocked, green when a `forward` handler took it.
    static func colour(of outcome: TouchTrails.Outcome) -> String {
        switch outcome {
        case .handled: "#1a5fb4"
        case .fellThrough: "#e66100"
        case .unhandled: "#c01c28"
        case .blocked: "#777"
        case .forwarded: "#26a269"
        }
    }

    static func legend(of outcome: TouchTrails.Outcome) -> String {
        switch outcome {
        case .handled: "taken in its screen"
        case .fellThrough: "fell through to display, application or fallback"
        case .unhandled: "taken by nothing"
        case .blocked: "blocked (exclusive, single touch)"
        case .forwarded: "forwarded to the compositor"
        }
    }

    /// Whether `r` or one of its ancestors is hidden (hit-testing skips the whole subtree).
    func isHiddenInTree(_ r: Int) -> Bool {
        var node: Int? = r
        while let n = node {
            if layout.regions[n].hidden { return true }
            node = layout.regions[n].parent
        }
        return false
    }

    /// One region: its shape at its display frame (panel coordinates), its style, and its
    /// label (name, handlers, flags), placed clear of the regions drawn over it and of `labels`
    /// (the boxes of the labels drawn before it, in panel coordinates). Returns the SVG and the
    /// boxes of the label's lines (none when the name found no room).
    /// A small region's name beside it (below, above, right or left, in that order: the first
    /// with room in the panel clear of `avoiding` and of the other regions with no children) and
    /// a leader line from the region's edge to it; nil when none has room.
    func leaderLabel(_ r: Int, scale: Double, avoiding: [Rect], panel: Rect) -> (svg: String, box: Rect)? {
        let node = layout.regions[r], f = drawnBox(r, scale: scale)
        let size = 9.0, name = node.name + (node.focusable ? " ◆" : "")
        let w = SVGLabelPlacer.width(of: name, size: size, bold: true) + 2 * SVGLabelPlacer.padding + 4, h = size + 4
        let leaves = layout.screens[node.screen].regions.filter { $0 != r && layout.regions[$0].children.isEmpty && !isHiddenInTree($0) }
        let obstacles = avoiding + leaves.map { drawnBox($0, scale: scale) }
        let cx = (f.minX + f.width / 2) - w / 2, cy = (f.minY + f.height / 2) - h / 2
        let candidates = [Rect(x: cx, y: f.maxY + 6, width: w, height: h), Rect(x: cx, y: f.minY - 6 - h, width: w, height: h),
                          Rect(x: f.maxX + 8, y: cy, width: w, height: h), Rect(x: f.minX - 8 - w, y: cy, width: w, height: h),
                          Rect(x: f.maxX - w, y: f.maxY + 6, width: w, height: h), Rect(x: f.minX, y: f.maxY + 6, width: w, height: h)]
        func inside(_ a: Rect) -> Bool { a.minX >= panel.minX && a.minY >= panel.minY && a.maxX <= panel.maxX && a.maxY <= panel.maxY }
        func overlaps(_ a: Rect, _ b: Rect) -> Bool { a.minX < b.maxX && b.minX < a.maxX && a.minY < b.maxY && b.minY < a.maxY }
        guard let spot = candidates.first(where: { c in inside(c) && !obstacles.contains { overlaps(c, $0) } }) else { return nil }
        // The leader: from the region's edge nearest the label to the label's nearest edge.
        let from = Point(x: min(max((spot.minX + spot.width / 2), f.minX), f.maxX), y: min(max((spot.minY + spot.height / 2), f.minY), f.maxY))
        let to = Point(x: min(max(from.x, spot.minX), spot.maxX), y: min(max(from.y, spot.minY), spot.maxY))
        var out = "<g class=\"leader\"><line x1=\"\(fmt(from.x))\" y1=\"\(fmt(from.y))\" x2=\"\(fmt(to.x))\" y2=\"\(fmt(to.y))\" stroke=\"#555\" stroke-width=\"1\"/>"
        out += "<rect x=\"\(fmt(spot.minX))\" y=\"\(fmt(spot.minY))\" width=\"\(fmt(spot.width))\" height=\"\(fmt(spot.height))\" fill=\"white\" fill-opacity=\"0.85\" stroke=\"#555\" stroke-width=\"0.5\"/>"
        out += text(name, x: (spot.minX + spot.width / 2), y: spot.minY + 1 + size * 0.8 + 1, size: size, weight: "bold", fill: node.focusable ? "#1a5fb4" : "#111",
                    anchor: "middle", newline: false)
        out += "</g>\n"
        return (out, spot)
    }

    /// A region's fill by its depth in its screen's tree (the root 0; the last for every deeper one).
    static let depthPalette = ["#eef2f7", "#dde8f5", "#d3ecd9", "#f6e9cf", "#ead9f2", "#f5d9dc"]

    /// `shapes` opens the region's group (its tooltip and shapes) and leaves it open: the caller
    /// closes it after `labels` (a tree) or before them (a heatmap, whose labels go over the touches).
    func region(_ r: Int, scale: Double, labels: [Rect]) -> (svg: (shapes: String, labels: String), labels: [Rect], tight: [Rect]) {
        let node = layout.regions[r]
        let screen = layout.screens[node.screen]
        let frame = box(r, scale: scale)
        let hidden = isHiddenInTree(r)
        let palette = Self.depthPalette
        // A hidden region is an outline only (it hides nothing drawn before it), a little inside
        // its frame so that it shows where it lies on its parent's edge, labelled at its bottom
        // so that the regions under it keep their labels.
        var style = hidden ? "fill=\"none\"" : "fill=\"\(palette[min(node.depth, palette.count - 1)])\""
        if node.opacity < 1 { style += " fill-opacity=\"\(fmt(max(node.opacity, 0.15)))\"" }
        style += node.exclusive ? " stroke=\"#c00\" stroke-width=\"3\"" : " stroke=\"#444\" stroke-width=\"1\""
        var lines = [SVGLabelPlacer.Line(text: node.name + (node.focusable ? " ◆" : ""), bold: true, fill: node.focusable ? "#1a5fb4" : "#111")]
        if !node.handlers.isEmpty { lines.append(.init(text: handlerText(node.handlers), bold: false, fill: "#333")) }
        var flags: [String] = []
        if node.hidden { flags.append("hidden") } else if hidden { flags.append("in a hidden region") }
        if !node.interactive { flags.append("not interactive") }
        if node.exclusive { flags.append("exclusive") }
        if !node.multitouch { flags.append("single touch") }
        if !node.gestures.isEmpty { flags.append("gestures: " + node.gestures.map(\.name).joined(separator: ", ")) }
        if !flags.isEmpty { lines.append(.init(text: flags.joined(separator: ", "), bold: false, fill: "#7a1f1f")) }
        // The tooltip has the whole label, whatever the picture had room for, and each gesture's parameters.
        var out = "<g\(hidden ? " opacity=\"0.6\"" : "")><title>"
        let gestures = node.gestures.map { "gesture \($0.name): " + LayoutFacts.line(LayoutFacts.gesture($0)) }
        out += XMLText.escape(([node.path] + lines.dropFirst().map(\.text) + gestures).joined(separator: "\n")) + "</title>\n"
        let outline = hidden && frame.width > 6 && frame.height > 6 ? frame.inset(by: EdgeInsets(top: 1.5, left: 1.5, bottom: 1.5, right: 1.5)) : frame
        out += shapeElement(node, in: outline, scale: scale, attributes: style + (hidden ? " stroke-dasharray=\"5 3\"" : ""))
        if !node.interactive {
            out += shapeElement(node, in: frame, scale: scale, attributes: "fill=\"url(#hatch)\" fill-opacity=\"0.8\" stroke=\"none\"")
        }
        // What the label must keep clear of: the regions drawn over this one; for an outline,
        // also the regions that show through it (but its ancestors) and the labels before it.
        var obstacles = screen.regions.filter { $0 > r && !isHiddenInTree($0) }.map { drawnBox($0, scale: scale) }
        if hidden {
            obstacles += screen.regions.filter { $0 < r && !isAncestor($0, of: r) }.map { drawnBox($0, scale: scale) } + labels
        }
        let (area, centred) = labelArea(node, frame: frame, scale: scale)
        let size = max(7, min(12, area.height / 3.2, area.width / 5))
        let placed = SVGLabelPlacer(box: area, avoiding: obstacles).place(lines, size: size, bottomFirst: hidden)
        var labelSVG = ""
        for line in placed {
            // Each line clipped to the room it has.
            labelSVG += "<svg class=\"label\" x=\"\(fmt(line.box.minX))\" y=\"\(fmt(line.box.minY))\" width=\"\(fmt(line.box.width))\" height=\"\(fmt(line.box.height))\" overflow=\"hidden\">"
            labelSVG += text(line.text, x: centred ? line.box.width / 2 : 0, y: line.baseline, size: line.size, weight: line.bold ? "bold" : "normal",
                             fill: line.fill, anchor: centred ? "middle" : nil, newline: false)
            labelSVG += "</svg>\n"
        }
        // The text's own extent (the boxes are the room each line had), for the leader labels.
        let tight = placed.map { line in
            let w = min(line.box.width, SVGLabelPlacer.width(of: line.text, size: line.size, bold: line.bold) + SVGLabelPlacer.padding)
            return Rect(x: centred ? line.box.minX + (line.box.width - w) / 2 : line.box.minX, y: line.box.minY, width: w, height: line.box.height)
        }
        return ((out, labelSVG), placed.map(\.box), tight)
    }

    /// Where a region's label may go (panel coordinates), and whether it is centred: the frame;
    /// within the corners of a rounded rectangle; an ellipse's or a polygon's middle, centred,
    /// where a left-aligned label would stand outside the shape.
    func labelArea(_ node: RegionNode, frame: Rect, scale: Double) -> (area: Rect, centred: Bool) {
        let w = frame.width, h = frame.height
        switch node.shape {
        case .rectangle:
            return (frame, false)
        case .roundedRectangle(let radius):
            let inset = min(radius * scale, w / 2, h / 2) * 0.4
            return (frame.inset(by: EdgeInsets(top: 0, left: inset, bottom: 0, right: inset)), false)
        case .ellipse:
            return (frame.inset(by: EdgeInsets(top: h * 0.2, left: w * 0.1, bottom: h * 0.1, right: w * 0.1)), true)
        case .polygon:
            return (frame.inset(by: EdgeInsets(top: h * 0.3, left: w * 0.1, bottom: h * 0.1, right: w * 0.1)), true)
        }
    }

    /// The region's shape drawn in `frame` (panel coordinates).
    func shapeElement(_ node: RegionNode, in frame: Rect, scale: Double, attributes: String) -> String {
        let x = frame.minX, y = frame.minY, w = frame.width, h = frame.height
        switch node.shape {
        case .rectangle:
            return "<rect x=\"\(fmt(x))\" y=\"\(fmt(y))\" width=\"\(fmt(w))\" height=\"\(fmt(h))\" \(attributes)/>\n"
        case .roundedRectangle(let radius):
            return "<rect x=\"\(fmt(x))\" y=\"\(fmt(y))\" width=\"\(fmt(w))\" height=\"\(fmt(h))\" rx=\"\(fmt(radius * scale))\" \(attributes)/>\n"
        case .ellipse:
            return "<ellipse cx=\"\(fmt(x + w / 2))\" cy=\"\(fmt(y + h / 2))\" rx=\"\(fmt(w / 2))\" ry=\"\(fmt(h / 2))\" \(attributes)/>\n"
        case .polygon(let vertices):
            // Vertices are in the region's coordinates; an outline inset keeps the frame's origin.
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

    /// Words (`first`, then items joined by ", ") in lines no wider than `width` at font `size`
    /// (estimated as labels are); an item longer than a line has a line of its own.
    static func wrap(_ items: [String], width: Double, size: Double) -> [String] {
        var lines: [String] = []
        var line = ""
        for (i, item) in items.enumerated() {
            let piece = i == 0 ? item : item + (i < items.count - 1 ? "," : "")
            let candidate = line.isEmpty ? piece : line + " " + piece
            if !line.isEmpty && SVGLabelPlacer.width(of: candidate, size: size, bold: false) > width {
                lines.append(line)
                line = piece
            } else {
                line = candidate
            }
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }

    func text(_ content: String, x: Double, y: Double, size: Double, weight: String = "normal", fill: String = "#111",
              maxWidth: Double? = nil, anchor: String? = nil, newline: Bool = true, className: String? = nil) -> String {
        var attributes = "x=\"\(fmt(x))\" y=\"\(fmt(y))\" font-size=\"\(fmt(size))\" fill=\"\(fill)\""
        if let className { attributes = "class=\"\(className)\" " + attributes }
        if let anchor { attributes += " text-anchor=\"\(anchor)\"" }
        if weight != "normal" { attributes += " font-weight=\"\(weight)\"" }
        // Shrink a long line to the width it has rather than let it run into the next panel.
        if let maxWidth, Double(content.count) * size * 0.55 > maxWidth {
            attributes += " textLength=\"\(fmt(maxWidth))\" lengthAdjust=\"spacingAndGlyphs\""
        }
        return "<text \(attributes)>\(XMLText.escape(content))</text>" + (newline ? "\n" : "")
    }

    func fmt(_ v: Double) -> String {
        // Two decimals at most: the picture's precision, and short files.
        JSONText.number((v * 100).rounded() / 100, style: .shortest)
    }
}
