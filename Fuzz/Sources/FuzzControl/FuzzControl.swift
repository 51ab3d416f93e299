import FuzzSupport
import EvrouteConfig
import EvrouteDaemon
import EvrouteCore
import EvrouteJSON
import EvrouteRuntime

/// Any bytes as control request lines (the control socket's and plugin peers' commands), one
/// JSON request a line, answered in turn on a real layout (kiosk.yaml) with touches down (one
/// of them in the exclusive video region), a key held and the search field focused. Every
/// answer says `"ok"`, a refusal with its error; a request refused (and `state`) changes
/// nothing the control layer can change: the router's state (presentation stacks, first
/// responders, changed regions: `ctl state`), its layout, the touches in flight, what it
/// routed and told its observer. Every touch lives once (``TouchLifecycle``).
let layout = try! ConfigLoader.compile(yaml: FuzzLayouts.kiosk, file: "kiosk.yaml", pluginTypes: PluginTypes.all).layout

/// What a request could change.
struct Observable: Equatable {
    var state: String
    var layout: ObjectIdentifier
    /// Each touch in flight: id, phase, bound region, the layout it is bound in.
    var touches: [String]
    var records: Int
    var touchesBegan: Int
    var counts: RouteCounts

    init(_ session: RoutingSession, _ control: RuntimeControl, _ lifecycle: TouchLifecycle) {
        state = control.state().serialized
        layout = ObjectIdentifier(session.router.layout)
        touches = session.router.activeTouches.map { t in
            "\(t.id) \(t.phase) \(t.region.map(String.init) ?? "-") \(ObjectIdentifier(t.layout).hashValue)"
        }.sorted()
        records = lifecycle.otherRecords
        touchesBegan = lifecycle.began
        counts = session.router.routeCounts
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let session = RoutingSession(layout: layout)
    let lifecycle = TouchLifecycle()
    session.router.observer = lifecycle
    let control = RuntimeControl(session: session, now: { session.now })
    let router = session.router, touch = DeviceID(1), keys = DeviceID(2)
    var time = Timestamp(microseconds: 1_000_000)
    router.addDevice(DeviceInfo(id: touch, ruleName: "touch", name: "fuzz touch", kind: .touchscreen, display: "panel"), time: time)
    router.addDevice(DeviceInfo(id: keys, ruleName: "keys", name: "fuzz keys", kind: .keyboard, display: "panel"), time: time)
    try! router.apply(.focus(region: "home/root/header/search"), time: time)
    // Fingers on the video (exclusive), the volume slider and the header; a key held.
    let points = [Point(x: 100, y: 200), Point(x: 900, y: 160), Point(x: 600, y: 50)]
    router.handle(TouchFrameInput(device: touch, time: time, contacts: points.indices.map {
        ContactSample(contact: $0, change: .began, location: points[$0])
    }))
    router.handle(KeyInput(device: keys, time: time, code: 30, name: "KEY_A", phase: .down))

    let bytes = UnsafeBufferPointer(start: data, count: size)
    for line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true) {
        guard let request = try? JSONValue.parse(utf8: line) else { continue }
        _ = request.serialized
        time = time + .milliseconds(10)
        session.advanceTime(to: time)
        let before = Observable(session, control, lifecycle)
        guard let answer = control.answer(request) else {
            precondition(!RuntimeControl.commands.contains(request["command"]?.stringValue ?? ""), "no answer to \(request.serialized)")
            continue
        }
        guard case .bool(let ok)? = answer["ok"] else { fatalError("an answer without \"ok\": \(answer.serialized)") }
        if let tag = request["tag"] { precondition(answer["tag"] == tag, "the tag not echoed: \(answer.serialized)") }
        if !ok { precondition(!(answer["error"]?.stringValue ?? "").isEmpty, "a refusal without its error: \(answer.serialized)") }
        if !ok || request["command"]?.stringValue == "state" {
            let after = Observable(session, control, lifecycle)
            precondition(after == before, "\(request.serialized) was refused (\(answer.serialized)) but changed \(before) to \(after)")
        }
        // Touches on go: a finger moves (and lifts, and lands again) between requests.
        let contact = Int(time.microseconds / 10_000 % 3)
        router.handle(TouchFrameInput(device: touch, time: time, contacts: [
            ContactSample(contact: contact, change: .moved, location: Point(x: points[contact].x + 5, y: points[contact].y + 5)),
        ]))
    }
    router.handle(KeyInput(device: keys, time: time, code: 30, name: "KEY_A", phase: .up))
    router.removeDevice(touch, time: time + .seconds(1))
    router.removeDevice(keys, time: time + .seconds(1))
    session.advanceTime(to: time + .seconds(10))
    lifecycle.finish()
    return 0
}

/// SwiftPM links an executable's entry as `<target>_main`: libFuzzer's driver takes it from here.
@_cdecl("FuzzControl_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv) { data, size in fuzzOne(data, size) }
}
