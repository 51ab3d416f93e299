import EvrouteCore
import EvrouteInput
import EvrouteJSON

/// `evroute tree --format json`: the whole compiled layout as one JSON document — displays, their
/// screens (which is active at start, which is presented over which), every region with its
/// frame (as written, in the parent's coordinates) and display frame, flags, shape, handlers,
/// responder chain and children — for tools and UIs that draw or check a layout.
struct TreeJSON {
    let layout: Layout
    let lengths: ResponderChainLengths
    /// Who presents each screen (by name), found once.
    let presenters: [String: [ResponderID]]

    init(layout: Layout) {
        self.layout = layout
        lengths = ResponderChainLengths(layout)
        presenters = layout.presenterIndex()
    }

    func render() -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("devices", .array(layout.deviceRules.enumerated().map { i, rule in
                LayoutFacts.json(name: rule.name, LayoutFacts.rule(i, of: layout))
            })),
            ("displays", .array(layout.displays.enumerated().map { d, display in
                let idle = LayoutFacts.idle(display: d, of: layout)
                return .object([
                    ("name", .string(display.name)),
                    ("size", size(display.size)),
                    (idle.jsonKey, idle.jsonValue),
                    ("active_screen", .string(display.initialScreen.map { layout.screens[$0].name })),
                    ("screens", .array(display.screens.map(screen))),
                ])
            })),
            ("application", handlers(layout.applicationHandlers)),
            ("fallback", handlers(layout.fallbackHandlers)),
        ]
        // The accelerometers' handlers (not a chain), when the layout has any.
        if !layout.motionHandlers.isEmpty { members.append(("motion", handlers(layout.motionHandlers))) }
        return .object(members)
    }

    func screen(_ s: Int) -> JSONValue {
        let node = layout.screens[s]
        return .object([
            ("name", .string(node.name)),
            ("presented_over", .string(node.presentedOver.map { layout.screens[$0].name })),
            ("presented_by", .array((presenters[node.name] ?? []).map { .string(layout.describe($0)) })),
            ("handlers", handlers(node.handlers)),
        ] + chain(.screen(s)) + [
            ("root", region(node.root)),
        ])
    }

    func region(_ r: Int) -> JSONValue {
        let node = layout.regions[r]
        var members: [(String, JSONValue)] = [
            ("name", .string(node.name)),
            ("path", .string(node.path)),
            ("frame", rect(node.frame)),
            ("display_frame", rect(node.absoluteFrame)),
            ("hidden", .bool(node.hidden)),
            ("interactive", .bool(node.interactive)),
            ("opacity", .number(node.opacity)),
            ("exclusive", .bool(node.exclusive)),
            ("multitouch", .bool(node.multitouch)),
            ("focusable", .bool(node.focusable)),
            ("hittable", .bool(node.isHittable)),
            ("shape", shape(node.shape)),
        ]
        if !node.hitInsets.isZero {
            let i = node.hitInsets
            members.append(("hit_insets", .array([i.top, i.left, i.bottom, i.right].map { .number($0) })))
        }
        if let next = node.next { members.append(("next", .string(layout.describe(next)))) }
        if !node.gestures.isEmpty {
            members.append(("gestures", .array(node.gestures.map { LayoutFacts.json(name: $0.name, LayoutFacts.gesture($0)) })))
        }
        members.append(("handlers", handlers(node.handlers)))
        members += chain(.region(r))
        members.append(("children", .array(node.children.map(region))))
        return .object(members)
    }

    /// `chain`: the responders after `responder`, as the trace names them — at most
    /// ``TreePrinter/chainShown``; then `chain_omitted`: how many more there are (only when some are).
    func chain(_ responder: ResponderID) -> [(String, JSONValue)] {
        let (head, omitted) = layout.responderChain(from: responder, limit: TreePrinter.chainShown + 1, lengths: lengths)
        let chain: (String, JSONValue) = ("chain", .array(head.dropFirst().map { .string(layout.describe($0)) }))
        return omitted > 0 ? [chain, ("chain_omitted", .int(omitted))] : [chain]
    }

    func handlers(_ indices: [Int]) -> JSONValue {
        .array(indices.map { h in
            let b = layout.handlers[h]
            var members: [(String, JSONValue)] = [
                ("plugin", .string(b.plugin)),
                ("type", .string(b.pluginType.rawValue)),
                ("on", .array(b.filters.map { .string($0.description) })),
            ]
            if let devices = b.devices { members.append(("devices", .array(devices.map { .string($0) }))) }
            if !b.options.isEmpty {
                members.append(("options", .object(b.options.sorted { $0.key < $1.key }.map { ($0.key, Self.json($0.value)) })))
            }
            return .object(members)
        })
    }

    func shape(_ shape: Shape) -> JSONValue {
        switch shape {
        case .rectangle: .string("rectangle")
        case .ellipse: .string("ellipse")
        case .roundedRectangle(let radius): .object([("rounded", .number(radius))])
        case .polygon(let vertices): .object([("polygon", .array(vertices.map { .array([.number($0.x), .number($0.y)]) }))])
        }
    }

    func rect(_ r: Rect) -> JSONValue { .array([r.minX, r.minY, r.width, r.height].map { .number($0) }) }
    func size(_ s: Size) -> JSONValue { .array([.number(s.width), .number(s.height)]) }

    /// A config value (a handler's option) as JSON; mappings with their keys sorted.
    static func json(_ value: ConfigValue) -> JSONValue {
        switch value {
        case .string(let s): .string(s)
        case .number(let n): .number(n)
        case .bool(let b): .bool(b)
        case .null: .null
        case .list(let l): .array(l.map(json))
        case .map(let m): .object(m.sorted { $0.key < $1.key }.map { ($0.key, json($0.value)) })
        }
    }
}
