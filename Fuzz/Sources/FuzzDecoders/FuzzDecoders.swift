import FuzzSupport
import EvrouteConfig
import EvrouteDaemon
import EvrouteCore
import EvrouteInput
import EvrouteRuntime

/// Any bytes as an event stream from a real touchscreen (protocol B, from the demo recording's
/// description), a protocol-A one and a keyboard: 8 bytes per event (type, code, value), the
/// decoders and the router behind them. Every touch must end once the devices are gone.
let layout = try! ConfigLoader.compile(yaml: FuzzLayouts.kiosk, file: "kiosk.yaml", pluginTypes: PluginTypes.all).layout
let descriptions = FuzzLayouts.descriptions()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let session = RoutingSession(layout: layout)
    let counter = TouchCounter()
    session.router.observer = counter
    var time = Timestamp(microseconds: 1_000_000)
    for (i, d) in descriptions.enumerated() { session.handle(.added(DeviceID(i + 1), d, time)) }
    var i = 0
    while i + 8 <= size {
        let device = DeviceID(Int(data[i] % UInt8(descriptions.count)) + 1)
        let type = UInt16(data[i + 1] % 4)   // SYN, KEY, REL, ABS
        let code = UInt16(data[i + 2]) | (UInt16(data[i + 3] & 0x01) << 8)
        let value = Int32(bitPattern: UInt32(data[i + 4]) | UInt32(data[i + 5]) << 8 | UInt32(data[i + 6]) << 16 | UInt32(data[i + 7]) << 24)
        time = time + .milliseconds(Int64(data[i] >> 4))
        session.handle(.event(device, InputEvent(time: time, type: type, code: code, value: value)))
        i += 8
    }
    for d in descriptions.indices { session.handle(.removed(DeviceID(d + 1), time + .seconds(1))) }
    precondition(counter.began == counter.finished, "\(counter.began) touches began, \(counter.finished) ended or cancelled")
    return 0
}

/// SwiftPM links an executable's entry as `<target>_main`: libFuzzer's driver takes it from here.
@_cdecl("FuzzDecoders_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv) { data, size in fuzzOne(data, size) }
}
