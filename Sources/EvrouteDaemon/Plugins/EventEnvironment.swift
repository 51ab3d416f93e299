import EvrouteCore
import EvrouteJSON
import EvrouteRuntime
import EvrouteSystem

/// The `EVROUTE_*` variables an `exec` command gets for an event. Only the variables that
/// apply to the event are set (no `EVROUTE_X` for a key). The handler's options (but not its
/// `command` and `shell`) follow as `EVROUTE_OPT_*` (``optionVariables(for:)``).
enum EventEnvironment {
    static func variables(for d: PluginDelivery) -> [String] {
        let e = d.event
        var v: [String] = []
        func set(_ name: String, _ value: String?) {
            if let value { v.append("EVROUTE_\(name)=\(value)") }
        }
        switch e.kind {
        case .touch(let phase, let isTap):
            set("TYPE", "touch")
            set("PHASE", phase.rawValue)
            if let t = e.touch {
                set("TOUCH", String(t.id))
                set("X", JSONText.number(t.location.x, style: .shortest))
                set("Y", JSONText.number(t.location.y, style: .shortest))
                set("TAP_COUNT", String(t.tapCount))
            }
            if isTap { set("TAP", "1") }
        case .key(let name, let phase):
            set("TYPE", "key")
            set("PHASE", phase.rawValue)
            set("KEY", name)
        case .action(let name):
            set("TYPE", "action")
            set("ACTION", name)
        case .gesture(let name, let state):
            set("TYPE", "gesture")
            set("PHASE", state)
            set("GESTURE", name)
        case .text:
            set("TYPE", "text")
            set("TEXT", e.text)
        case .motion(let values):
            switch values {
            case .sample(let x, let y, let z):
                set("TYPE", "motion")
                set("X", JSONText.number(x, style: .shortest))
                set("Y", JSONText.number(y, style: .shortest))
                set("Z", JSONText.number(z, style: .shortest))
            case .orientation(let o):
                set("TYPE", "orientation")
                set("ORIENTATION", o.rawValue)
            case .shake(let phase):
                set("TYPE", "motion")
                set("MOTION", "shake")
                set("PHASE", phase.rawValue)
            }
        }
        set("REGION", e.regionPath)
        set("DEVICE", e.device?.ruleName)
        set("HANDLED_BY", e.layout.describe(d.responder))
        set("HANDLER", d.handler.plugin)
        set("TIME", e.time.description)
        set("ID", String(d.id))
        var json = d.json
        if json.last == UInt8(ascii: "\n") { json.removeLast() }
        set("JSON", String(decoding: json, as: UTF8.self))
        return v + optionVariables(for: d.handler)
    }

    /// `EVROUTE_OPT_<NAME>=value` per travelling option of `handler` (``HandlerOptions``), in key
    /// order. Strings as they are, numbers as the control protocol writes them (`2`, `0.5`),
    /// `true`/`false`, null as empty, lists and mappings as JSON. When two keys give one name
    /// (`page-name`, `page_name`), the first in key order is kept.
    static func optionVariables(for handler: HandlerBinding) -> [String] {
        guard !handler.options.isEmpty else { return [] }
        var out: [String] = []
        var names: Set<String> = []
        for (key, value) in HandlerOptions.sorted(of: handler) {
            let name = optionName(key)
            guard names.insert(name).inserted else { continue }
            out.append("\(name)=\(optionValue(value))")
        }
        return out
    }

    /// `EVROUTE_OPT_` and the key upper-cased, every character outside `[A-Z0-9]` turned into `_`.
    static func optionName(_ key: String) -> String {
        var name = "EVROUTE_OPT_"
        for c in key {
            if let a = c.asciiValue, (a >= 0x61 && a <= 0x7A) || (a >= 0x41 && a <= 0x5A) || (a >= 0x30 && a <= 0x39) {
                name.append(Character(Unicode.Scalar(a >= 0x61 ? a - 0x20 : a)))
            } else {
                name.append("_")
            }
        }
        return name
    }

    static func optionValue(_ value: ConfigValue) -> String {
        switch value {
        case .string(let s): return s
        case .number(let n): return JSONText.number(n, style: .shortest)
        case .bool(let b): return b ? "true" : "false"
        case .null: return ""
        case .list, .map:
            var json = JSONWriter(capacity: 64)
            HandlerOptions.write(value, to: &json)
            return String(decoding: json.bytes, as: UTF8.self)
        }
    }
}
