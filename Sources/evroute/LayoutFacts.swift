import EvrouteConfig
import EvrouteCore
import EvrouteInput
import EvrouteJSON

/// What `tree` says of a device rule and of a gesture, in one place for its three outputs
/// (text, JSON, SVG): each fact a config key and its value, in the order of the config reference,
/// with whether it is the default (text and SVG leave defaults out; JSON has every fact).
enum LayoutFacts {
    struct Fact {
        /// The config key (`minimum-duration`); JSON writes it in snake case.
        var key: String
        var value: JSONValue
        var isDefault: Bool = false
        /// Whether the keys of mappings inside the value are config keys too (written in snake
        /// case in JSON, like the fact's own key); false for keys that are data (`udev`).
        var nestedConfigKeys: Bool = false

        var jsonKey: String { LayoutFacts.snake(key) }
        /// The value as JSON writes it: nested config keys in snake case.
        var jsonValue: JSONValue { nestedConfigKeys ? LayoutFacts.snakeKeys(value) : value }
    }

    /// A device rule's facts (its name aside): match, display, rotate, calibration, grab, text,
    /// line timeout, keymap, log-keys, filters.
    static func rule(_ index: Int, of layout: Layout) -> [Fact] {
        let d = index < layout.deviceRuleDisplays.count ? layout.deviceRuleDisplays[index] : 0
        return rule(layout.deviceRules[index], display: d < layout.displays.count ? layout.displays[d].name : "?")
    }

