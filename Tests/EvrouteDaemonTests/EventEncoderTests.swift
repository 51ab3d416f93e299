import Testing
@testable import EvrouteDaemon
import EvrouteCore
import EvrouteJSON
import EvrouteRuntime
import EvrouteSystem

/// The one event encoder through the daemon's writers: the exec environment, the plugins'
/// wire format, the log's line and the one formatter of times (the JSON fields' order alone is
/// the core's, in EvrouteCoreTests).
@Suite("Event encoder")
struct EventEncoderTests {
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

    func fields(_ e: RoutedEvent, taken: Bool = true, _ encoding: EventEncoding) throws -> [String] {
        let handler = try #require(e.layout.handlers.first { $0.plugin == "shell" })
        var r = Recorder()
        let button = try #require(e.layout.region(path: "home/root/button"))
        EventEncoder.encode(e, handledBy: taken ? .region(button) : nil, handler: taken ? handler : nil, as: encoding, into: &r)
        return r.fields
    }

    func layout() throws -> Layout {
        try pluginLayout(PluginSpec(name: "shell", type: .exec), buttonOn: [.key, .motion],
                         handlerOptions: ["page": .number(2)])
    }

    /// The button's region index.
    var b: Int { get throws { try #require(try layout().region(path: "home/root/button")) } }

    @Test func theEnvironmentHasOnlyFieldsWithAValueAndAGesturesStateAsItsPhase() throws {
        let layout = try layout()
        let gesture = RoutedEvent(kind: .gesture(name: "swipe", state: "recognized"), time: .zero, layout: layout,
                                  start: .region(try b), region: try b)
        let f = try fields(gesture, .environment)
        #expect(f.prefix(3) == ["type=gesture", "gesture=swipe", "phase=recognized"])
        #expect(!f.contains { $0.hasPrefix("state=") || $0 == "options" })
        #expect(f.suffix(5) == ["region=home/root/button", "device=nil", "handled_by=home/root/button", "handler=shell", "time=@0"])
        // The environment's writer: a field without a value is no variable.
        var env = EventEnvironment.Fields()
        EventEncoder.encode(gesture, handledBy: .region(try b), handler: layout.handlers.first { $0.plugin == "shell" },
                            as: .environment, into: &env)
        #expect(env.variables == ["EVROUTE_TYPE=gesture", "EVROUTE_GESTURE=swipe", "EVROUTE_PHASE=recognized",
                                  "EVROUTE_REGION=home/root/button", "EVROUTE_HANDLED_BY=home/root/button",
                                  "EVROUTE_HANDLER=shell", "EVROUTE_TIME=0.000000"])
    }

    @Test func theLineSaysWhatHappenedThenWhere() throws {
        let layout = try layout()
        let action = RoutedEvent(kind: .action("open"), time: .zero, layout: layout)
        #expect(try fields(action, .line) == ["type=action", "action=open", "region=-"])
        let key = RoutedEvent(kind: .key(name: "KEY_A", phase: .up), time: .zero, layout: layout)
        #expect(try fields(key, .line) == ["device=nil", "type=key", "key=KEY_A", "phase=up", "region=(no first responder)"])
        // The log's head of it: typing keys hidden unless they may be named.
        let handler = try #require(layout.handlers.first { $0.plugin == "shell" })
        #expect(LogPlugin.describe(key, responder: .region(try b), handler: handler).hasPrefix("key KEY_*** up "))
        #expect(LogPlugin.describe(key, responder: .region(try b), handler: handler, showKeys: true).hasPrefix("key KEY_A up "))
    }

    @Test func thePluginsWireFormatIsTheJSONObjectWithItsIDLast() throws {
        let layout = try layout()
        let e = RoutedEvent(kind: .action("open"), time: Timestamp(microseconds: 2_000_001), layout: layout, start: .region(try b), region: try b)
        let handler = try #require(layout.handlers.first { $0.plugin == "shell" })
        // A frame's lines are written one after the other into the buffer they leave in.
        var frame = JSONWriter()
        PluginEventJSON.appendLine(for: e, handler: handler, responder: .region(try b), id: 9, to: &frame)
        PluginEventJSON.appendLine(for: e, handler: handler, responder: .region(try b), id: 10, to: &frame)
        let line = #"{"type":"action","time":2.000001,"action":"open","region":"home/root/button","handled_by":"home/root/button","handler":"shell","options":{"page":2},"id":"#
        #expect(String(decoding: frame.bytes, as: UTF8.self) == line + "9}\n" + line + "10}\n")
    }

    /// `idle` and `active` through every rendering: the JSON object, the exec
    /// environment, the plugins' wire format, the line (`display main idle`) and the log's head.
    @Test func idleAndActiveInEveryRendering() throws {
        let layout = try layout()
        let home = try #require(layout.screen(named: "home"))
        let idle = RoutedEvent(kind: .idle, time: Timestamp(microseconds: 121_080_000), layout: layout, display: 0, start: .screen(home))
        let handler = try #require(layout.handlers.first { $0.plugin == "shell" })
        var r = Recorder()
        EventEncoder.encode(idle, handledBy: .screen(home), handler: handler, as: .json, into: &r)
        #expect(r.fields == ["type=idle", "time=@121080000", "display=main", "handled_by=screen:home", "handler=shell", "options"])
        var env = EventEnvironment.Fields()
        EventEncoder.encode(idle, handledBy: .screen(home), handler: handler, as: .environment, into: &env)
        #expect(env.variables == ["EVROUTE_TYPE=idle", "EVROUTE_DISPLAY=main", "EVROUTE_HANDLED_BY=screen:home",
                                  "EVROUTE_HANDLER=shell", "EVROUTE_TIME=121.080000"])
        let active = RoutedEvent(kind: .active, time: Timestamp(microseconds: 300_000_000), layout: layout, display: 0, start: .screen(home))
        var wire = JSONWriter()
        PluginEventJSON.appendLine(for: active, handler: handler, responder: .screen(home), id: 3, to: &wire)
        let line = String(decoding: wire.bytes, as: UTF8.self)
        #expect(line == #"{"type":"active","time":300.0,"display":"main","handled_by":"screen:home","handler":"shell","options":{"page":2},"id":3}"# + "\n")
        #expect(try fields(idle, .line) == ["type=display", "display=main", "state=idle", "region=-"])
        #expect(LogPlugin.describe(active, responder: .screen(home), handler: handler).hasPrefix("display main active "))
    }

    /// The log's time (kept written from second to second) is the one formatter's text.
    @Test func theLogsTimeIsTheOneFormattersText() {
        var seconds = SecondsText()
        let times: [Int64] = [0, 1, 999_999, 1_000_000, 1_500_000, 1_500_010, 1_508_125_000, 3_600_000_000_001, -1, -1_500_000]
        for us in times {
            let t = Timestamp(microseconds: us)
            var log: [UInt8] = [], one: [UInt8] = []
            log.append(addingCapacity: SecondsText.maximumLength) { text in
                text.withBytes(maximum: SecondsText.maximumLength) { seconds.write(t, to: &$0) }
            }
            one.append(addingCapacity: TimestampText.maximumLength) { TimestampText.seconds(t, to: &$0) }
            #expect(log == one, "\(us)")
        }
        #expect(Timestamp(microseconds: 1_508_125_000).text() == "1508.125000")
        #expect(Timestamp(microseconds: 1_508_125_999).text(decimals: 3) == "1508.125")
        #expect(Timestamp(microseconds: -1_500_000).text() == "-1.500000")
        #expect(Timestamp(microseconds: 7).text() == "0.000007")
    }
}
