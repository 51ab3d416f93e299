#if canImport(Glibc)
import Glibc
#endif
import EvrouteCore
import EvrouteInput

/// What the fuzz targets share: the repository's layouts and device descriptions, and a route
/// observer that checks each touch's life.
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
    /// Every stage FuzzDecoders reaches beyond kiosk.yaml's: the contact filters, idle, forward,
    /// per-device handlers (kioskDevices' devices, other rules).
    public static let stages = read("Fuzz/Layouts/stages.yaml")

    /// The demo's touchscreen (protocol B) and keyboard.
    public static func descriptions() -> [DeviceDescription] {
        ["demo/touchscreen.events", "demo/keyboard.events"].map { path in
            guard let r = try? EvemuRecording.load(path: root + "/" + path) else { fatalError("cannot read \(path)") }
            return r.description
        }
    }

    /// The devices kiosk.yaml's rules take (its `touch` rule wants a kernel name `ILITEK*` and
    /// vendor 0x222a, its `keys` rule udev's `ID_BUS=usb`), each touch protocol once, made from
    /// the demo's recordings: the touchscreen as recorded (protocol B) with the contact axes
    /// the decoders read that it lacks (touch major/minor, tool type), the same read through
    /// libevdev (a `SYN_DROPPED` is followed by a resync), the same without slots (protocol A:
    /// `SYN_MT_REPORT`), without any MT axis (single touch: `ABS_X`/`ABS_Y` + `BTN_TOUCH`), and
    /// the keyboard.
    public static func kioskDevices() -> [DeviceDescription] {
        let recorded = descriptions()
        var b = recorded[0]
        b.name = "ILITEK " + b.name
        b.vendor = 0x222a
        let maxX = b.absinfo[AbsCode.mtPositionX]?.maximum ?? 4095
        for (code, maximum) in [(AbsCode.mtTouchMajor, maxX), (AbsCode.mtTouchMinor, maxX), (AbsCode.mtToolType, 2)] {
            b.events[EventType.abs, default: []].insert(code)
            b.absinfo[code] = AbsInfo(minimum: 0, maximum: maximum)
        }
        var live = b
        live.resyncsAfterDrop = true
        let a = b.keepingAxes(named: " (protocol A)") { $0 != AbsCode.mtSlot && $0 != AbsCode.mtTrackingID }
        let single = b.keepingAxes(named: " (single touch)") { $0 < AbsCode.mtSlot }
        var keyboard = recorded[1]
        keyboard.udevProperties["ID_BUS"] = "usb"
        return [b, live, a, single, keyboard]
    }
}

extension DeviceDescription {
    /// The device with only the absolute axes `keep` keeps, its name extended by `suffix`.
    func keepingAxes(named suffix: String, _ keep: (UInt16) -> Bool) -> DeviceDescription {
        var d = self
        d.name += suffix
        d.events[EventType.abs] = d.events[EventType.abs]?.filter(keep)
        d.absinfo = d.absinfo.filter { keep($0.key) }
        return d
    }
}

/// Follows every touch by its id, from the router's routed events, and traps at the first
/// event that breaks its life: a touch begins once, then moves (or stays), then ends or is
/// cancelled once, and nothing of it is routed after that; ``finish()`` traps if a touch that
/// began has not ended. Per id, not counted overall: a double end of one touch and a missing
/// end of another do not cancel out.
public final class TouchLifecycle: RouteObserver {
    /// Touches that began, by id: whether each has ended (or been cancelled).
    public private(set) var touches: [Int: Bool] = [:]
    /// Records and routed events other than touch phases (keys, actions, presentation, focus,
    /// region changes, …), counted: what else the router told.
    public private(set) var otherRecords = 0
    public init() {}

    public var began: Int { touches.count }
    /// Touches that began and have not ended.
    public var open: [Int] { touches.filter { !$0.value }.map(\.key).sorted() }

    public func routed(_ event: RoutedEvent, handledBy responder: ResponderID?, handler: HandlerIndex?) {
        guard case .touch(let phase, _) = event.kind else { otherRecords += 1; return }
        guard let id = event.touch?.id else { fatalError("a touch \(phase) event without its touch") }
        let ended = touches[id]
        switch phase {
        case .began:
            precondition(ended == nil, "touch \(id) began again (\(ended! ? "after its end" : "while down"))")
            touches[id] = false
        case .moved, .stationary:
            precondition(ended == false, "touch \(id) \(phase) \(ended == nil ? "before it began" : "after its end")")
        case .ended, .cancelled:
            precondition(ended == false, "touch \(id) \(phase) \(ended == nil ? "before it began" : "again, after its end")")
            touches[id] = true
        }
    }

    public func record(_ record: RouteRecord) {
        if case .routed(let event, let responder, _) = record {
            routed(event, handledBy: responder, handler: nil)
        } else {
            otherRecords += 1
        }
    }

    /// Traps unless every touch that began has ended or been cancelled.
    public func finish() {
        let open = self.open
        precondition(open.isEmpty, "touches \(open) began and never ended (\(touches.count) began)")
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
    // Configs are checked against libevdev's key names, as the executable does.
    KeyNames.useLibevdev()
    return LLVMFuzzerRunDriver(&argc, &argv, test)
}
