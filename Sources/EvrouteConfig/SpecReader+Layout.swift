import EvrouteCore
import EvrouteInput

extension SpecReader {
    // The known keys of each mapping, from the schema (``LayoutSchema``).
    static var topKeys: [String] { LayoutSchema.topKeys }
    static var metricsKeys: [String] { LayoutSchema.metrics.keyNames }
    static var motionKeys: [String] { LayoutSchema.motion.keyNames }
    static var shakeKeys: [String] { LayoutSchema.motion["shake"]!.keyNames }
    static var orientationKeys: [String] { LayoutSchema.motion["orientation"]!.keyNames }
    static var displayKeys: [String] { LayoutSchema.display.keyNames }
    static var idleKeys: [String] { LayoutSchema.idle.keyNames }
    static var deviceKeys: [String] { LayoutSchema.device.keyNames }
    static var keymapKeys: [String] { LayoutSchema.keymap.keyNames }
    static var matchKeys: [String] { LayoutSchema.match.keyNames }
    static var screenKeys: [String] { LayoutSchema.screen.keyNames }
    static var regionKeys: [String] { LayoutSchema.region.keyNames }
    static var handlerHolderKeys: [String] { LayoutSchema.handlerHolder.keyNames }
    static var regionsDocumentKeys: [String] { LayoutSchema.regionsDocument.keyNames }
    static var shapeKeys: [String] { LayoutSchema.shape.keyNames }

    /// The whole document. `root` is nil for an empty file.
    func layout(_ root: YAMLNode?) -> LayoutSpec {
        var spec = LayoutSpec(source: file)
        guard let root else { return spec }
        guard let f = fields(root, "the top level of the config", known: Self.topKeys) else { return spec }
        if let v = f["displays"] { spec.displays = items(v, "'displays'", display) }
        if let v = f["devices"] { spec.deviceRules = items(v, "'devices'", deviceRule) }
        if let v = f["plugins"] { spec.plugins = items(v, "'plugins'", plugin) }
        if let v = f["screens"] { spec.screens = items(v, "'screens'", screen) }
        if let v = f["application"] { spec.applicationHandlers = handlerHolder(v, "'application'") }
        if let v = f["fallback"] { spec.fallbackHandlers = handlerHolder(v, "'fallback'") }
        if let v = f["motion"] { spec.motion = motion(v) }
        if let v = f["metrics"] { spec.metrics = metrics(v) }
        checkFilters(spec)
        return spec
    }

    /// `metrics:` — the Prometheus text file (`textfile`, an absolute path) and how often it is
    /// written (`interval-s`).
    func metrics(_ node: YAMLNode) -> MetricsSpec? {
        var spec = MetricsSpec(location: location(node))
        if node.scalar != nil, tagName(node) == .null { return spec }
        guard let f = fields(node, "'metrics'", known: Self.metricsKeys) else { return nil }
        if let t = f["textfile"], let path = name(t, "'metrics' 'textfile'") {
            spec.textfileLocation = location(t)
            if path.utf8.contains(0) { error(t, .invalidValue, "'textfile' must not hold a NUL byte (the file's name would end there), found \(render(t))") }
            else if path.hasPrefix("/") && !path.hasSuffix("/") { spec.textfile = path }
            else { error(t, .invalidValue, "'textfile' must be an absolute file path (node_exporter's textfile directory, e.g. /var/lib/prometheus/node-exporter/evroute.prom), found \(render(t))") }
        }
        if let i = f["interval-s"], let s = integer(i, "'metrics' 'interval-s'") {
            let range = LayoutSchema.metrics["interval-s"]!.integerRange!
            if range.contains(s) { spec.intervalSeconds = s }
            else { error(i, .invalidValue, "'interval-s' must be a whole number of seconds from \(range.lowerBound) to \(range.upperBound), found \(s)") }
        }
        return spec
    }

