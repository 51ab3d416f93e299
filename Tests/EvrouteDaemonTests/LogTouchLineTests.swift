import Testing
import EvrouteChecks
@testable import EvrouteDaemon
import EvrouteCore
import EvrouteSystem
import EvrouteTestSupport

/// The log's line of a touch phase, written in one reservation from the encoder's fields
/// (``TouchLineHead``), is the line every other event gets through ``LogLineHead``
/// (``LogPlugin/describe(_:responder:handler:showKeys:)``), byte for byte.
@Suite struct LogTouchLineTests {
    /// Keeps every routed touch phase with the responder and handler that took it.
    final class Routed: RouteObserver {
        var events: [(RoutedEvent, ResponderID, HandlerBinding)] = []
        func record(_ record: RouteRecord) {
            guard case .routed(let e, let by?, let handler?) = record, case .touch = e.kind else { return }
            events.append((e, by, handler))
        }
    }

    @Test func aTouchPhasesLineIsTheEncodersLineHeadThenItsTail() throws {
        let rig = try PluginRig(try pluginLayout(PluginSpec(name: "button-log", type: .log)))
        let routed = Routed()
        rig.router.observer = routed
        // Locations whose text takes every form: whole, halves, thousandths rounded, 0, the
        // frame's far edge; moves and several contacts at once.
        let places: [Point] = [Point(x: 150, y: 96), Point(x: 412.5, y: 389.5894), Point(x: 0, y: 0.0004),
                               Point(x: 999.9995, y: 100.25), Point(x: 123.001, y: 700.0006)]
        var time: Int64 = 2_000_000
        for (i, p) in places.enumerated() {
            let contact = 10 + i
            time += 8_000
            rig.router.handle(TouchFrameInput(device: DeviceID(1), time: Timestamp(microseconds: time),
                                              contacts: [ContactSample(contact: contact, change: .began, location: p)]))
            time += 1_000_001
            rig.router.handle(TouchFrameInput(device: DeviceID(1), time: Timestamp(microseconds: time),
                                              contacts: [ContactSample(contact: contact, change: .moved,
                                                                       location: Point(x: p.x + 0.125, y: p.y + 3))]))
        }
        time += 10
        rig.router.handle(TouchFrameInput(device: DeviceID(1), time: Timestamp(microseconds: time),
                                          contacts: (0..<places.count).map { ContactSample(contact: 10 + $0, change: .ended, location: places[$0]) }))
        rig.host.writeFrame()
        let prefix = "evroute: info: "
        let lines = rig.logText.split(separator: "\n").map(String.init).filter { $0.hasPrefix(prefix + "touch ") }
        let logged = routed.events   // every handler here is a log
        expectEqual(logged.count, places.count * 3)
        expectEqual(lines.count, logged.count)
        for (line, (e, responder, handler)) in zip(lines, logged) {
            let expected = LogPlugin.describe(e, responder: responder, handler: handler)
            expectEqual(line, prefix + expected)
            guard case .touch(let phase, _) = e.kind else { continue }
            expect(expected.hasPrefix("touch \(e.touch!.id) \(phase.rawValue) ("))
        }
    }
}
