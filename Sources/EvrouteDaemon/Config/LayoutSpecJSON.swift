import EvrouteCore

/// A ``LayoutSpec`` as one JSON document and back, without Foundation: how the config child
/// (`evroute __compile-config`, which parses the YAML with Foundation-based Yams) hands the
/// daemon its layout. Every field travels, source locations included, so the daemon's own
/// ``Layout/compile(_:)`` and its messages (`file:line:col`) are exactly what the YAML loader
/// would have given.
///
/// The format is private to one binary (the child is `/proc/self/exe`), so it is not
/// versioned. Shapes of note:
/// - a source location is `[file, line, column]`;
/// - a number that JSON cannot carry exactly (±infinity, NaN, -0) is a string (`"inf"`);
/// - a plugin or handler option (``ConfigValue``) is its natural JSON value, except a map,
///   which is `{"map": {…}}`, and such a number, which is `{"number": "inf"}`;
/// - a screen's regions are one flat pre-order list, each region with its number of
///   `children`, so a deep region tree never nests the JSON deeply.
public enum LayoutSpecJSON {
    /// A document that is not a layout spec (a bug, or a child that printed something else).
    public struct DecodingError: Error, Sendable, CustomStringConvertible {
        public var path: String
        public var message: String
        public var description: String { "compiled config: \(path): \(message)" }
    }

    // MARK: Encoding

    /// The spec as a JSON value (object keys in a fixed order; dictionaries sorted by key).
    public static func encode(_ spec: LayoutSpec) -> JSONValue {
        .object([
            ("source", .string(spec.source)),
            ("displays", .array(spec.displays.map(display))),
            ("devices", .array(spec.devices.map(deviceRule))),
            ("plugins", .array(spec.plugins.map(plugin))),
            ("screens", .array(spec.screens.map(screen))),
            ("application", .array(spec.applicationHandlers.map(handler))),
            ("fallback", .array(spec.fallbackHandlers.map(handler))),
        ])
    }

    /// The spec as one line of JSON text.
    public static func serialize(_ spec: LayoutSpec) -> String { encode(spec).serialized }

    static func number(_ d: Double) -> JSONValue {
        if d.isFinite && !(d == 0 && d.sign == .minus) { return .number(d) }
        if d.isNaN { return .string("nan") }
        if d == 0 { return .string("-0") }
        return .string(d < 0 ? "-inf" : "inf")
    }

    static func location(_ l: SourceLocation?) -> JSONValue {
        guard let l else { return .null }
        return .array([.string(l.file), .int(l.line), .int(l.column)])
    }

    static func strings(_ s: [String]) -> JSONValue { .array(s.map { .string($0) }) }

    static func display(_ d: DisplaySpec) -> JSONValue {
        .object([
            ("name", .string(d.name)),
            ("size", .array([number(d.size.width), number(d.size.height)])),
            ("initial_screen", .string(d.initialScreen)),
            ("location", location(d.location)),
            ("initial_screen_location", location(d.initialScreenLocation)),
        ])
    }