    static func rule(_ rule: DeviceRuleSpec, display: String) -> [Fact] {
        let m = rule.match
        var match: [(String, JSONValue)] = []
        if let kind = m.kind { match.append(("kind", .string(kind.rawValue))) }
        if let name = m.name { match.append(("name", .string(name))) }
        if let v = m.vendor { match.append(("vendor", .string(hex(v)))) }
        if let p = m.product { match.append(("product", .string(hex(p)))) }
        if !m.udev.isEmpty { match.append(("udev", .object(m.udev.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) }))) }
        let text: JSONValue = switch rule.text {
        case .on: .bool(true)
        case .off: .bool(false)
        case .line: .string("line")
        }
        var keymap: [(String, JSONValue)] = [("layout", .string(rule.keymap.layout))]
        if !rule.keymap.variant.isEmpty { keymap.append(("variant", .string(rule.keymap.variant))) }
        if !rule.keymap.options.isEmpty { keymap.append(("options", .array(rule.keymap.options.map { .string($0) }))) }
        var facts = [
            Fact(key: "match", value: .object(match)),
            Fact(key: "display", value: .string(display)),
            Fact(key: "rotate", value: .int(rule.rotate), isDefault: rule.rotate == 0),
            Fact(key: "calibration", value: rule.calibration.map { .array($0.map { .number($0) }) } ?? .null, isDefault: rule.calibration == nil),
            Fact(key: "grab", value: .bool(rule.grab), isDefault: !rule.grab),
            Fact(key: "text", value: text, isDefault: rule.text == .on),
        ]
        if rule.text == .line { facts.append(Fact(key: "line-timeout-ms", value: .int(rule.lineTimeoutMs))) }
        facts.append(Fact(key: "keymap", value: .object(keymap), isDefault: rule.keymap == .default))
        facts.append(Fact(key: "log-keys", value: .bool(rule.logKeys), isDefault: !rule.logKeys))
        facts.append(Fact(key: "filters", value: filters(rule.filters), isDefault: rule.filters.isEmpty, nestedConfigKeys: true))
        return facts
    }

    /// A rule's `filters:` as a mapping of the configured filters, in the order they run, with
    /// the values they run with (each filter type says its own); empty when none is configured.
    static func filters(_ f: [any ContactFilterOptions]) -> JSONValue { TouchFrameFilters.facts(f) }

    /// A display's `idle:` as a fact: `{after-s, swallow-wake-touch}`, or null (the default:
    /// the display never goes idle).
    static func idle(_ idle: IdleSpec?) -> Fact {
        Fact(key: "idle",
             value: idle.map { .object([("after-s", .number($0.afterSeconds)), ("swallow-wake-touch", .bool($0.swallowWakeTouch))]) } ?? .null,
             isDefault: idle == nil, nestedConfigKeys: true)
    }

    /// The `idle:` fact of display `index` of `layout`.
    static func idle(display index: Int, of layout: Layout) -> Fact {
        idle(index < layout.spec.displays.count ? layout.spec.displays[index].idle : nil)
    }

    /// A gesture's facts (its name aside): its type, every parameter of its type (defaults
    /// included: they are what it recognizes with), the touch-delivery flags, its relations and action.
    static func gesture(_ g: GestureSpec) -> [Fact] {
        func applies(_ key: String) -> Bool { GestureSpec.kindKeys.contains { $0.key == key && $0.kinds.contains(g.kind) } }
        var facts = [Fact(key: "type", value: .string(g.kind.rawValue))]
        if applies("taps") { facts.append(Fact(key: "taps", value: .int(g.taps))) }
        if applies("touches") { facts.append(Fact(key: "touches", value: .int(g.touches))) }
        if applies("maximum-touches"), let most = g.maximumTouches { facts.append(Fact(key: "maximum-touches", value: .int(most))) }
        if applies("minimum-duration") { facts.append(Fact(key: "minimum-duration", value: .number(g.minimumDuration))) }
        if applies("allowable-movement") { facts.append(Fact(key: "allowable-movement", value: .number(g.allowableMovement))) }
        if applies("direction") { facts.append(Fact(key: "direction", value: .array(g.directions.map { .string($0.rawValue) }))) }
        if applies("minimum-distance") { facts.append(Fact(key: "minimum-distance", value: .number(g.minimumDistance))) }
        if applies("maximum-duration") { facts.append(Fact(key: "maximum-duration", value: .number(g.maximumDuration))) }
        if applies("edges") { facts.append(Fact(key: "edges", value: .array(g.edges.map { .string($0.rawValue) }))) }
        facts += [
            Fact(key: "cancels-touches", value: .bool(g.cancelsTouches), isDefault: g.cancelsTouches),
            Fact(key: "delays-touches-began", value: .bool(g.delaysTouchesBegan), isDefault: !g.delaysTouchesBegan),
            Fact(key: "delays-touches-ended", value: .bool(g.delaysTouchesEnded), isDefault: g.delaysTouchesEnded),
            Fact(key: "require-to-fail", value: .array(g.requireToFail.map { .string($0) }), isDefault: g.requireToFail.isEmpty),
            Fact(key: "simultaneous-with", value: .array(g.simultaneousWith.map { .string($0) }), isDefault: g.simultaneousWith.isEmpty),
            Fact(key: "action", value: g.action.map { .string($0) } ?? .null, isDefault: g.action == nil),
        ]
        return facts
    }

    /// The facts as a line for people (text and SVG): `key value, …`, defaults left out;
    /// lists as `a|b`, mappings as `{k v, …}`.
    static func line(_ facts: [Fact]) -> String {
        facts.filter { !$0.isDefault }.map { "\($0.key) \(text($0.value))" }.joined(separator: ", ")
    }

    static func text(_ value: JSONValue) -> String {
        switch value {
        case .string(let s): s
        case .array(let items) where items.contains(where: { if case .array = $0 { true } else { false } }):
            // A list of lists (`ignore` rectangles): each in brackets.
            items.map { item in
                if case .array(let inner) = item { "[" + inner.map(text).joined(separator: ", ") + "]" } else { text(item) }
            }.joined(separator: " ")
        case .array(let items): items.map(text).joined(separator: "|")
        case .object(let members): "{" + members.map { "\($0.0) \(text($0.1))" }.joined(separator: ", ") + "}"
        default: value.serialized
        }
    }

    /// A JSON object of the facts, after `name`.
    static func json(name: String, _ facts: [Fact]) -> JSONValue {
        .object([("name", .string(name))] + facts.map { ($0.jsonKey, $0.jsonValue) })
    }

    static func snake(_ key: String) -> String { String(key.map { $0 == "-" ? "_" : $0 }) }

    /// `value` with the keys of its mappings (at any depth) in snake case.
    static func snakeKeys(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let members): .object(members.map { (snake($0.0), snakeKeys($0.1)) })
        case .array(let items): .array(items.map(snakeKeys))
        default: value
        }
    }

    static func hex(_ v: Int) -> String {
        let digits = String(v, radix: 16)
        return "0x" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
