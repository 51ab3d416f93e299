#if canImport(Glibc)
import Glibc
#endif
import EvrouteCore
import EvrouteInput

/// What the fuzz targets share: the repository's layouts and device descriptions, and a route
/// observer that checks every touch that begins ends once.
public enum FuzzLayouts {
    /// The repository (this file is Fuzz/Sources/FuzzSupport/FuzzSupport.swift).
    static let root: String = {
        var path = #filePath
        for _ in 0..<4 { path = String(path[..<path.lastIndex(of: "/")!]) }
        return path
    }()

    static func read(_ relative: String) -> String {
        guard let file = fopen(root + "/" + relative, "r") else { fatalError("cannot read \(relative)") }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = fread(&chunk, 1, chunk.count, file)
            if n <= 0 { break }
            bytes += chunk[0..<n]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    public static let kiosk = read("config/kiosk.yaml")
    public static let demo = read("config/demo.yaml")

    /// The demo's touchscreen (protocol B) and keyboard.
    public static func descriptions() -> [DeviceDescription] {
        ["demo/touchscreen.events", "demo/keyboard.events"].map { path in
            guard let r = try? EvemuRecording.load(path: root + "/" + path) else { fatalError("cannot read \(path)") }
            return r.description
        }
    }
}

/// Counts touches that begin and those that end or are cancelled.
public final class TouchCounter: RouteObserver {
    public private(set) var began = 0
    public private(set) var finished = 0
    public init() {}
    public func record(_ record: RouteRecord) {
        guard case .routed(let e, _, _) = record, case .touch(let phase, _) = e.kind else { return }
        switch phase {
        case .began: began += 1
        case .ended, .cancelled: finished += 1
        default: break
        }
    }
}

@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
                         _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> CInt

/// Hands a fuzz target's command line to libFuzzer's driver with its test function (each target's
/// `<target>_main`, the entry SwiftPM links an executable with, calls this).
public func runFuzzer(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                      _ test: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv, test)
}
