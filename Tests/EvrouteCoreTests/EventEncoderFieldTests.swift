import Testing
import EvrouteChecks
import EvrouteCore

/// The one event encoder's fields and their order in each encoding, as any writer receives them
/// (the writers that render them — the log, the exec environment, the plugins' wire format — are
/// the daemon's, tested there on the same events).
@Suite("Event encoder fields")
struct EventEncoderFieldTests {
    /// Records the fields as `name=value`, in order.
    struct Recorder: EventFieldWriter {
        var fields: [String] = []
        mutating func add(_ field: EventField, _ value: String) { fields.append("\(field.name)=\(value)") }
        mutating func field(_ field: EventField, _ value: String?) { add(field, value ?? "nil") }
        mutating func field(_ field: EventField, integer value: Int) { add(field, String(value)) }
        mutating func field(_ field: EventField, number value: Double?) { add(field, value.map { "\($0)" } ?? "nil") }
        mutating func field(_ field: EventField, bool value: Bool) { add(field, String(value)) }
        mutating func field(_ field: EventField, time value: Timestamp) { add(field, "@\(value.microseconds)") }
        mutating func field(_ field: EventField, point value: Point) { add(field, "(\(value.x),\(value.y))") }
        mutating func field(_ field: EventField, x: Double, y: Double, z: Double) { add(field, "(\(x),\(y),\(z))") }
        mutating func options(of handler: HandlerBinding) { fields.append("options") }
    }

    /// A button bound to an `exec` handler `shell` (keys and motion, options `page: 2`) in a root
    /// region bound to the built-in `log`.
    func layout() throws -> Layout {
        let button = RegionSpec(name: "button", frame: Rect(x: 0, y: 0, width: 100, height: 100),
                                handlers: [HandlerSpec(plugin: "shell", on: [.key, .motion], options: ["page": .number(2)])])
        let root = RegionSpec(name: "root", frame: Rect(x: 0, y: 0, width: 1000, height: 1000), regions: [button],
                              handlers: [HandlerSpec(plugin: "after", on: [.touch])])
        return try Layout.compile(LayoutSpec(
            displays: [DisplaySpec(name: "main", size: Size(width: 1000, height: 1000))],
            plugins: [PluginSpec(name: "shell", type: .exec), PluginSpec(name: "after", type: .log)],
            screens: [ScreenSpec(name: "home", display: "main", root: root)]))
    }

    func fields(_ e: RoutedEvent, taken: Bool = true, _ encoding: EventEncoding) throws -> [String] {
        let handler = try #require(e.layout.handlers.first { $0.plugin == "shell" })
        var r = Recorder()
        let button = try #require(e.layout.region(path: "home/root/button"))
        EventEncoder.encode(e, handledBy: taken ? .region(button) : nil, handler: taken ? handler : nil, as: encoding, into: &r)
        return r.fields
    }

    @Test func jsonHasEveryFieldOfTheKindInTheDocumentedOrder() throws {
        let layout = try layout()
        let b = try #require(layout.region(path: "home/root/button"))
        let key = RoutedEvent(kind: .key(name: "KEY_A", phase: .down), time: Timestamp(microseconds: 1_500_000), layout: layout,
                              start: .region(b), region: b)
        try expectEqual(try fields(key, .json), ["type=key", "time=@1500000", "device=nil", "key=KEY_A", "phase=down",
                                           "region=home/root/button", "handled_by=home/root/button", "handler=shell", "options"])
        // Not taken: no options, handled_by and handler null.
        try expectEqual(try fields(key, taken: false, .json).suffix(2), ["handled_by=nil", "handler=nil"])
        let sample = RoutedEvent(kind: .motion(.sample(x: 0, y: 1, z: -0.25)), time: .zero, layout: layout, start: .motion)
        try expectEqual(try fields(sample, .json), ["type=motion", "time=@0", "device=nil", "x=0.0", "y=1.0", "z=-0.25",
                                              "handled_by=home/root/button", "handler=shell", "options"])
    }

    @Test func theEnvironmentHasOnlyFieldsWithAValueAndAGesturesStateAsItsPhase() throws {
        let layout = try layout()
        let b = try #require(layout.region(path: "home/root/button"))
        let gesture = RoutedEvent(kind: .gesture(name: "swipe", state: "recognized"), time: .zero, layout: layout,
                                  start: .region(b), region: b)
        let f = try fields(gesture, .environment)
        expectEqual(f.prefix(3), ["type=gesture", "gesture=swipe", "phase=recognized"])
        expect(!f.contains { $0.hasPrefix("state=") || $0 == "options" })
        expectEqual(f.suffix(5), ["region=home/root/button", "device=nil", "handled_by=home/root/button", "handler=shell", "time=@0"])
    }

    @Test func theLineSaysWhatHappenedThenWhere() throws {
        let layout = try layout()
        let action = RoutedEvent(kind: .action("open"), time: .zero, layout: layout)
        try expectEqual(try fields(action, .line), ["type=action", "action=open", "region=-"])
        let key = RoutedEvent(kind: .key(name: "KEY_A", phase: .up), time: .zero, layout: layout)
        try expectEqual(try fields(key, .line), ["device=nil", "type=key", "key=KEY_A", "phase=up", "region=(no first responder)"])
    }

    /// `idle` as a JSON object's fields and as a line (`display main idle`).
    @Test func idleAsJSONAndAsALine() throws {
        let layout = try layout()
        let home = try #require(layout.screen(named: "home"))
        let idle = RoutedEvent(kind: .idle, time: Timestamp(microseconds: 121_080_000), layout: layout, display: 0, start: .screen(home))
        let handler = try #require(layout.handlers.first { $0.plugin == "shell" })
        var r = Recorder()
        EventEncoder.encode(idle, handledBy: .screen(home), handler: handler, as: .json, into: &r)
        expectEqual(r.fields, ["type=idle", "time=@121080000", "display=main", "handled_by=screen:home", "handler=shell", "options"])
        try expectEqual(try fields(idle, .line), ["type=display", "display=main", "state=idle", "region=-"])
    }
}