    /// `motion:` — the accelerometers' handlers (samples, orientation changes), the sample rate,
    /// shake and orientation detection.
    func motion(_ node: YAMLNode) -> MotionSpec? {
        var spec = MotionSpec(location: location(node))
        if node.scalar != nil, tagName(node) == .null { return spec }
        guard let f = fields(node, "'motion'", known: Self.motionKeys) else { return nil }
        if let h = f["handlers"] {
            spec.handlers = items(h, "'handlers'", handler)
            // Samples and orientation changes come here; nothing else ever does.
            for item in isSequence(h) ? oneOrMany(h) : [] {
                guard case .mapping(let pairs) = item.content,
                      let on = pairs.first(where: { $0.0.scalar?.string == "on" })?.1 else { continue }
                for kind in oneOrMany(on) {
                    guard let s = kind.scalar?.string, let filter = EventFilter(parsing: s) else { continue }
                    switch filter {
                    case .motion, .orientation, .any: break
                    default:
                        error(kind, .invalidValue, "'motion' handlers get accelerometer samples (motion) and orientation changes (orientation) only; '\(s)' never comes here")
                    }
                }
            }
        }
        if let r = f["rate"], let hz = number(r, "'motion' 'rate'") {
            let range = LayoutSchema.motion["rate"]!.numberRange!
            if hz > range.lowerBound && hz <= range.upperBound { spec.rate = hz }
            else { error(r, .invalidValue, "'rate' must be samples per second, more than 0 and at most 1000, found \(render(r))") }
        }
        if let sh = f["shake"], let sf = fields(sh, "'shake'", known: Self.shakeKeys) {
            let shake = LayoutSchema.motion["shake"]!
            if let t = sf["threshold"], let g = number(t, "'shake' 'threshold'") {
                let range = shake["threshold"]!.numberRange!
                if g > range.lowerBound && g <= range.upperBound { spec.shakeThreshold = g }
                else { error(t, .invalidValue, "'threshold' must be in g, more than 0 and at most 16, found \(render(t))") }
            }
            if let w = sf["window-ms"], let ms = integer(w, "'shake' 'window-ms'") {
                if shake["window-ms"]!.integerRange!.contains(ms) { spec.shakeWindowMs = ms }
                else { error(w, .invalidValue, "'window-ms' must be a whole number of milliseconds from 50 to 10000, found \(ms)") }
            }
        }
        if let o = f["orientation"], let of = fields(o, "'orientation'", known: Self.orientationKeys) {
            if let hy = of["hysteresis"], let deg = number(hy, "'orientation' 'hysteresis'") {
                let range = LayoutSchema.motion["orientation"]!["hysteresis"]!.numberRange!
                if deg >= range.lowerBound && deg < range.upperBound { spec.orientationHysteresis = deg }
                else { error(hy, .invalidValue, "'hysteresis' must be degrees from 0 to less than 45, found \(render(hy))") }
            }
        }
        return spec
    }

    /// Each element of a list read with `read`; elements that fail are left out.
    func items<T>(_ node: YAMLNode, _ what: String, _ read: (YAMLNode) -> T?) -> [T] {
        if node.scalar != nil, tagName(node) == .null { return [] }   // `handlers:` with nothing after it
        guard let list = list(node, what) else { return [] }
        return list.compactMap(read)
    }

    /// `application:` and `fallback:` — a mapping with `handlers`.
    func handlerHolder(_ node: YAMLNode, _ what: String) -> [HandlerSpec] {
        if node.scalar != nil, tagName(node) == .null { return [] }
        guard let f = fields(node, what, known: Self.handlerHolderKeys) else { return [] }
        return f["handlers"].map { items($0, "'handlers'", handler) } ?? []
    }

    // MARK: Displays

