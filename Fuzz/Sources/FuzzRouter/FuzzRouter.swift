import FuzzSupport
import EvrouteConfig
import EvrouteDaemon
import EvrouteCore

/// The router as a state machine: random touches (down, move, up over 4 contacts), keys,
/// presents, dismisses, hides and reloads, from the bytes. Every touch that begins ends exactly
/// once (ended or cancelled) by the time its device is gone.
let layouts = [FuzzLayouts.kiosk, FuzzLayouts.demo].map { try! ConfigLoader.compile(yaml: $0, file: "fuzz.yaml", pluginTypes: PluginTypes.all).layout }

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let router = Router(layout: layouts[0])
    let counter = TouchCounter()
    router.observer = counter
    let device = DeviceID(1)
    var time = Timestamp(microseconds: 1_000_000)
    router.addDevice(DeviceInfo(id: device, ruleName: "touch", name: "fuzz", kind: .touchscreen, display: layouts[0].displays[0].name), time: time)
    var down = Set<Int>()
    var i = 0
    while i + 4 <= size {
        let op = data[i] % 8, a = Int(data[i + 1]), x = Double(data[i + 2]) * 5.2, y = Double(data[i + 3]) * 3.2
        time = time + .milliseconds(Int64(1 + a % 40))
        router.advanceTime(to: time)
        let contact = a % 4
        switch op {
        case 0, 1, 2:
            let change: ContactChange = down.contains(contact) ? (op == 2 ? .ended : .moved) : .began
            if change == .began { down.insert(contact) } else if change == .ended { down.remove(contact) }
            router.handle(TouchFrameInput(device: device, time: time, contacts: [ContactSample(contact: contact, change: change, location: Point(x: x, y: y))]))
        case 3:
            router.handle(KeyInput(device: device, time: time, code: 28, name: "KEY_ENTER", phase: a % 2 == 0 ? .down : .up))
        case 4:
            try? router.apply(.present(screen: a % 2 == 0 ? "admin" : "home"), time: time)
        case 5:
            try? router.apply(.dismiss(display: nil), time: time)
        case 6:
            try? router.apply(a % 2 == 0 ? .hide(region: "home/root/content") : .show(region: "home/root/content"), time: time)
        default:
            router.replaceLayout(layouts[a % layouts.count], time: time)
        }
        i += 4
    }
    router.removeDevice(device, time: time + .seconds(1))
    precondition(counter.began == counter.finished, "\(counter.began) touches began, \(counter.finished) ended or cancelled")
    return 0
}

/// SwiftPM links an executable's entry as `<target>_main`: libFuzzer's driver takes it from here.
@_cdecl("FuzzRouter_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv) { data, size in fuzzOne(data, size) }
}
