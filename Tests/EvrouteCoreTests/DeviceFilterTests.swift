import Testing
import EvrouteChecks
@testable import EvrouteCore

/// Handlers that filter by device (`devices:`): a handler takes only events of the
/// devices of the rules it names; every other event passes it by as if it were not there.
@Suite("Handlers filtered by device")
struct DeviceFilterTests {
    func filtered(_ h: HandlerSpec, _ rules: [String]) -> HandlerSpec {
        var h = h
        h.devices = rules
        return h
    }

    /// One region taking touches and text twice: first only the `pen` rule's (touches) and
    /// the `scanner` rule's (text), then everything; the fallback logs the rest.
    func layout() throws -> Layout {
        try makeLayout([screen("home", region("root", 0, 0, 1000, 1000, [
            region("field", 0, 0, 500, 500, handlers: [
                filtered(handler("p", .touch), ["pen"]),
                filtered(handler("q", .text), ["scanner"]),
            ]) { $0.focusable = true },
        ]))], fallback: [handler("log", .any)],
           devices: ["touch", "keys", "pen", "scanner"].map { DeviceRouteSpec(name: $0) })
    }

    func router() throws -> (Router, Trace) {
        let (r, t) = makeRouter(try layout())
        r.addDevice(DeviceInfo(id: DeviceID(3), ruleName: "pen", name: "pen", kind: .touchscreen, display: "main"), time: .zero)
        r.addDevice(DeviceInfo(id: DeviceID(4), ruleName: "scanner", name: "sc", kind: .keyboard, display: "main"), time: .zero)
        return (r, t)
    }

    @Test func textOfOtherDevicesPassesTheHandlerBy() throws {
        let (r, t) = try router()
        r.setFirstResponder(r.layout.region(path: "home/root/field"))
        r.handle(TextInput(device: DeviceID(4), time: Timestamp(microseconds: 1000), text: "4711"))
        r.handle(TextInput(device: DeviceID(2), time: Timestamp(microseconds: 2000), text: "root"))
        let texts = t.entries.filter { $0.kind.hasPrefix("text:") }
        expectEqual(texts.map(\.kind), ["text:4711", "text:root"])
        expectEqual(texts.map(\.handler), ["q", "log"])
        expectEqual(texts.map(\.handledBy), ["home/root/field", "fallback"])
    }

    /// Every phase of a touch, its moves (whose first taker is remembered) included, goes by
    /// its own device: the pen's to `p`, the finger's past it.
    @Test func eachTouchIsRoutedByItsOwnDeviceMovesToo() throws {
        let (r, t) = try router()
        r.touch(0, .began, 10, 10, at: 0, device: 1)
        r.touch(0, .began, 20, 20, at: 0, device: 3)
        for i in 1...3 {
            r.touch(0, .moved, 10 + Double(i), 10, at: Int64(i), device: 1)
            r.touch(0, .moved, 20 + Double(i), 20, at: Int64(i), device: 3)
        }
        r.touch(0, .ended, 14, 10, at: 5, device: 1)
        r.touch(0, .ended, 24, 20, at: 5, device: 3)
        let byTouch = Dictionary(grouping: t.touchEntries, by: { $0.touch ?? 0 })
        expectEqual(byTouch[1]?.map(\.handler), ["log", "log", "log", "log", "log"])
        expectEqual(byTouch[2]?.map(\.handler), ["p", "p", "p", "p", "p"])
    }

    /// A device registered again under another rule (a reload that renames its rule) changes
    /// which handlers its touch's moves may reach: the remembered taker is not reused.
    @Test func aDeviceRegisteredUnderAnotherRuleIsNotServedFromTheCache() throws {
        let (r, t) = try router()
        r.touch(0, .began, 10, 10, at: 0, device: 3)
        r.touch(0, .moved, 11, 10, at: 1, device: 3)
        r.addDevice(DeviceInfo(id: DeviceID(3), ruleName: "touch", name: "pen", kind: .touchscreen, display: "main"), time: Timestamp(microseconds: 1500))
        r.touch(0, .moved, 12, 10, at: 2, device: 3)
        expectEqual(t.touchEntries.map(\.handler), ["p", "p", "log"])
    }

    @Test func eventsOfNoDeviceAndHandlersWithoutDevices() throws {
        let l = try layout()
        let pen = l.handlers.first { $0.plugin == "p" }!
        expectEqual(pen.devices, ["pen"])
        expect(!pen.accepts(device: nil))
        expect(pen.accepts(device: DeviceInfo(id: DeviceID(9), ruleName: "pen", name: "x", kind: .touchscreen, display: "main")))
        expect(!pen.accepts(device: DeviceInfo(id: DeviceID(9), ruleName: "touch", name: "x", kind: .touchscreen, display: "main")))
        let log = l.handlers.first { $0.plugin == "log" }!
        expect(log.devices == nil && log.accepts(device: nil))
    }
}
