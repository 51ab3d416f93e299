import FuzzSupport
import EvrouteConfig
import EvrouteDaemon
import EvrouteCore
import EvrouteJSON
import EvrouteRuntime

/// Any bytes as a control request line (the control socket and plugin peers' commands) and as
/// a plugin answer: JSON parsing, then the run-time layout commands on a real layout.
let layout = try! ConfigLoader.compile(yaml: FuzzLayouts.kiosk, file: "kiosk.yaml", pluginTypes: PluginTypes.all).layout
nonisolated(unsafe) let session = RoutingSession(layout: layout)
nonisolated(unsafe) let control = RuntimeControl(session: session, now: { session.now })

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data, let request = try? JSONValue.parse(utf8: UnsafeBufferPointer(start: data, count: size)) else { return 0 }
    _ = request.serialized
    _ = control.answer(request)
    return 0
}

/// SwiftPM links an executable's entry as `<target>_main`: libFuzzer's driver takes it from here.
@_cdecl("FuzzControl_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv) { data, size in fuzzOne(data, size) }
}
