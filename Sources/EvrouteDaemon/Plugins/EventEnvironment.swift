import EvrouteCore
import EvrouteJSON
import EvrouteRuntime
import EvrouteSystem

/// The `EVROUTE_*` variables an `exec` command gets for an event. Only the variables that
/// apply to the event are set (no `EVROUTE_X` for a key). The handler's options (but not its
/// `command` and `shell`) follow as `EVROUTE_OPT_*` (``optionVariables(for:)``).
enum EventEnvironment {
    static func variables(for d: PluginDelivery, id: UInt64) -> [String] {
        var fields = Fields()
        EventEncoder.encode(d.event, handledBy: d.responder, handler: d.handler, as: .environment, into: &fields)
        var v = fields.variables
        v.append("EVROUTE_ID=\(id)")
        var json = d.jsonLine(id: id)
        if json.last == UInt8(ascii: "\n") { json.removeLast() }
        v.append("EVROUTE_JSON=" + String(decoding: json, as: UTF8.self))
        return v + optionVariables(for: d.handler)
    }

    /// The encoder's ``EventEncoding/environment`` fields as `EVROUTE_<FIELD>=value`: numbers in
    /// their shortest form (`0.5`, `412`), the time as `1508.125000`, a tap as `1`.
    struct Fields: EventFieldWriter {
        var variables: [String] = []

        private mutating func set(_ field: EventField, _ value: String) {
            var name = "EVROUTE_"
            field.name.withUTF8Buffer { bytes in
                for b in bytes { name.unicodeScalars.append(Unicode.Scalar(b >= 0x61 && b <= 0x7A ? b - 0x20 : b)) }
            }
            variables.append(name + "=" + value)
        }

        mutating func field(_ field: EventField, _ value: String?) { if let value { set(field, value) } }
        mutating func field(_ field: EventField, integer value: Int) { set(field, String(value)) }
        mutating func field(_ field: EventField, number value: Double?) {
            if let value { set(field, JSONText.number(value, style: .shortest)) }
        }
        mutating func field(_ field: EventField, bool value: Bool) { if value { set(field, "1") } }
        mutating func field(_ field: EventField, time value: Timestamp) { set(field, value.text()) }
        mutating func field(_ field: EventField, point value: Point) {}
        mutating func field(_ field: EventField, x: Double, y: Double, z: Double) {}
        mutating func options(of handler: HandlerBinding) {}
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