    /// A display's, screen's or region's name: a region's path joins its screen's and its
    /// ancestors' names with `/` (`home/root/a/b`), so a name holding `/` would read as two (a
    /// region `a/b` and the child `b` of `a` would share a path, and `ctl hide` act on either).
    func pathName(_ node: YAMLNode, _ kind: String) -> String? {
        guard let n = name(node, "'name'") else { return nil }
        if n.contains("/") {
            error(node, .invalidValue, "\(kind) name '\(n)' must not contain '/' (it separates the names of a region's path, e.g. home/root/keypad)")
            return nil
        }
        return n
    }

    func display(_ node: YAMLNode) -> DisplaySpec? {
        // Keys people put on a display that belong to the device rule of its touchscreen.
        let misplaced = ["rotate": "rotate: 90", "calibration": "calibration: [a, b, c, d, e, f]", "grab": "grab: true",
                         "filters": "filters: { … }", "match": "match: { … }"]
            .mapValues { "it belongs on the device rule of the display's touchscreen (devices: [{ …, display: NAME, \($0) }])" }
        guard let f = fields(node, "display", known: Self.displayKeys, misplaced: misplaced) else { return nil }
        let nameNode = required(f, "name")
        let name = nameNode.flatMap { self.pathName($0, "display") }
        var size: Size?
        if let s = required(f, "size", hint: "[width, height]") {
            let nums = numbers(s, "'size'", count: 2, shape: "[width, height] with width and height > 0", range: LayoutLimits.coordinates)
            if let nums {
                if nums[0] > 0 && nums[1] > 0 { size = Size(width: nums[0], height: nums[1]) }
                else { error(s, .invalidValue, "'size' must be [width, height] with width and height > 0, found \(render(s))") }
            }
        }
        var initial: String?
        if let s = f["screen"] { initial = self.name(s, "'screen'") }
        let idle = f["idle"].flatMap { self.idle($0, at: location(f.keyNode("idle"))) }
        guard let name, let size else { return nil }
        return DisplaySpec(name: name, size: size, initialScreen: initial,
                           location: location(nameNode), initialScreenLocation: location(f["screen"]), idle: idle)
    }

    /// A display's `idle:`: `{ after-s: SECONDS, swallow-wake-touch: BOOL }`;
    /// `after-s` is required.
    func idle(_ node: YAMLNode, at place: SourceLocation?) -> IdleSpec? {
        guard let f = fields(node, "'idle'", known: Self.idleKeys) else { return nil }
        let swallow = f["swallow-wake-touch"].flatMap { bool($0, "'swallow-wake-touch'") } ?? false
        guard let a = required(f, "after-s", hint: "seconds without input before the display goes idle, \(LayoutLimits.text(IdleSpec.range.lowerBound)) to \(LayoutLimits.text(IdleSpec.range.upperBound))"),
              let after = bounded(a, "'after-s'", LayoutSchema.idle["after-s"]!.numberRange!) else { return nil }
        return IdleSpec(afterSeconds: after, swallowWakeTouch: swallow, location: place ?? location(node))
    }

    /// A list of exactly `count` numbers, each in `range`; one error (with the expected shape)
    /// otherwise, or one at each element out of range.
    func numbers(_ node: YAMLNode, _ what: String, count: Int, shape: String, range: ClosedRange<Double>) -> [Double]? {
        guard case .sequence(let seq) = node.content, seq.count == count else {
            error(node, isSequence(node) ? .invalidValue : .wrongType,
                  "\(what) must be \(shape), found \(found(node))")
            return nil
        }
        var out: [Double] = []
        for item in seq {
            guard let n = number(item, "each element of \(what)") else { return nil }
            out.append(n)
        }
        var inRange = true
        for (item, n) in zip(seq, out) where !range.contains(n) {
            outOfRange(item, "each element of \(what)", range)
            inRange = false
        }
        return inRange ? out : nil
    }

    // MARK: Devices

