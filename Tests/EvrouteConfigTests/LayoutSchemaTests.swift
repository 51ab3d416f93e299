import EvrouteConfig
import EvrouteCore
import Testing
import EvrouteChecks

/// The schema (``LayoutSchema``) holds the reader to what the manual says: every key it declares
/// is taken where it is declared, and a key it does not declare is refused there.
@Suite("Layout schema")
struct LayoutSchemaTests {
    /// A value of `key`'s type, as flow YAML: a mapping (or a list of one) with its required keys,
    /// a number in range, the first choice. Only its keys matter here (a value may still be refused
    /// for another reason, which is not an unknown key).
    static func sample(_ key: ConfigKey) -> String {
        if !key.keys.isEmpty {
            let inner = mapping(key.keys, path: [])
            if case .list = key.type { return "[\(inner)]" }
            return inner
        }
        switch key.type {
        case .string: return "x"
        case .boolean: return "true"
        case .integer(let r): return String(r?.lowerBound ?? 1)
        case .number(let r): return LayoutLimits.text(r?.upperBound ?? 1)
        case .choice(let words): return words[0]
        case .mapping: return "{}"
        case .list: return "[]"
        case .other:
            let samples = ["size": "[100, 100]", "frame": "[0, 0, 10, 10]", "calibration": "[1, 0, 0, 0, 1, 0]",
                           "vendor": "1", "product": "1", "text": "true", "on": "any", "hit-insets": "0",
                           "direction": "left", "edges": "left", "edge": "left", "options": "[]"]
            return samples[key.name] ?? "x"
        }
    }

    /// A flow mapping of `keys`' required keys and, when `path` is not empty, the key `path[0]`
    /// holding the rest of the path (or a sample value at its end); `extra` is added last.
    static func mapping(_ keys: [ConfigKey], path: [String], extra: String? = nil) -> String {
        var entries: [String] = []
        for key in keys where key.required && key.name != path.first {
            entries.append("\(key.name): \(sample(key))")
        }
        if let head = path.first, let key = keys.first(where: { $0.name == head }) {
            if path.count == 1, extra == nil {
                entries.append("\(key.name): \(sample(key))")
            } else {
                let inner = mapping(key.keys, path: Array(path.dropFirst()), extra: extra)
                if case .list = key.type { entries.append("\(key.name): [\(inner)]") } else { entries.append("\(key.name): \(inner)") }
            }
        } else if let extra {
            entries.append(extra)
        }
        return "{" + entries.joined(separator: ", ") + "}"
    }

    /// Every key path of the schema, and whether the key at its end holds a mapping whose keys
    /// are all declared (so an undeclared one must be refused there).
    static func paths(_ keys: [ConfigKey], _ prefix: [String] = []) -> [(path: [String], closed: Bool)] {
        var out: [(path: [String], closed: Bool)] = []
        for key in keys {
            let path = prefix + [key.name]
            out.append((path, !key.keys.isEmpty && !key.takesOtherKeys))
            out += paths(key.keys, path)
        }
        return out
    }

    @Test func everyDeclaredKeyIsTakenWhereItIsDeclared() {
        let all = Self.paths(LayoutSchema.top)
        expect(all.count > 100, "\(all.count) key paths")
        for (path, _) in all {
            let yaml = Self.mapping(LayoutSchema.top, path: path)
            let unknown = parseErrors(yaml).filter { $0.kind == .unknownKey }
            expect(unknown.isEmpty, "\(path.joined(separator: ".")) refused in \(yaml): \(unknown.map(\.description))")
        }
    }

    @Test func aKeyTheSchemaDoesNotDeclareIsRefused() {
        var checked = 0
        for (path, closed) in [([String](), true)] + Self.paths(LayoutSchema.top) where closed {
            let yaml = Self.mapping(LayoutSchema.top, path: path, extra: "no-such-key: 1")
            let unknown = parseErrors(yaml).filter { $0.kind == .unknownKey && $0.description.contains("'no-such-key'") }
            expectEqual(unknown.count, 1, "no-such-key under \(path.joined(separator: ".")) was not refused in \(yaml)")
            checked += 1
        }
        expect(checked > 20, "\(checked) mappings checked")
    }

    /// The declarations agree with the reader's own limits: a value just past a declared range
    /// is refused, one at its bound is taken.
    @Test func declaredRangesAreTheReadersRanges() {
        let yaml = { (hysteresis: String) in
            "devices: [{name: t, match: {}, filters: {jitter: {hysteresis: \(hysteresis)}}}]"
        }
        let range = LayoutSchema.filters["jitter"]!["hysteresis"]!.numberRange!
        expect(parseErrors(yaml(LayoutLimits.text(range.upperBound))).isEmpty)
        expectEqual(parseErrors(yaml(LayoutLimits.text(range.upperBound + 1))).count, 1)
        let taps = LayoutSchema.gesture["taps"]!.integerRange!
        let gesture = { (n: Int) in
            "screens: [{name: s, root: {name: r, frame: [0, 0, 1, 1], gestures: [{name: g, type: tap, taps: \(n)}]}}]"
        }
        expect(parseErrors(gesture(taps.upperBound)).isEmpty)
        expect(parseErrors(gesture(taps.upperBound + 1)).map(\.description).contains { $0.contains("'taps' must be between 1 and \(taps.upperBound)") })
    }

    /// The routing built-ins' handler options the manual lists are the ones the compiler reads.
    @Test func routingBuiltInHandlerOptionsAreTheCompilers() {
        expectEqual(LayoutSchema.routingHandlerOptions.map(\.type), PluginKind.routingBuiltIns)
        for (type, keys) in LayoutSchema.routingHandlerOptions {
            expectEqual(keys.map(\.name).sorted(), PluginCatalog.routingOnly.handlerOptionKeys(of: type).sorted(), "\(type)")
        }
    }
}
