import EvrouteCore
import EvrouteSystem

/// The `EVROUTE_*` variables an `exec` command gets for an event. Only the variables that
/// apply to the event are set (no `EVROUTE_X` for a key).
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
                set("X", LogPlugin.number(t.location.x))
                set("Y", LogPlugin.number(t.location.y))
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
        return v
    }
}