    func deviceRule(_ node: YAMLNode) -> DeviceRuleSpec? {
        guard let f = fields(node, "device rule", known: Self.deviceKeys) else { return nil }
        let nameNode = required(f, "name")
        let name = nameNode.flatMap { self.name($0, "'name'") }
        var match: DeviceMatch?
        if let m = required(f, "match", hint: "e.g. { kind: touchscreen }; {} matches every device") {
            match = deviceMatch(m)
        }
        let display = f["display"].flatMap { self.name($0, "'display'") }
        var rotate = 0
        if let r = f["rotate"], let v = integer(r, "'rotate'") {
            if [0, 90, 180, 270].contains(v) { rotate = v }
            else { error(r, .invalidValue, "'rotate' must be 0, 90, 180 or 270 (degrees clockwise), found \(v)") }
        }
        var calibration: [Double]?
        if let c = f["calibration"] {
            calibration = numbers(c, "'calibration'", count: 6, shape: "6 numbers [a, b, c, d, e, f] (libinput's 2×3 matrix)",
                                  range: LayoutLimits.calibrationEntries)
        }
        let grab = f["grab"].flatMap { bool($0, "'grab'") } ?? false
        let logKeys = f["log-keys"].flatMap { bool($0, "'log-keys'") } ?? false
        let keymap = f["keymap"].flatMap(keymap) ?? .default
        var text = TextMode.on
        var textInvalid = false
        if let t = f["text"] {
            if tagName(t) == .bool, let b = t.scalar?.bool { text = b ? .on : .off }
            else if t.scalar?.string == "line", tagName(t) == .str { text = .line }
            else {
                textInvalid = true
                var message = "'text' must be true (text events as keys are typed), false (keys only) or line (one text event per line: scanners), found \(describe(t))"
                if let s = t.scalar?.string, tagName(t) == .str, let guess = closest(s, in: ["line", "true", "false"]) { message += "; did you mean '\(guess)'?" }
                error(t, isMapping(t) || isSequence(t) ? .wrongType : .invalidValue, message)
            }
        }
        var lineTimeout = DeviceRuleSpec.defaultLineTimeoutMs
        if let node = f["line-timeout-ms"], let ms = integer(node, "'line-timeout-ms'") {
            if text != .line {
                if !textInvalid {
                    error(f.keyNode("line-timeout-ms"), .invalidValue, "'line-timeout-ms' applies to 'text: line' only (a scanner's line is sent after this silence)")
                }
            } else if !LayoutSchema.lineTimeout.integerRange!.contains(ms) {
                error(node, .invalidValue, "'line-timeout-ms' must be a whole number of milliseconds from 0 (wait for Enter) to 60000, found \(ms)")
            } else {
                lineTimeout = ms
            }
        }
        guard let name, let match else { return nil }
        var rule = DeviceRuleSpec(name: name, match: match, display: display, rotate: rotate, calibration: calibration,
                                  grab: grab, location: location(nameNode), displayLocation: location(f["display"]))
        rule.logKeys = logKeys
        rule.keymap = keymap
        rule.text = text
        rule.lineTimeoutMs = lineTimeout
        if let filters = f["filters"] { rule.filters = touchFilters(filters) }
        rule.keymapLocation = location(f["keymap"])
        rule.grabLocation = location(f.keyNode("grab"))
        return rule
    }

