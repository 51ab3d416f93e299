import Testing
import EvrouteChecks
@testable import EvrouteDaemon
import EvrouteCore
import EvrouteJSON
import EvrouteRuntime
import EvrouteSystem

/// The one event encoder through the daemon's writers: the exec environment, the plugins'
/// wire format, the log's line and the one formatter of times (the fields each encoding hands a
/// writer, and their order, are the core's, in EvrouteCoreTests).
@Suite("Event encoder")
struct EventEncoderTests {
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
        // The environment's writer: a field without a value is no variable.
        var env = EventEnvironment.Fields()
        EventEncoder.encode(gesture, handledBy: .region(try b), handler: layout.handlers.first { $0.plugin == "shell" },
                            as: .environment, into: &env)
        expectEqual(env.variables, ["EVROUTE_TYPE=gesture", "EVROUTE_GESTURE=swipe", "EVROUTE_PHASE=recognized",
                                  "EVROUTE_REGION=home/root/button", "EVROUTE_HANDLED_BY=home/root/button",
                                  "EVROUTE_HANDLER=shell", "EVROUTE_TIME=0.000000"])
    }

    @Test func theLogsLineHeadHidesTypingKeysUnlessTheyMayBeNamed() throws {
        let layout = try layout()
        let key = RoutedEvent(kind: .key(name: "KEY_A", phase: .up), time: .zero, layout: layout)
        let handler = try #require(layout.handlers.first { $0.plugin == "shell" })
        try expect(LogPlugin.describe(key, responder: .region(try b), handler: handler).hasPrefix("key KEY_*** up "))
        try expect(LogPlugin.describe(key, responder: .region(try b), handler: handler, showKeys: true).hasPrefix("key KEY_A up "))
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
        expectEqual(String(decoding: frame.bytes, as: UTF8.self), line + "9}\n" + line + "10}\n")
    }

    /// The lines a `socket` plugin writes with the layout's names encoded once are the bytes of
    /// the plain encoding, event after event, across a run-time rename (the same region index,
    /// another path), a hidden region (the indices after it move) and a reload (another layout,
    /// other names), coming back to the first layout (a touch that began in it), and across
    /// devices: no name is written from another layout's or device's text.
    @Test func linesWithTheNamesEncodedOnceFollowTheEventsLayoutAndDevice() throws {
        let first = try layout()
        let router = Router(layout: first)
        let b = try #require(first.region(path: "home/root/button"))
        // Renamed at run time: the button's index now names `home/root/knob`.
        try router.apply(.children(region: "home/root", [RegionSpec(name: "knob", frame: Rect(x: 0, y: 0, width: 100, height: 100),
                                                                    handlers: [HandlerSpec(plugin: "shell", on: [.key, .motion])])]),
                         time: .zero)
        let renamed = router.layout
        expectEqual(renamed.regions[b].path, "home/root/knob")
        // Another region before it: the same index is the new one.
        try router.apply(.children(region: "home/root", [RegionSpec(name: "first", frame: Rect(x: 0, y: 0, width: 10, height: 10)),
                                                         RegionSpec(name: "knob", frame: Rect(x: 0, y: 0, width: 100, height: 100),
                                                                    handlers: [HandlerSpec(plugin: "after", on: [.key])])]),
                         time: .zero)
        let shifted = router.layout
        try router.apply(.hide(region: "home/root/first"), time: .zero)
        let hidden = router.layout
        // A reload: another layout, another handler's name at the same index.
        let reloaded = try pluginLayout(PluginSpec(name: "panel", type: .exec), buttonOn: [.key, .motion])
        let keys = DeviceInfo(id: DeviceID(1), ruleName: "keys", name: "kbd", kind: .keyboard, display: "main")
        let scanner = DeviceInfo(id: DeviceID(2), ruleName: "scanner", name: "kb", kind: .keyboard, display: "main")
        // The same device, its rule renamed (as a reload matching it to another rule does).
        var pad = keys
        pad.ruleName = "pad"
        var lines = PluginEventJSON.Lines(capacity: 64)
        var id: UInt64 = 0
        for layout in [first, renamed, shifted, hidden, reloaded, first, reloaded, renamed] {
            for device in [keys, scanner, keys, pad, keys] {
                for region in [b, 0] {
                    let h = layout.handlers.first { $0.owner == .region(region) } ?? layout.handlers[layout.handlers.count - 1]
                    for responder in [ResponderID.region(region), .screen(0), .application] {
                        let e = RoutedEvent(kind: .key(name: "KEY_A", phase: .down), time: Timestamp(microseconds: Int64(id)), layout: layout,
                                            start: .region(region), region: region, device: device)
                        id += 1
                        var plain = JSONWriter()
                        PluginEventJSON.appendLine(for: e, handler: h, responder: responder, id: id, to: &plain)
                        lines.json.reset()
                        lines.append(e, handler: h, responder: responder, id: id)
                        expectEqual(String(decoding: lines.json.bytes, as: UTF8.self), String(decoding: plain.bytes, as: UTF8.self))
                    }
                }
            }
            expect(lines.fragments.layout === layout)
        }
        // The renamed region's line names it by its new path.
        let e = RoutedEvent(kind: .action("open"), time: .zero, layout: renamed, start: .region(b), region: b)
        lines.json.reset()
        lines.append(e, handler: try #require(renamed.handlers.first { $0.plugin == "shell" }), responder: .region(b), id: 1)
        expectEqual(String(decoding: lines.json.bytes, as: UTF8.self), #"{"type":"action","time":0.0,"action":"open","region":"home/root/knob","handled_by":"home/root/knob","handler":"shell","id":1}"# + "\n")
    }

    /// `idle` and `active` through the daemon's renderings: the exec environment, the plugins'
    /// wire format and the log's head (their fields as JSON and as a line: EvrouteCoreTests).
    @Test func idleAndActiveInTheDaemonsRenderings() throws {
        let layout = try layout()
        let home = try #require(layout.screen(named: "home"))
        let idle = RoutedEvent(kind: .idle, time: Timestamp(microseconds: 121_080_000), layout: layout, display: 0, start: .screen(home))
        let handler = try #require(layout.handlers.first { $0.plugin == "shell" })
        var env = EventEnvironment.Fields()
        EventEncoder.encode(idle, handledBy: .screen(home), handler: handler, as: .environment, into: &env)
        expectEqual(env.variables, ["EVROUTE_TYPE=idle", "EVROUTE_DISPLAY=main", "EVROUTE_HANDLED_BY=screen:home",
                                  "EVROUTE_HANDLER=shell", "EVROUTE_TIME=121.080000"])
        let active = RoutedEvent(kind: .active, time: Timestamp(microseconds: 300_000_000), layout: layout, display: 0, start: .screen(home))
        var wire = JSONWriter()
        PluginEventJSON.appendLine(for: active, handler: handler, responder: .screen(home), id: 3, to: &wire)
        let line = String(decoding: wire.bytes, as: UTF8.self)
        expectEqual(line, #"{"type":"active","time":300.0,"display":"main","handled_by":"screen:home","handler":"shell","options":{"page":2},"id":3}"# + "\n")
        expect(LogPlugin.describe(active, responder: .screen(home), handler: handler).hasPrefix("display main active "))
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
            expectEqual(log, one, "\(us)")
        }
        expectEqual(Timestamp(microseconds: 1_508_125_000).text(), "1508.125000")
        expectEqual(Timestamp(microseconds: 1_508_125_999).text(decimals: 3), "1508.125")
        expectEqual(Timestamp(microseconds: -1_500_000).text(), "-1.500000")
        expectEqual(Timestamp(microseconds: 7).text(), "0.000007")
    }
}
