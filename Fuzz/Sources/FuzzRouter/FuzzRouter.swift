import FuzzSupport
import EvrouteConfig
import EvrouteDaemon
import EvrouteCore

/// The router as a state machine, from the bytes, 4 per step (operation, argument, x, y): touches
/// (down, move, up, cancelled by their device) over 4 contacts of 2 touchscreens, keys, presents,
/// dismisses, focus, region changes (hide/show, disable/enable, frame, children removed), a
/// device unplugged and plugged in again, reloads and time passing. Every touch lives once, by
/// its id (``TouchLifecycle``): it begins once, nothing of it is routed after its end, and it
/// has ended (or been cancelled) once its device is gone.
///
/// Each step: byte 0 the operation (`% 12`: 0, 1 a contact down or moving, 2 up, 3 cancelled;
/// 4 Enter down or up; 5 present admin or home, or dismiss; 6 focus or resign; 7 hide or show;
/// 8 disable or enable; 9 a region's frame, or its children removed; 10 the device re-plugged;
/// 11 a reload, or 1 to 4 s passing), byte 1 the argument (the contact `% 4`, the device by bit 2,
/// the time since the last step `1 + a % 40` ms, the variant by its parity), bytes 2 and 3 the
/// point (× 5.2, × 3.2: the 1280×800 display and a little beyond); the region of a region
/// operation is the current layout's region number `argument + x byte`, modulo their count.
let layouts = [FuzzLayouts.kiosk, FuzzLayouts.demo].map { try! ConfigLoader.compile(yaml: $0, file: "fuzz.yaml", pluginTypes: PluginTypes.all).layout }

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let router = Router(layout: layouts[0])
    let lifecycle = TouchLifecycle()
    router.observer = lifecycle
    let devices = [DeviceID(1), DeviceID(2)]
    var time = Timestamp(microseconds: 1_000_000)
    func plug(_ device: DeviceID) {
        router.addDevice(DeviceInfo(id: device, ruleName: "touch", name: "fuzz \(device.rawValue)", kind: .touchscreen,
                                    display: router.layout.displays[0].name), time: time)
    }
    for device in devices { plug(device) }
    /// The contacts down, per device, as the fuzzer sent them.
    var down: [DeviceID: Set<Int>] = [:]
    var i = 0
    while i + 4 <= size {
        let op = data[i] % 12, a = Int(data[i + 1]), x = Double(data[i + 2]) * 5.2, y = Double(data[i + 3]) * 3.2
        i += 4
        time = time + .milliseconds(Int64(1 + a % 40))
        router.advanceTime(to: time)
        let device = devices[(a >> 2) & 1], contact = a % 4
        let regions = router.layout.regions
        let region = regions[(a + Int(data[i - 2])) % regions.count].path
        switch op {
        case 0, 1, 2, 3:
            let isDown = down[device, default: []].contains(contact)
            let change: ContactChange = !isDown ? .began : op == 2 ? .ended : op == 3 ? .cancelled : .moved
            if change == .began { down[device, default: []].insert(contact) }
            if change == .ended || change == .cancelled { down[device]?.remove(contact) }
            router.handle(TouchFrameInput(device: device, time: time, contacts: [ContactSample(contact: contact, change: change, location: Point(x: x, y: y))]))
        case 4:
            router.handle(KeyInput(device: device, time: time, code: 28, name: "KEY_ENTER", phase: a % 2 == 0 ? .down : .up))
        case 5:
            try? router.apply(a % 3 == 0 ? .dismiss(display: nil) : .present(screen: a % 3 == 1 ? "admin" : "home"), time: time)
        case 6:
            try? router.apply(a % 2 == 0 ? .focus(region: region) : .resign(display: nil), time: time)
        case 7:
            try? router.apply(a % 2 == 0 ? .hide(region: region) : .show(region: region), time: time)
        case 8:
            try? router.apply(a % 2 == 0 ? .disable(region: region) : .enable(region: region), time: time)
        case 9:
            let change: LayoutChange = a % 2 == 0 ? .frame(region: region, Rect(x: x, y: y, width: Double(a) * 4, height: Double(a) * 2))
                                                  : .children(region: region, [])
            try? router.apply(change, time: time)
        case 10:
            router.removeDevice(device, time: time)
            down[device] = nil
            plug(device)
        default:
            if a % 2 == 0 {
                router.replaceLayout(layouts[a / 2 % layouts.count], time: time)
            } else {
                time = time + .seconds(Double(1 + a % 4))   // long presses, multi-tap intervals run out
                router.advanceTime(to: time)
            }
        }
    }
    for device in devices { router.removeDevice(device, time: time + .seconds(1)) }
    router.advanceTime(to: time + .seconds(10))
    lifecycle.finish()
    return 0
}

/// SwiftPM links an executable's entry as `<target>_main`: libFuzzer's driver takes it from here.
@_cdecl("FuzzRouter_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv) { data, size in fuzzOne(data, size) }
}
