#if canImport(Glibc)
import Glibc
#endif
import Testing
import EvrouteChecks
@testable import EvrouteDaemon
import EvrouteCore
import EvrouteSystem
import EvrouteTestSupport

/// Text events reach plugins: `socket` peers get the whole text in the docs/events.md line,
/// `exec` commands get `EVROUTE_TEXT`, and the `log` writes `text "***" (N chars)` unless keys may
/// be named.
@Suite("Text events and plugins")
struct TextPluginTests {
    static let scan = "4006381333931"

    /// A rig whose `button` takes text through `plugin`, focused, with a keyboard (device 2).
    func rig(_ plugin: PluginSpec, options: [String: ConfigValue] = [:]) throws -> PluginRig {
        let rig = try PluginRig(try pluginLayout(plugin, buttonOn: [.text], handlerOptions: options))
        rig.router.addDevice(DeviceInfo(id: DeviceID(2), ruleName: "scanner", name: "kb", kind: .keyboard, display: "main"), time: .zero)
        rig.router.setFirstResponder(rig.router.layout.region(path: "home/root/button"))
        return rig
    }

    func type(_ rig: PluginRig, _ text: String) {
        rig.router.handle(TextInput(device: DeviceID(2), time: Timestamp(microseconds: 2_000_000), text: text))
        rig.host.writeFrame()
    }

    @Test func socketPeersGetTheText() throws {
        let path = temporaryPath("ui.sock")
        let rig = try rig(PluginSpec(name: "ui", type: .socket, options: ["path": .string(path)]), options: ["field": .string("code")])
        let client = try socketClient(path, rig)
        expect(rig.run(upTo: 5) { rig.stats("ui")[gauge: .clients] == 1 })
        type(rig, Self.scan)
        type(rig, "Ä \"x\"")
        expect(rig.run(upTo: 5) { client.lines.count == 2 })
        expectEqual(client.lines.first, #"{"type":"text","time":2.0,"device":"scanner","text":"4006381333931","region":"home/root/button","handled_by":"home/root/button","handler":"ui","options":{"field":"code"},"id":1}"#)
        expectEqual(client.lines.last?.contains(#""text":"Ä \"x\"""#), true)
    }

    @Test func theLogHidesTextUnlessKeysMayBeNamed() throws {
        let hidden = try rig(PluginSpec(name: "textlog", type: .log))
        type(hidden, Self.scan)
        type(hidden, "é")
        hidden.run(for: 0.05)
        let log = hidden.logText
        expect(log.contains(#"text "***" (13 chars) home/root/button → home/root/button [textlog] device scanner"#), "\(log)")
        expect(log.contains(#"text "***" (1 char) "#), "\(log)")
        expect(!log.contains(Self.scan))
        let shown = try rig(PluginSpec(name: "textlog", type: .log), options: ["log-keys": .bool(true)])
        type(shown, Self.scan)
        shown.run(for: 0.05)
        expect(shown.logText.contains(#"text "4006381333931" home/root/button"#), "\(shown.logText)")
    }

    @Test func execCommandsGetEvrouteText() throws {
        let layout = try pluginLayout(PluginSpec(name: "shell", type: .exec), buttonOn: [.text])
        let handler = try #require(layout.handlers.first { $0.plugin == "shell" })
        let event = RoutedEvent(kind: .text, time: Timestamp(microseconds: 1), layout: layout, display: 0,
                                start: .region(1), region: 1, text: Self.scan)
        let vars = EventEnvironment.variables(for: PluginDelivery(event: event, handler: handler.index,
                                                                  responder: .region(1)), id: 7)
        expect(vars.contains("EVROUTE_TYPE=text"))
        expect(vars.contains("EVROUTE_TEXT=\(Self.scan)"))
        expect(!vars.contains { $0.hasPrefix("EVROUTE_KEY=") || $0.hasPrefix("EVROUTE_PHASE=") })
    }

    @Test func execCommandsGetMotion() throws {
        let layout = try pluginLayout(PluginSpec(name: "shell", type: .exec), buttonOn: [.motion])
        let handler = try #require(layout.handlers.first { $0.plugin == "shell" })
        func vars(_ values: MotionValues) -> [String] {
            let event = RoutedEvent(kind: .motion(values), time: Timestamp(microseconds: 1), layout: layout, display: 0, start: .motion)
            return EventEnvironment.variables(for: PluginDelivery(event: event, handler: handler.index, responder: .motion), id: 1)
        }
        let sample = vars(.sample(x: 0, y: 1, z: -0.25))
        expect(sample.contains("EVROUTE_TYPE=motion") && sample.contains("EVROUTE_Y=1") && sample.contains("EVROUTE_Z=-0.25"))
        expect(sample.contains("EVROUTE_HANDLED_BY=motion"))
        expect(vars(.orientation(.landscape)).contains("EVROUTE_ORIENTATION=landscape"))
        let shake = vars(.shake(.began))
        expect(shake.contains("EVROUTE_MOTION=shake") && shake.contains("EVROUTE_PHASE=began"))
        let line = LogPlugin.describe(RoutedEvent(kind: .motion(.shake(.ended)), time: .zero, layout: layout, start: .motion),
                                      responder: .motion, handler: handler)
        expect(line.hasPrefix("motion shake ended (no region) → motion [shell]"), "\(line)")
    }
}
