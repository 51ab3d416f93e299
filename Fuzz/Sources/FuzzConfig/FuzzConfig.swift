import FuzzSupport
import EvrouteConfig
import EvrouteDaemon

/// Any bytes as a layout (the reader `check`, start, reload and `ctl regions` share): errors are
/// fine, a trap or a hang is not. Also `ctl regions` documents.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    if let (_, layout) = try? ConfigLoader.compile(yaml: text, file: "fuzz.yaml", pluginTypes: PluginTypes.all) {
        _ = ConfigLoader.warnings(of: layout, file: "fuzz.yaml")
    }
    _ = try? ConfigLoader.parseRegions(yaml: text, file: "fuzz-regions.yaml")
    return 0
}

/// SwiftPM links an executable's entry as `<target>_main`: libFuzzer's driver takes it from here.
@_cdecl("FuzzConfig_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv) { data, size in fuzzOne(data, size) }
}