    static func deviceRule(_ r: DeviceRuleSpec) -> JSONValue {
        let m = r.match
        let match: JSONValue = .object([
            ("kind", .string(m.kind?.rawValue)),
            ("name", .string(m.name)),
            ("vendor", m.vendor.map { .int($0) } ?? .null),
            ("product", m.product.map { .int($0) } ?? .null),
            ("udev", .object(m.udev.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })),
        ])
        return .object([
            ("name", .string(r.name)),
            ("match", match),
            ("display", .string(r.display)),
            ("rotate", .int(r.rotate)),
            ("calibration", r.calibration.map { .array($0.map(number)) } ?? .null),
            ("grab", .bool(r.grab)),
            ("location", location(r.location)),
            ("display_location", location(r.displayLocation)),
        ])
    }

    static func options(_ o: [String: ConfigValue]) -> JSONValue {
        .object(o.sorted { $0.key < $1.key }.map { ($0.key, configValue($0.value)) })
    }

    static func configValue(_ v: ConfigValue) -> JSONValue {
        switch v {
        case .string(let s): .string(s)
        case .number(let d):
            if case .number = number(d) { .number(d) } else { .object([("number", number(d))]) }
        case .bool(let b): .bool(b)
        case .list(let l): .array(l.map(configValue))
        case .map(let m): .object([("map", options(m))])
        case .null: .null
        }
    }

    static func plugin(_ p: PluginSpec) -> JSONValue {
        .object([
            ("name", .string(p.name)),
            ("type", .string(p.type)),
            ("options", options(p.options)),
            ("location", location(p.location)),
        ])
    }

    static func handler(_ h: HandlerSpec) -> JSONValue {
        .object([
            ("plugin", .string(h.plugin)),
            ("on", .array(h.on.map { .string($0.description) })),
            ("options", options(h.options)),
            ("location", location(h.location)),
        ])
    }

    static func screen(_ s: ScreenSpec) -> JSONValue {
        var regions: [JSONValue] = []
        appendRegion(s.root, to: &regions)
        return .object([
            ("name", .string(s.name)),
            ("display", .string(s.display)),
            ("handlers", .array(s.handlers.map(handler))),
            ("regions", .array(regions)),
            ("presented_over", .string(s.presentedOver)),
            ("location", location(s.location)),
            ("display_location", location(s.displayLocation)),
            ("presented_over_location", location(s.presentedOverLocation)),
        ])
    }

    /// The region, then its children's subtrees (pre-order).
    static func appendRegion(_ r: RegionSpec, to out: inout [JSONValue]) {
        let f = r.frame, i = r.hitInsets
        out.append(.object([
            ("name", .string(r.name)),
            ("frame", .array([number(f.origin.x), number(f.origin.y), number(f.size.width), number(f.size.height)])),
            ("children", .int(r.regions.count)),
            ("handlers", .array(r.handlers.map(handler))),
            ("hidden", .bool(r.hidden)),
            ("interactive", .bool(r.interactive)),
            ("opacity", number(r.opacity)),
            ("shape", shape(r.shape)),
            ("hit_insets", .array([number(i.top), number(i.left), number(i.bottom), number(i.right)])),
            ("exclusive", .bool(r.exclusive)),
            ("multitouch", .bool(r.multitouch)),
            ("focusable", .bool(r.focusable)),
            ("next", .string(r.next)),
            ("gestures", .array(r.gestures.map(gesture))),
            ("location", location(r.location)),
            ("name_location", location(r.nameLocation)),
            ("next_location", location(r.nextLocation)),
        ]))
        for child in r.regions { appendRegion(child, to: &out) }
    }

    static func shape(_ s: Shape) -> JSONValue {
        switch s {
        case .rectangle: .string("rectangle")
        case .ellipse: .string("ellipse")
        case .roundedRectangle(let radius): .object([("rounded_rectangle", number(radius))])
        case .polygon(let points): .object([("polygon", .array(points.map { .array([number($0.x), number($0.y)]) }))])
        }
    }

    static func gesture(_ g: GestureSpec) -> JSONValue {
        .object([
            ("name", .string(g.name)),
            ("kind", .string(g.kind.rawValue)),
            ("taps", .int(g.taps)),
            ("touches", .int(g.touches)),
            ("maximum_touches", g.maximumTouches.map { .int($0) } ?? .null),
            ("minimum_duration", number(g.minimumDuration)),
            ("allowable_movement", number(g.allowableMovement)),
            ("directions", strings(g.directions.map(\.rawValue))),
            ("minimum_distance", number(g.minimumDistance)),
            ("maximum_duration", number(g.maximumDuration)),
            ("edges", strings(g.edges.map(\.rawValue))),
            ("cancels_touches", .bool(g.cancelsTouches)),
            ("delays_touches_began", .bool(g.delaysTouchesBegan)),
            ("delays_touches_ended", .bool(g.delaysTouchesEnded)),
            ("require_to_fail", strings(g.requireToFail)),
            ("simultaneous_with", strings(g.simultaneousWith)),
            ("action", .string(g.action)),
            ("location", location(g.location)),
        ])
    }

    // MARK: Decoding

    /// Parses and decodes a document written by ``serialize(_:)``.
    public static func parse(_ text: String) throws(DecodingError) -> LayoutSpec {
        let value: JSONValue
        do { value = try JSONValue.parse(text) } catch { throw DecodingError(path: "$", message: error.description) }
        return try decode(value)
    }

    /// Decodes a value written by ``encode(_:)``.
    public static func decode(_ value: JSONValue) throws(DecodingError) -> LayoutSpec {
        let o = try Reader(value, "$")
        var spec = LayoutSpec(source: try o.optionalString("source"))
        spec.displays = try o.objects("displays").map { (d) throws(DecodingError) in try display(d) }
        spec.devices = try o.objects("devices").map { (d) throws(DecodingError) in try deviceRule(d) }
        spec.plugins = try o.objects("plugins").map { (p) throws(DecodingError) in try plugin(p) }
        spec.screens = try o.objects("screens").map { (s) throws(DecodingError) in try screen(s) }
        spec.applicationHandlers = try o.objects("application").map { (h) throws(DecodingError) in try handler(h) }
        spec.fallbackHandlers = try o.objects("fallback").map { (h) throws(DecodingError) in try handler(h) }
        return spec
    }

    /// One JSON object being decoded, with its path for messages.
    struct Reader {
        let members: [(String, JSONValue)]
        let path: String

        init(_ value: JSONValue, _ path: String) throws(DecodingError) {
            guard case .object(let m) = value else { throw DecodingError(path: path, message: "expected an object") }
            members = m
            self.path = path
        }

        func fail(_ key: String, _ message: String) -> DecodingError { DecodingError(path: path + "." + key, message: message) }

        /// The member (nil when absent).
        func value(_ key: String) -> JSONValue? {
            for (k, v) in members where k == key { return v }
            return nil
        }

        func required(_ key: String) throws(DecodingError) -> JSONValue {
            guard let v = value(key) else { throw fail(key, "missing") }
            return v
        }

        func string(_ key: String) throws(DecodingError) -> String {
            guard let s = try required(key).stringValue else { throw fail(key, "expected a string") }
            return s
        }

        func optionalString(_ key: String) throws(DecodingError) -> String? {
            guard let v = value(key), v != .null else { return nil }
            guard let s = v.stringValue else { throw fail(key, "expected a string or null") }
            return s
        }

        func int(_ key: String) throws(DecodingError) -> Int {
            guard let i = try required(key).intValue else { throw fail(key, "expected an integer") }
            return i
        }

        func optionalInt(_ key: String) throws(DecodingError) -> Int? {
            guard let v = value(key), v != .null else { return nil }
            guard let i = v.intValue else { throw fail(key, "expected an integer or null") }
            return i
        }

        func double(_ key: String) throws(DecodingError) -> Double {
            try LayoutSpecJSON.double(try required(key), path: path + "." + key)
        }

        func bool(_ key: String) throws(DecodingError) -> Bool {
            guard let b = try required(key).boolValue else { throw fail(key, "expected true or false") }
            return b
        }

        func array(_ key: String) throws(DecodingError) -> [JSONValue] {
            guard let a = try required(key).arrayValue else { throw fail(key, "expected an array") }
            return a
        }

        func strings(_ key: String) throws(DecodingError) -> [String] {
            var out: [String] = []
            for v in try array(key) {
                guard let s = v.stringValue else { throw fail(key, "expected an array of strings") }
                out.append(s)
            }
            return out
        }

        func doubles(_ key: String, count: Int? = nil) throws(DecodingError) -> [Double] {
            let a = try array(key)
            if let count, a.count != count { throw fail(key, "expected \(count) numbers") }
            var out: [Double] = []
            for (i, v) in a.enumerated() { out.append(try LayoutSpecJSON.double(v, path: "\(path).\(key)[\(i)]")) }
            return out
        }

        func objects(_ key: String) throws(DecodingError) -> [Reader] {
            var out: [Reader] = []
            for (i, v) in try array(key).enumerated() { out.append(try Reader(v, "\(path).\(key)[\(i)]")) }
            return out
        }

        func object(_ key: String) throws(DecodingError) -> Reader { try Reader(try required(key), path + "." + key) }

        func location(_ key: String) throws(DecodingError) -> SourceLocation? {
            guard let v = value(key), v != .null else { return nil }
            guard let a = v.arrayValue, a.count == 3, let file = a[0].stringValue, let line = a[1].intValue,
                  let column = a[2].intValue else { throw fail(key, "expected [file, line, column] or null") }
            return SourceLocation(file: file, line: line, column: column)
        }

        func options(_ key: String) throws(DecodingError) -> [String: ConfigValue] {
            try LayoutSpecJSON.options(try required(key), path: path + "." + key)
        }

        func enumValue<E: RawRepresentable>(_ key: String, _ raw: String, _: E.Type) throws(DecodingError) -> E where E.RawValue == String {
            guard let e = E(rawValue: raw) else { throw fail(key, "unknown value \"\(raw)\"") }
            return e
        }
    }

    static func double(_ v: JSONValue, path: String) throws(DecodingError) -> Double {
        if let d = v.doubleValue { return d }
        if let s = v.stringValue, let d = Double(s) { return d }
        throw DecodingError(path: path, message: "expected a number")
    }

    static func options(_ v: JSONValue, path: String) throws(DecodingError) -> [String: ConfigValue] {
        guard case .object(let members) = v else { throw DecodingError(path: path, message: "expected an object") }
        var out: [String: ConfigValue] = [:]
        for (k, m) in members { out[k] = try configValue(m, path: path + "." + k) }
        return out
    }

    static func configValue(_ v: JSONValue, path: String) throws(DecodingError) -> ConfigValue {
        switch v {
        case .null: return .null
        case .bool(let b): return .bool(b)
        case .number(let d): return .number(d)
        case .string(let s): return .string(s)
        case .array(let a):
            var out: [ConfigValue] = []
            for (i, e) in a.enumerated() { out.append(try configValue(e, path: "\(path)[\(i)]")) }
            return .list(out)
        case .object(let members):
            guard members.count == 1 else { throw DecodingError(path: path, message: "expected {\"map\": …} or {\"number\": …}") }
            switch members[0].0 {
            case "map": return .map(try options(members[0].1, path: path + ".map"))
            case "number": return .number(try double(members[0].1, path: path + ".number"))
            default: throw DecodingError(path: path, message: "expected {\"map\": …} or {\"number\": …}")
            }
        }
    }

    static func display(_ o: Reader) throws(DecodingError) -> DisplaySpec {
        let size = try o.doubles("size", count: 2)
        return DisplaySpec(name: try o.string("name"), size: Size(width: size[0], height: size[1]),
                           initialScreen: try o.optionalString("initial_screen"),
                           location: try o.location("location"),
                           initialScreenLocation: try o.location("initial_screen_location"))
    }

    static func deviceRule(_ o: Reader) throws(DecodingError) -> DeviceRuleSpec {
        let m = try o.object("match")
        var match = DeviceMatch(name: try m.optionalString("name"), vendor: try m.optionalInt("vendor"),
                                product: try m.optionalInt("product"))
        if let kind = try m.optionalString("kind") { match.kind = try m.enumValue("kind", kind, DeviceKind.self) }
        let udev = try m.object("udev")
        for (k, v) in udev.members {
            guard let s = v.stringValue else { throw udev.fail(k, "expected a string") }
            match.udev[k] = s
        }
        var calibration: [Double]?
        if let c = o.value("calibration"), c != .null { calibration = try o.doubles("calibration") }
        return DeviceRuleSpec(name: try o.string("name"), match: match, display: try o.optionalString("display"),
                              rotate: try o.int("rotate"), calibration: calibration, grab: try o.bool("grab"),
                              location: try o.location("location"), displayLocation: try o.location("display_location"))
    }

    static func plugin(_ o: Reader) throws(DecodingError) -> PluginSpec {
        PluginSpec(name: try o.string("name"), type: try o.string("type"), options: try o.options("options"),
                   location: try o.location("location"))
    }

    static func handler(_ o: Reader) throws(DecodingError) -> HandlerSpec {
        var filters: [EventFilter] = []
        for s in try o.strings("on") {
            guard let f = EventFilter(parsing: s) else { throw o.fail("on", "unknown event filter \"\(s)\"") }
            filters.append(f)
        }
        return HandlerSpec(plugin: try o.string("plugin"), on: filters, options: try o.options("options"),
                           location: try o.location("location"))
    }

    static func screen(_ o: Reader) throws(DecodingError) -> ScreenSpec {
        let regions = try o.objects("regions")
        guard !regions.isEmpty else { throw o.fail("regions", "a screen needs its root region") }
        var next = 0
        let root = try region(regions, &next)
        guard next == regions.count else { throw o.fail("regions", "\(regions.count - next) region(s) outside the root's tree") }
        return ScreenSpec(name: try o.string("name"), display: try o.optionalString("display"),
                          handlers: try o.objects("handlers").map { (h) throws(DecodingError) in try handler(h) },
                          root: root, presentedOver: try o.optionalString("presented_over"),
                          location: try o.location("location"), displayLocation: try o.location("display_location"),
                          presentedOverLocation: try o.location("presented_over_location"))
    }

    /// The region at `list[next]` with its subtree; `next` moves past the subtree.
    static func region(_ list: [Reader], _ next: inout Int) throws(DecodingError) -> RegionSpec {
        let o = list[next]
        next += 1
        let f = try o.doubles("frame", count: 4)
        let i = try o.doubles("hit_insets", count: 4)
        let childCount = try o.int("children")
        guard childCount >= 0, childCount <= list.count - next else { throw o.fail("children", "more children than regions left") }
        var children: [RegionSpec] = []
        children.reserveCapacity(childCount)
        for _ in 0..<childCount {
            guard next < list.count else { throw o.fail("children", "more children than regions left") }
            children.append(try region(list, &next))
        }
        return RegionSpec(name: try o.string("name"), frame: Rect(x: f[0], y: f[1], width: f[2], height: f[3]),
                          regions: children, handlers: try o.objects("handlers").map { (h) throws(DecodingError) in try handler(h) },
                          hidden: try o.bool("hidden"), interactive: try o.bool("interactive"),
                          opacity: try o.double("opacity"), shape: try shape(o),
                          hitInsets: EdgeInsets(top: i[0], left: i[1], bottom: i[2], right: i[3]),
                          exclusive: try o.bool("exclusive"), multitouch: try o.bool("multitouch"),
                          focusable: try o.bool("focusable"), next: try o.optionalString("next"),
                          gestures: try o.objects("gestures").map { (g) throws(DecodingError) in try gesture(g) },
                          location: try o.location("location"), nameLocation: try o.location("name_location"),
                          nextLocation: try o.location("next_location"))
    }

    static func shape(_ o: Reader) throws(DecodingError) -> Shape {
        let v = try o.required("shape")
        if let s = v.stringValue {
            switch s {
            case "rectangle": return .rectangle
            case "ellipse": return .ellipse
            default: throw o.fail("shape", "unknown shape \"\(s)\"")
            }
        }
        let s = try Reader(v, o.path + ".shape")
        if s.value("rounded_rectangle") != nil { return .roundedRectangle(radius: try s.double("rounded_rectangle")) }
        if s.value("polygon") != nil {
            var points: [Point] = []
            for (n, p) in try s.array("polygon").enumerated() {
                guard let xy = p.arrayValue, xy.count == 2 else { throw s.fail("polygon[\(n)]", "expected [x, y]") }
                points.append(Point(x: try double(xy[0], path: "\(s.path).polygon[\(n)][0]"),
                                    y: try double(xy[1], path: "\(s.path).polygon[\(n)][1]")))
            }
            return .polygon(points)
        }
        throw o.fail("shape", "expected \"rectangle\", \"ellipse\", {\"rounded_rectangle\": r} or {\"polygon\": […]}")
    }

    static func gesture(_ o: Reader) throws(DecodingError) -> GestureSpec {
        let kindName = try o.string("kind")
        var directions: [GestureSpec.Direction] = []
        for d in try o.strings("directions") { directions.append(try o.enumValue("directions", d, GestureSpec.Direction.self)) }
        var edges: [GestureSpec.Edge] = []
        for e in try o.strings("edges") { edges.append(try o.enumValue("edges", e, GestureSpec.Edge.self)) }
        return GestureSpec(name: try o.string("name"), kind: try o.enumValue("kind", kindName, GestureSpec.Kind.self),
                           taps: try o.int("taps"), touches: try o.int("touches"),
                           maximumTouches: try o.optionalInt("maximum_touches"),
                           minimumDuration: try o.double("minimum_duration"),
                           allowableMovement: try o.double("allowable_movement"), directions: directions,
                           minimumDistance: try o.double("minimum_distance"), maximumDuration: try o.double("maximum_duration"),
                           edges: edges, cancelsTouches: try o.bool("cancels_touches"),
                           delaysTouchesBegan: try o.bool("delays_touches_began"),
                           delaysTouchesEnded: try o.bool("delays_touches_ended"),
                           requireToFail: try o.strings("require_to_fail"), simultaneousWith: try o.strings("simultaneous_with"),
                           action: try o.optionalString("action"), location: try o.location("location"))
    }
}
