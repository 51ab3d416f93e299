import EvrouteInput
import FuzzSupport

/// Any bytes as an evemu recording (the parser of `--replay` and `--desc` files).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    _ = try? EvrouteRecordingProbe.parse(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}

enum EvrouteRecordingProbe {
    static func parse(_ bytes: [UInt8]) throws -> Int {
        let r = try EvemuRecording.parse(bytes: bytes, path: "fuzz")
        return r.events.count + r.warnings.count
    }
}

/// SwiftPM links an executable's entry as `<target>_main`: libFuzzer's driver takes it from here.
@_cdecl("FuzzEvemu_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv) { data, size in fuzzOne(data, size) }
}
