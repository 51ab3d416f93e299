import EvrouteCore
import EvrouteInput
import EvrouteJSON

/// Renders a layout as an indented tree.
struct TreePrinter {
    let layout: Layout
    /// Each chain is printed up to this many responders, then `… (N more)`: a chain can be as
    /// long as the layout, and printing every one in full is quadratic (thousands of screens presented
    /// over one another made hundreds of megabytes of text).
    static let chainShown = 64
    let lengths: ResponderChainLengths

    init(layout: Layout) {
        self.layout = layout
        lengths = ResponderChainLengths(layout)
    }

    func render() -> String {
        var out = ""
        for (i, rule) in layout.deviceRules.enumerated() {
            out += "device rule \(rule.name): \(LayoutFacts.line(LayoutFacts.rule(i, of: layout)))\n"
        }
        for (d, display) in layout.displays.enumerated() {
            let idle = LayoutFacts.line([LayoutFacts.idle(display: d, of: layout)])
            out += "display \(display.name) \(fmt(display.size.width))×\(fmt(display.size.height))" + (idle.isEmpty ? "" : ": \(idle)") + "\n"
            for s in display.screens {
                let screen = layout.screens[s]
                var notes: [String] = []
                if display.initialScreen == s { notes.append("active at start") }
                if let over = screen.presentedOver { notes.append("presented over \(layout.screens[over].name)") }
                out += "  screen \(screen.name)" + (notes.isEmpty ? "" : " (\(notes.joined(separator: ", ")))") + handlerText(screen.handlers) + "\n"
                region(screen.root, prefix: "    ", last: true, isRoot: true, into: &out)
            }
        }
        if !layout.applicationHandlers.isEmpty { out += "application\(handlerText(layout.applicationHandlers))\n" }
        if !layout.fallbackHandlers.isEmpty { out += "fallback\(handlerText(layout.fallbackHandlers))\n" }
        if !layout.motionHandlers.isEmpty { out += "motion (accelerometers, not a chain)\(handlerText(layout.motionHandlers))\n" }
        return out
    }

    func region(_ r: Int, prefix: String, last: Bool, isRoot: Bool, into out: inout String) {
        let node = layout.regions[r]
        let branch = isRoot ? "" : (last ? "└─ " : "├─ ")
        var flags: [String] = []
        if node.hidden { flags.append("hidden") }
        if !node.interactive { flags.append("not interactive") }
        if node.opacity < 1 { flags.append("opacity \(node.opacity)") }
        if node.exclusive { flags.append("exclusive") }
        if !node.multitouch { flags.append("single touch") }
        if node.focusable { flags.append("focusable") }
        switch node.shape {
        case .rectangle: break
        case .ellipse: flags.append("ellipse")
        case .roundedRectangle(let radius): flags.append("rounded \(fmt(radius))")
        case .polygon(let v): flags.append("polygon of \(v.count)")
        }
        if !node.hitInsets.isZero {
            let i = node.hitInsets
            flags.append("hit insets [\(fmt(i.top)), \(fmt(i.left)), \(fmt(i.bottom)), \(fmt(i.right))]")
        }
        if let next = node.next { flags.append("next \(layout.describe(next))") }

        out += prefix + branch + node.name + " " + node.frame.description
        if !flags.isEmpty { out += "  {" + flags.joined(separator: ", ") + "}" }
        out += handlerText(node.handlers) + "\n"
        let childPrefix = prefix + (isRoot ? "" : (last ? "   " : "│  "))
        let (head, omitted) = layout.responderChain(from: .region(r), limit: Self.chainShown + 1, lengths: lengths)
        let chain = head.dropFirst().map { layout.describe($0) } + (omitted > 0 ? ["… (\(omitted) more)"] : [])
        out += childPrefix + (node.children.isEmpty ? "   " : "│  ") + "chain: → " + chain.joined(separator: " → ") + "\n"
        for g in node.gestures {
            out += childPrefix + (node.children.isEmpty ? "   " : "│  ") + "gesture \(g.name): \(LayoutFacts.line(LayoutFacts.gesture(g)))\n"
        }
        for (i, c) in node.children.enumerated() {
            region(c, prefix: childPrefix, last: i == node.children.count - 1, isRoot: false, into: &out)
        }
    }

    func handlerText(_ handlers: [Int]) -> String {
        guard !handlers.isEmpty else { return "" }
        return "  handlers: " + handlers.map { h in
            let b = layout.handlers[h]
            return "\(b.plugin) on \(b.filters.map(\.description).joined(separator: ","))"
                + (b.devices.map { " from devices \($0.joined(separator: ","))" } ?? "")
        }.joined(separator: "; ")
    }

    func fmt(_ v: Double) -> String { JSONText.number(v, style: .shortest) }
}
