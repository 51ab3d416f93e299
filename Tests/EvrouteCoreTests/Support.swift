@testable import EvrouteCore

/// Builds region specs tersely.
func region(_ name: String, _ x: Double, _ y: Double, _ w: Double, _ h: Double,
            _ children: [RegionSpec] = [], handlers: [HandlerSpec] = [],
            configure: (inout RegionSpec) -> Void = { _ in }) -> RegionSpec {
    var r = RegionSpec(name: name, frame: Rect(x: x, y: y, width: w, height: h), regions: children, handlers: handlers)
    configure(&r)
    return r
}

func handler(_ plugin: String, _ on: EventFilter..., options: [String: ConfigValue] = [:]) -> HandlerSpec {
    HandlerSpec(plugin: plugin, on: on, options: options)
}

/// One display `main` 1000×1000, the given screens, plugin `p` (exec) declared.
func makeLayout(_ screens: [ScreenSpec], app: [HandlerSpec] = [], fallback: [HandlerSpec] = [],
                devices: [DeviceRouteSpec] = []) throws -> Layout {
    try Layout.compile(LayoutSpec(displays: [DisplaySpec(name: "main", size: Size(width: 1000, height: 1000))],
                                  devices: devices,
                                  plugins: [PluginSpec(name: "p", type: .exec), PluginSpec(name: "q", type: .exec)],
                                  screens: screens, applicationHandlers: app, fallbackHandlers: fallback))
}

func screen(_ name: String, _ root: RegionSpec, handlers: [HandlerSpec] = [], over: String? = nil) -> ScreenSpec {
    ScreenSpec(name: name, display: "main", handlers: handlers, root: root, presentedOver: over)
}

/// Records every decision, with the fields tests look at.
final class Trace: RouteObserver {
    struct Entry: Equatable {
        var kind: String
        var touch: Int?
        var phase: String?
        var region: String?
        var handledBy: String?
        var handler: String?
        var blocked: TouchBlock?
        var tapCount: Int?
    }
    var entries: [Entry] = []
    var records: [RouteRecord] = []

    func record(_ record: RouteRecord) {
        records.append(record)
        switch record {
        case .routed(let e, let by, let h):
            var entry = Entry(kind: "", region: e.regionPath, handledBy: by.map { e.layout.describe($0) }, handler: h?.plugin)
            EventEncoder.encode(e, handledBy: by, handler: h, as: .json, into: &entry)
            entries.append(entry)
        case .focus(_, let r, let layout, _):
            entries.append(Entry(kind: "focus", region: r.map { layout.regions[$0].path }))
        case .presentation(let s, _, let presented, let layout, _):
            entries.append(Entry(kind: presented ? "present" : "dismiss", region: layout.screens[s].name))
        default: break
        }
    }

    var touchEntries: [Entry] { entries.filter { $0.kind == "touch" } }
}

/// An entry from the encoder's fields: the kind is the type, with the key, action, gesture, text
/// or orientation after a colon (a shake is `shake`); the phase a gesture's state too.
extension Trace.Entry: EventFieldWriter {
    mutating func field(_ field: EventField, _ value: String?) {
        switch field {
        case .type: kind = value ?? ""
        case .key, .action, .gesture, .text, .orientation: kind += ":" + (value ?? "")
        case .motion: kind = value ?? kind
        case .phase, .state: phase = value
        case .blocked: blocked = value.flatMap(TouchBlock.init(rawValue:))
        default: break
        }
    }
    mutating func field(_ field: EventField, integer value: Int) {
        switch field {
        case .touch: touch = value
        case .tapCount: tapCount = value
        default: break
        }
    }
    mutating func field(_ field: EventField, number value: Double?) {}
    mutating func field(_ field: EventField, bool value: Bool) {}
    mutating func field(_ field: EventField, time value: Timestamp) {}
    mutating func field(_ field: EventField, point value: Point) {}
    mutating func field(_ field: EventField, x: Double, y: Double, z: Double) {}
    mutating func options(of handler: HandlerBinding) {}
}

/// A router over `layout` with one touchscreen (device 1) and one keyboard (device 2).
func makeRouter(_ layout: Layout) -> (Router, Trace) {
    let router = Router(layout: layout)
    let trace = Trace()
    router.observer = trace
    router.addDevice(DeviceInfo(id: DeviceID(1), ruleName: "touch", name: "ts", kind: .touchscreen, display: "main"), time: .zero)
    router.addDevice(DeviceInfo(id: DeviceID(2), ruleName: "keys", name: "kb", kind: .keyboard, display: "main"), time: .zero)
    return (router, trace)
}

extension Router {
    func touch(_ contact: Int, _ change: ContactChange, _ x: Double, _ y: Double, at ms: Int64, device: Int = 1) {
        handle(TouchFrameInput(device: DeviceID(device), time: Timestamp(microseconds: ms * 1000),
                               contacts: [ContactSample(contact: contact, change: change, location: Point(x: x, y: y))]))
    }

    func key(_ name: String, _ code: Int, _ phase: KeyPhase, at ms: Int64, device: Int = 2) {
        handle(KeyInput(device: DeviceID(device), time: Timestamp(microseconds: ms * 1000), code: code, name: name, phase: phase))
    }
}

/// The core knows no hosted plugin type: these tests compile with two of their own, named like
/// the daemon's (`exec` with no checks, `log` with a built-in instance).
extension PluginKind {
    static let exec: PluginKind = "exec"
    static let log: PluginKind = "log"
    static let forward: PluginKind = "forward"
}

let stubPluginTypes = PluginTypeTable(hosted: [.log, .exec], builtInInstances: [.log])

/// ``stubPluginTypes`` and a forwarding type, `forward` (its handlers forward; no other check).
let forwardingPluginTypes = PluginTypeTable(hosted: [.log, .exec, .forward], builtInInstances: [.log],
                                            checkHandler: { _, type, _, _ in HandlerCheckResult(forwards: type == .forward) })

extension Layout {
    /// Compiles with ``stubPluginTypes`` and the tests' key names (``testKeyNames``).
    static func compile(_ spec: LayoutSpec) throws(Diagnostics) -> Layout {
        try compile(spec, pluginTypes: stubPluginTypes, keyNames: testKeyNames)
    }
}
