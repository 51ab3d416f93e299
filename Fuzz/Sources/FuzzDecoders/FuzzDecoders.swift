import FuzzSupport
import EvrouteConfig
import EvrouteDaemon
import EvrouteCore
import EvrouteInput
import EvrouteRuntime

/// Any bytes as the event streams of devices kiosk.yaml's rules take (``FuzzLayouts/kioskDevices()``:
/// a protocol-B touchscreen, read raw and through libevdev, a protocol-A one, a single-touch one
/// and a keyboard), through their decoders, the routing session and the router: every touch
/// lives once (``TouchLifecycle``), and every touch that began has ended once the devices are
/// gone.
///
/// The first byte's low bit picks the layout: 0 kiosk.yaml; 1 Fuzz/Layouts/stages.yaml, whose
/// rules take the same devices through every contact filter, with a display's idle (and its
/// swallowed wake touch), a forward handler and handlers limited to device rules (`devices:`),
/// so that those stages are fuzzed too. Then 8 bytes per event:
/// - 0: the device (`% 5`) and the time since the last event (`/ 5` ms; 51: two seconds, so
///   that long presses and multi-tap intervals run out);
/// - 1: the type (low 2 bits: `EV_SYN`, `EV_KEY`, `EV_ABS`, `EV_ABS`); with both high bits
///   set the device is unplugged and plugged in again instead (its touches cancelled);
/// - 2, 3: the code: one the device reports (byte 2 modulo their number; `EV_SYN`: 0…3),
///   or, with bit 7 of byte 3 set, any code (byte 2 and the low 2 bits of byte 3);
/// - 4…7: the value (little-endian); with bit 6 of byte 3 set, taken into the axis's range
///   (keys: 0, 1 or 2), so that contacts land on the screen.
let layouts = [(FuzzLayouts.kiosk, "kiosk.yaml"), (FuzzLayouts.stages, "stages.yaml")].map { yaml, file in
    try! ConfigLoader.compile(yaml: yaml, file: file, pluginTypes: PluginTypes.all).layout
}
let devices = FuzzLayouts.kioskDevices()
/// Per device and type: the codes it reports, in order.
let codes: [[UInt16: [UInt16]]] = devices.map { d in d.events.mapValues { $0.sorted() } }
/// The keyboard's keymap, compiled once for every input (a few milliseconds each time otherwise);
/// libFuzzer runs one input at a time, on one thread.
nonisolated(unsafe) let keymaps = KeymapLibrary()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data, size >= 1 else { return 0 }
    let layout = layouts[Int(data[0] & 1)]
    let session = RoutingSession(layout: layout, keymaps: keymaps)
    let lifecycle = TouchLifecycle()
    session.router.observer = lifecycle
    session.onDeviceIgnored = { _, d, _, why, _ in fatalError("the layout takes no \"\(d.name)\": \(why)") }
    let rules = DeviceRuleMatcher(rules: layout.deviceRules)
    var time = Timestamp(microseconds: 1_000_000)
    for (i, d) in devices.enumerated() { session.take(.added(DeviceID(i + 1), d, time), matching: rules) }
    precondition(session.activeDevices.count == devices.count, "not every device is routed")
    var i = 1
    while i + 8 <= size {
        let index = Int(data[i] % UInt8(devices.count)), device = DeviceID(index + 1)
        let ms = Int64(data[i] / UInt8(devices.count))
        time = time + (ms == 51 ? .seconds(2) : .milliseconds(ms))
        let selector = data[i + 1], codeByte = data[i + 2], flags = data[i + 3]
        let raw = Int32(bitPattern: UInt32(data[i + 4]) | UInt32(data[i + 5]) << 8 | UInt32(data[i + 6]) << 16 | UInt32(data[i + 7]) << 24)
        i += 8
        if selector & 0xc0 == 0xc0 {
            session.take(.removed(device, time), matching: rules)
            session.take(.added(device, devices[index], time), matching: rules)
            continue
        }
        let type: UInt16 = [EventType.syn, EventType.key, EventType.abs, EventType.abs][Int(selector & 3)]
        let code: UInt16
        if flags & 0x80 != 0 {
            code = UInt16(codeByte) | UInt16(flags & 0x03) << 8
        } else if type == EventType.syn {
            code = UInt16(codeByte % 4)
        } else if let known = codes[index][type], !known.isEmpty {
            code = known[Int(codeByte) % known.count]
        } else {
            code = UInt16(codeByte)
        }
        var value = raw
        if flags & 0x40 != 0 {
            if type == EventType.abs, let range = devices[index].absinfo[code] {
                let span = Int64(range.maximum) - Int64(range.minimum) + 1
                value = span > 0 ? Int32(Int64(range.minimum) + Int64(UInt32(bitPattern: raw)) % span) : range.minimum
            } else {
                value = Int32(UInt32(bitPattern: raw) % 3)
            }
        }
        session.take(.event(device, InputEvent(time: time, type: type, code: code, value: value)), matching: rules)
    }
    for d in devices.indices { session.take(.removed(DeviceID(d + 1), time + .seconds(1)), matching: rules) }
    session.advanceTime(to: time + .seconds(10))
    lifecycle.finish()
    return 0
}

/// SwiftPM links an executable's entry as `<target>_main`: libFuzzer's driver takes it from here.
@_cdecl("FuzzDecoders_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv) { data, size in fuzzOne(data, size) }
}