    /// `keymap: { layout: de, variant: nodeadkeys, options: [compose:ralt] }`, or `keymap: de`
    /// (a layout). Names are checked against xkb-data when it is installed here (``XkbCatalog``).
    func keymap(_ node: YAMLNode) -> KeymapSpec? {
        var spec = KeymapSpec()
        var layoutNode: YAMLNode? = node, variantNode: YAMLNode?
        if isMapping(node) {
            guard let f = fields(node, "'keymap'", known: Self.keymapKeys) else { return nil }
            layoutNode = f["layout"]
            variantNode = f["variant"]
            if let o = f["options"] {
                var options: [String] = []
                for item in oneOrMany(o) {
                    guard let s = name(item, "each of 'options'") else { continue }
                    for part in s.split(separator: ",") {
                        let option = String(part.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
                        if !option.isEmpty { options.append(option) }
                        checkKeymapOption(option, at: item)
                    }
                }
                spec.options = options
            }
        } else if !(node.scalar != nil && tagName(node) == .str) {
            wrongType(node, "'keymap'", expected: "a mapping { layout, variant, options } or a layout name")
            return nil
        }
        if let l = layoutNode {
            guard let layout = name(l, "keymap 'layout'") else { return nil }
            spec.layout = layout
        }
        if let v = variantNode {
            guard let variant = string(v, "keymap 'variant'") else { return nil }
            spec.variant = variant
        }
        checkKeymapNames(spec, layoutNode: layoutNode ?? node, variantNode: variantNode)
        return spec
    }

    /// Each layout (comma-separated) and its variant, against xkb-data.
    func checkKeymapNames(_ spec: KeymapSpec, layoutNode: YAMLNode, variantNode: YAMLNode?) {
        guard catalog() != nil else { return }
        let layouts = spec.layout.split(separator: ",", omittingEmptySubsequences: false).map { String($0.filter { $0 != " " }) }
        let variants = spec.variant.isEmpty ? [] : spec.variant.split(separator: ",", omittingEmptySubsequences: false).map { String($0.filter { $0 != " " }) }
        if variants.count > layouts.count, let variantNode {
            error(variantNode, .invalidValue, "keymap 'variant' has \(variants.count) variants for \(layouts.count) layout(s) ('\(spec.layout)'); give one per layout, comma-separated")
            return
        }
        for (i, layout) in layouts.enumerated() {
            guard withCatalog({ $0.hasLayout(layout) }) else {
                var message = "unknown keymap layout '\(layout)' (no such layout in xkb-data under \(catalogRoot))"
                if let guess = closest(layout, in: withCatalog { $0.listedLayouts }) { message += "; did you mean '\(guess)'?" }
                error(layoutNode, .invalidValue, message)
                continue
            }
            guard i < variants.count, !variants[i].isEmpty, let variantNode else { continue }
            let known = withCatalog { $0.variants(of: layout) }
            if !known.contains(variants[i]) {
                let shown = known.prefix(12).joined(separator: ", ") + (known.count > 12 ? ", …" : "")
                var message = "unknown variant '\(variants[i])' of keymap layout '\(layout)' (it has: \(shown))"
                if let guess = closest(variants[i], in: known) { message += "; did you mean '\(guess)'?" }
                error(variantNode, .invalidValue, message)
            }
        }
    }

    func checkKeymapOption(_ option: String, at node: YAMLNode) {
        guard catalog() != nil, !option.isEmpty else { return }
        let options = withCatalog { $0.options }
        guard !options.contains(option) else { return }
        var message = "unknown keymap option '\(option)' (xkb-data's options are GROUP:NAME, e.g. compose:ralt, ctrl:nocaps)"
        if let guess = closest(option, in: options.sorted()) { message += "; did you mean '\(guess)'?" }
        error(node, .invalidValue, message)
    }

    func deviceMatch(_ node: YAMLNode) -> DeviceMatch? {
        if node.scalar != nil, tagName(node) == .null { return DeviceMatch() }
        guard let f = fields(node, "'match'", known: Self.matchKeys) else { return nil }
        var m = DeviceMatch()
        if let k = f["kind"] {
            m.kind = choice(k, "device kind", DeviceKind.allCases.map { ($0.rawValue, $0) })
        }
        if let n = f["name"] { m.name = name(n, "'name' (a glob)") }
        if let v = f["vendor"] { m.vendor = usbID(v, "'vendor'") }
        if let p = f["product"] { m.product = usbID(p, "'product'") }
        if let u = f["udev"], let uf = fields(u, "'udev'", known: nil) {
            for key in uf.order {
                if let v = uf[key], let glob = string(v, "udev property '\(key)'") { m.udev[key] = glob }
            }
        }
        return m
    }

    /// A USB/input vendor or product id: an integer (`1133`), or a hex string
    /// (`"0x046d"`, `"046d"`, as lsusb prints them). 0…0xFFFF.
    func usbID(_ node: YAMLNode, _ what: String) -> Int? {
        guard let s = node.scalar else { wrongType(node, what, expected: "an id (a number or a hex string like \"0x046d\")"); return nil }
        let text = s.string
        var value: Int?
        switch tagName(node) {
        case .int?:
            let lower = text.lowercased()
            if s.style == .plain, lower.count > 1, lower.hasPrefix("0"), !lower.hasPrefix("0x") {
                error(node, .invalidValue, "\(what) '\(text)' is ambiguous (YAML reads a leading 0 as octal); write hex as \"0x\(text)\" or a decimal number without leading zeros")
                return nil
            }
            value = s.int
        case .str?:
            var hex = Substring(text.lowercased())
            if hex.hasPrefix("0x") { hex = hex.dropFirst(2) }
            if !hex.isEmpty, hex.count <= 8, hex.allSatisfy(\.isHexDigit) { value = Int(hex, radix: 16) }
            else {
                error(node, .invalidValue, "\(what) must be a number or a hex string like \"0x046d\", found \(describe(node))")
                return nil
            }
        default:
            wrongType(node, what, expected: "an id (a number or a hex string like \"0x046d\")")
            return nil
        }
        guard let v = value, (0...0xFFFF).contains(v) else {
            error(node, .invalidValue, "\(what) must be between 0 and 0xffff, found \(text)")
            return nil
        }
        return v
    }

    // MARK: Plugins and handlers

    func plugin(_ node: YAMLNode) -> PluginSpec? {
        guard let f = fields(node, "plugin", known: nil) else { return nil }
        let nameNode = required(f, "name")
        let name = nameNode.flatMap { self.name($0, "'name'") }
        var type: PluginKind?
        let types = pluginTypes.typeNames
        if let t = required(f, "type", hint: "one of: \(types.map(\.rawValue).joined(separator: ", "))") {
            type = choice(t, "plugin type", types.map { ($0.rawValue, $0) })
        }
        var options: [String: ConfigValue] = [:]
        var places: [String: SourceLocation] = [:]
        for key in f.order where key != "name" && key != "type" {
            options[key] = configValue(f[key]!)
            places[key] = location(f[key])
        }
        guard let name, let type else { return nil }
        return PluginSpec(name: name, type: type, options: options, location: location(nameNode), optionLocations: places)
    }

    func handler(_ node: YAMLNode) -> HandlerSpec? {
        guard let f = fields(node, "handler", known: nil) else { return nil }
        let pluginNode = required(f, "plugin")
        let plugin = pluginNode.flatMap { self.name($0, "'plugin'") }
        var filters: [EventFilter]?
        var onPlaces: [SourceLocation] = []
        if let on = required(f, "on", hint: "the events it takes: \(EventFilter.spellings)") {
            filters = eventFilters(on)
            onPlaces = oneOrMany(on).compactMap { location($0) }
        }
        // `devices:` filters by device rule (checked against the rules when compiled); it is the
        // handler's own key, not a plugin option.
        var devices: [String]?
        var devicePlaces: [SourceLocation] = []
        if let d = f["devices"] {
            if oneOrMany(d).isEmpty {
                error(d, .invalidValue, "'devices' must name at least one device rule (leave it out to take every device's events)")
            } else {
                devices = strings(d, "'devices' (device rule names)")
                devicePlaces = oneOrMany(d).compactMap { location($0) }
            }
        }
        var options: [String: ConfigValue] = [:]
        var places: [String: SourceLocation] = [:]
        for key in f.order where key != "plugin" && key != "on" && key != "devices" {
            options[key] = configValue(f[key]!)
            places[key] = location(f[key])
        }
        guard let plugin, let filters else { return nil }
        return HandlerSpec(plugin: plugin, on: filters, options: options, location: location(pluginNode),
                           optionLocations: places, onLocations: onPlaces, devices: devices, deviceLocations: devicePlaces)
    }

    func eventFilters(_ node: YAMLNode) -> [EventFilter]? {
        let nodes = oneOrMany(node)
        if nodes.isEmpty {
            error(node, .invalidValue, "'on' must name at least one event kind (\(EventFilter.spellings))")
            return nil
        }
        var out: [EventFilter] = []
        var ok = true
        for item in nodes {
            guard let s = name(item, "each kind in 'on'") else { ok = false; continue }
            if let filter = EventFilter(parsing: s) { out.append(filter) }
            else {
                ok = false
                var message = "unknown event kind '\(s)' in 'on' (expected one of: \(EventFilter.spellings))"
                let kinds = EventFilter.spellings.split(separator: ", ").map(String.init)
                // A plural (`touches`, `keys`) or a near miss.
                let singular = [String(s.dropLast(2)), String(s.dropLast())].first { s.hasSuffix("s") && kinds.contains($0) }
                if let guess = singular ?? closest(s, in: kinds) { message += "; did you mean '\(guess)'?" }
                error(item, .invalidValue, message)
            }
        }
        return ok ? out : nil
    }

    // MARK: Screens and regions

    func screen(_ node: YAMLNode) -> ScreenSpec? {
        guard let f = fields(node, "screen", known: Self.screenKeys) else { return nil }
        let nameNode = required(f, "name")
        let name = nameNode.flatMap { self.pathName($0, "screen") }
        let display = f["display"].flatMap { self.name($0, "'display'") }
        let handlers = f["handlers"].map { items($0, "'handlers'", handler) } ?? []
        let root = required(f, "root", hint: "the screen's root region").flatMap(region)
        let over = f["presented-over"].flatMap { self.name($0, "'presented-over'") }
        guard let name, let root else { return nil }
        return ScreenSpec(name: name, display: display, handlers: handlers, root: root, presentedOver: over,
                          location: location(nameNode), displayLocation: location(f["display"]),
                          presentedOverLocation: location(f["presented-over"]))
    }

    /// A regions document (`evroute ctl regions`): a list of regions, or a mapping with `regions:`.
    func regionList(_ root: YAMLNode?) -> [RegionSpec] {
        let expected = "a list of regions, or a mapping with 'regions:' holding one"
        guard let root else {
            error(nil, .missingKey, "the document is empty; expected \(expected) (an empty list [] removes every child)")
            return []
        }
        if isSequence(root) { return items(root, "the regions", region) }
        guard isMapping(root) else {
            wrongType(root, "the document", expected: expected)
            return []
        }
        guard let f = fields(root, "the top level of the regions", known: Self.regionsDocumentKeys),
              let list = required(f, "regions", hint: "a list of regions") else { return [] }
        return items(list, "'regions'", region)
    }

    func region(_ node: YAMLNode) -> RegionSpec? {
        guard let f = fields(node, "region", known: Self.regionKeys) else { return nil }
        let nameNode = required(f, "name")
        let name = nameNode.flatMap { self.pathName($0, "region") }
        var frame: Rect?
        if let fr = required(f, "frame", hint: "[x, y, width, height]") {
            let shape = "[x, y, width, height] with width and height ≥ 0"
            if let n = numbers(fr, "'frame'", count: 4, shape: shape, range: LayoutLimits.coordinates) {
                if n[2] >= 0 && n[3] >= 0 { frame = Rect(x: n[0], y: n[1], width: n[2], height: n[3]) }
                else { error(fr, .invalidValue, "'frame' must be \(shape), found \(render(fr))") }
            }
        }
        var r = RegionSpec(name: name ?? "", frame: frame ?? Rect(x: 0, y: 0, width: 0, height: 0),
                           location: location(node), nameLocation: location(nameNode))
        if let v = f["regions"] { r.regions = items(v, "'regions'", region) }
        if let v = f["handlers"] { r.handlers = items(v, "'handlers'", handler) }
        if let v = f["hidden"], let b = bool(v, "'hidden'") { r.hidden = b }
        if let v = f["interactive"], let b = bool(v, "'interactive'") { r.interactive = b }
        if let v = f["opacity"], let o = number(v, "'opacity'") {
            if o >= 0 && o <= 1 { r.opacity = o }
            else { error(v, .invalidValue, "'opacity' must be between 0 and 1, found \(render(v))") }
        }
        if let v = f["shape"], let s = shape(v) { r.shape = s }
        if let v = f["hit-insets"], let i = insets(v) { r.hitInsets = i }
        if let v = f["exclusive"], let b = bool(v, "'exclusive'") { r.exclusive = b }
        if let v = f["multitouch"], let b = bool(v, "'multitouch'") { r.multitouch = b }
        if let v = f["focusable"], let b = bool(v, "'focusable'") { r.focusable = b }
        if let v = f["next"], let n = self.name(v, "'next'") {
            r.next = n
            r.nextLocation = location(v)
        }
        if let v = f["gestures"] { r.gestures = items(v, "'gestures'", gesture) }
        guard name != nil, frame != nil else { return nil }
        return r
    }

    func shape(_ node: YAMLNode) -> Shape? {
        let expected = "rectangle, ellipse, {rounded-rectangle: RADIUS} or {polygon: [[x, y], …]}"
        switch node.content {
        case .scalar:
            guard let s = string(node, "'shape'") else { return nil }
            switch s {
            case "rectangle": return .rectangle
            case "ellipse": return .ellipse
            case "rounded-rectangle", "polygon":
                error(node, .invalidValue, "'shape: \(s)' needs a parameter: write {rounded-rectangle: RADIUS} or {polygon: [[x, y], …]}")
            default:
                error(node, .invalidValue, "unknown shape '\(s)' (expected \(expected))")
            }
            return nil
        case .mapping(let m) where m.count == 1:
            guard let f = fields(node, "'shape'", known: Self.shapeKeys) else { return nil }
            if let r = f["rounded-rectangle"], let radius = bounded(r, "'rounded-rectangle' radius", LayoutLimits.lengths) {
                return .roundedRectangle(radius: radius)
            }
            if let p = f["polygon"] { return polygon(p) }
            return nil
        default:
            error(node, isMapping(node) ? .invalidValue : .wrongType, "'shape' must be \(expected), found \(found(node))")
            return nil
        }
    }

    func polygon(_ node: YAMLNode) -> Shape? {
        guard let list = list(node, "'polygon'") else { return nil }
        var points: [Point] = []
        for item in list {
            guard let xy = numbers(item, "each polygon point", count: 2, shape: "[x, y]", range: LayoutLimits.coordinates) else { return nil }
            points.append(Point(x: xy[0], y: xy[1]))
        }
        guard points.count >= 3 else {
            error(node, .invalidValue, "'polygon' needs at least 3 points [[x, y], …], found \(points.count)")
            return nil
        }
        return .polygon(points)
    }

    func insets(_ node: YAMLNode) -> EdgeInsets? {
        if case .sequence = node.content {
            guard let n = numbers(node, "'hit-insets'", count: 4,
                                  shape: "one number or [top, left, bottom, right]", range: LayoutLimits.coordinates) else { return nil }
            return EdgeInsets(top: n[0], left: n[1], bottom: n[2], right: n[3])
        }
        guard node.scalar != nil, [.int, .float].contains(tagName(node)) else {
            wrongType(node, "'hit-insets'", expected: "one number or [top, left, bottom, right]")
            return nil
        }
        return bounded(node, "'hit-insets'", LayoutLimits.coordinates).map { EdgeInsets(all: $0) }
    }
}
