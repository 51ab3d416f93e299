import EvrouteCore

extension SpecReader {
    /// Keys that only some kinds of gesture take.
    static var gestureKindKeys: [(key: String, kinds: [GestureSpec.Kind])] { GestureSpec.kindKeys }

    /// What other toolkits (UIKit, Android, Hammer.js, libinput) call a gesture key, for the
    /// did-you-mean of an unknown key (after camelCase and snake_case are respelt in kebab-case:
    /// UIKit's `numberOfTouchesRequired` is `number-of-touches-required` here).
    static let gestureKeySynonyms: [String: String] = [
        "fingers": "touches", "finger-count": "touches", "fingers-required": "touches", "pointers": "touches",
        "number-of-touches": "touches", "number-of-touches-required": "touches", "touches-required": "touches",
        "minimum-number-of-touches": "touches", "minimum-touches": "touches", "min-touches": "touches",
        "minimum-fingers": "touches", "min-fingers": "touches", "touch-count": "touches",
        "maximum-fingers": "maximum-touches", "max-fingers": "maximum-touches", "max-touches": "maximum-touches",
        "maximum-number-of-touches": "maximum-touches",
        "number-of-taps": "taps", "number-of-taps-required": "taps", "taps-required": "taps", "tap-count": "taps",
        "count": "taps", "clicks": "taps",
        "duration": "minimum-duration", "min-duration": "minimum-duration", "press-duration": "minimum-duration",
        "minimum-press-duration": "minimum-duration", "hold": "minimum-duration", "hold-time": "minimum-duration",
        "time": "minimum-duration", "delay": "minimum-duration",
        "max-duration": "maximum-duration", "timeout": "maximum-duration",
        "distance": "minimum-distance", "min-distance": "minimum-distance", "threshold": "minimum-distance",
        "movement": "allowable-movement", "tolerance": "allowable-movement", "slop": "allowable-movement",
        "allowable-distance": "allowable-movement", "max-movement": "allowable-movement",
        "maximum-movement": "allowable-movement",
        "directions": "direction", "side": "edges", "sides": "edges",
        "cancels-touches-in-view": "cancels-touches",
        "requires-failure-of": "require-to-fail", "require-failure-of": "require-to-fail",
        "simultaneous": "simultaneous-with", "recognize-simultaneously-with": "simultaneous-with",
        "send-action": "action", "sends": "action",
    ]

    func gesture(_ node: YAMLNode) -> GestureSpec? {
        let known = LayoutSchema.gesture.keyNames
        guard let f = fields(node, "gesture", known: known, synonyms: Self.gestureKeySynonyms) else { return nil }
        let nameNode = required(f, "name")
        let name = nameNode.flatMap { self.name($0, "'name'") }
        let kinds = GestureSpec.Kind.allCases
        let kind = required(f, "type", hint: "one of: \(kinds.map(\.rawValue).joined(separator: ", "))")
            .flatMap { choice($0, "gesture type", kinds.map { ($0.rawValue, $0) }) }
        var g = GestureSpec(name: name ?? "", kind: kind ?? .tap, location: location(nameNode))

        // Keys that do not apply to this kind are mistakes, not silently ignored.
        if let kind {
            for (key, forKinds) in Self.gestureKindKeys where f.has(key) && !forKinds.contains(kind) {
                error(f.keyNode(key), .invalidValue,
                      "'\(key)' does not apply to a \(kind.rawValue) gesture (it applies to: \(forKinds.map(\.rawValue).joined(separator: ", ")))")
            }
        }
        if let v = f["taps"], let n = integer(v, "'taps'") {
            let range = LayoutSchema.gesture["taps"]!.integerRange!
            if range.contains(n) { g.taps = n }
            else { error(v, .invalidValue, "'taps' must be between \(range.lowerBound) and \(range.upperBound), found \(render(v))") }
        }
        let most = LayoutLimits.maximumGestureTouches
        if let v = f["touches"], let n = integer(v, "'touches'") {
            if LayoutSchema.gesture["touches"]!.integerRange!.contains(n) { g.touches = n }
            else { error(v, .invalidValue, "'touches' must be between 1 and \(most), found \(render(v))") }
        }
        if let v = f["maximum-touches"], let n = integer(v, "'maximum-touches'") {
            if n >= g.touches && n >= 1 && n <= most { g.maximumTouches = n }
            else { error(v, .invalidValue, "'maximum-touches' must be between 'touches' (\(g.touches)) and \(most), found \(render(v))") }
        }
        if let v = f["minimum-duration"], let d = duration(v, "'minimum-duration'") { g.minimumDuration = d }
        if let v = f["maximum-duration"], let d = duration(v, "'maximum-duration'") { g.maximumDuration = d }
        if let v = f["allowable-movement"], let d = bounded(v, "'allowable-movement'", LayoutSchema.gesture["allowable-movement"]!.numberRange!) { g.allowableMovement = d }
        if let v = f["minimum-distance"], let d = bounded(v, "'minimum-distance'", LayoutSchema.gesture["minimum-distance"]!.numberRange!) { g.minimumDistance = d }
        if let v = f["direction"], let dirs = choices(v, "swipe direction", GestureSpec.Direction.allCases) {
            g.directions = dirs
        }
        if f.has("edges") && f.has("edge") {
            error(f.keyNode("edge"), .invalidValue, "give 'edges' or 'edge', not both")
        }
        if let v = f["edges"] ?? f["edge"], let edges = choices(v, "screen edge", GestureSpec.Edge.allCases) {
            g.edges = edges
        }
        if kind == .screenEdgePan && g.edges.isEmpty && !f.has("edges") && !f.has("edge") {
            error(f.node, .missingKey, "\(f.label) is missing required key 'edges' (one or more of: left, right, top, bottom)")
        }
        if let v = f["cancels-touches"], let b = bool(v, "'cancels-touches'") { g.cancelsTouches = b }
        if let v = f["delays-touches-began"], let b = bool(v, "'delays-touches-began'") { g.delaysTouchesBegan = b }
        if let v = f["delays-touches-ended"], let b = bool(v, "'delays-touches-ended'") { g.delaysTouchesEnded = b }
        if let v = f["require-to-fail"], let names = strings(v, "'require-to-fail'") { g.requireToFail = names }
        if let v = f["simultaneous-with"], let names = strings(v, "'simultaneous-with'") { g.simultaneousWith = names }
        if let v = f["action"], let a = self.name(v, "'action'") { g.action = a }
        guard name != nil, kind != nil else { return nil }
        return g
    }

    /// A gesture duration: seconds > 0 and ≤ ``LayoutLimits/gestureDuration``.
    func duration(_ node: YAMLNode, _ what: String) -> Double? {
        guard let d = number(node, what) else { return nil }
        if d > 0 && d <= LayoutLimits.gestureDuration { return d }
        error(node, .invalidValue, "\(what) must be > 0 and ≤ \(LayoutLimits.text(LayoutLimits.gestureDuration)) seconds, found \(render(node))")
        return nil
    }

    /// One or a list of values of a string enum, at least one.
    func choices<T: RawRepresentable<String>>(_ node: YAMLNode, _ what: String, _ all: [T]) -> [T]? {
        let nodes = oneOrMany(node)
        if nodes.isEmpty {
            error(node, .invalidValue, "give at least one \(what) (\(all.map(\.rawValue).joined(separator: ", ")))")
            return nil
        }
        var out: [T] = []
        for item in nodes {
            guard let v = choice(item, what, all.map { ($0.rawValue, $0) }) else { return nil }
            out.append(v)
        }
        return out
    }
}
