import CEvdev
import EvrouteCore
import EvrouteSystem
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The names of evroute's own virtual devices: a touchscreen per forwarded source,
/// `<source name> (evroute)`, and one keyboard, `evroute keyboard`. evroute never opens a device
/// so named (no loop, and none between two evroutes), and `devices` marks them.
public enum VirtualDeviceNames {
    /// The forwarded keyboard.
    public static let keyboard = "evroute keyboard"
    /// What a forwarded touchscreen's name ends with.
    public static let suffix = " (evroute)"
    /// A device's phys string (`EVIOCGPHYS`) when evroute made it.
    public static let phys = "evroute"
    /// uinput takes names of at most 79 bytes.
    static let maximumNameBytes = 79

    /// The virtual touchscreen's name for a source named `name` (shortened, on a character
    /// boundary, so that the suffix fits).
    public static func touchscreen(forSource name: String) -> String {
        let room = maximumNameBytes - suffix.utf8.count
        var kept = ""
        for c in name where kept.utf8.count + String(c).utf8.count <= room { kept.append(c) }
        return kept + suffix
    }

    /// Whether a device is named as evroute names its own. A name is no proof: any USB device
    /// may call itself so. This process knows its own devices by ``OwnVirtualDevices``; another
    /// process (`evroute devices`) takes a device for evroute's when it is so named and is a
    /// virtual one (``looksLikeEvroutes(name:syspath:)``).
    public static func isEvroutes(_ name: String) -> Bool {
        name == keyboard || name.hasSuffix(suffix)
    }

    /// Whether a device another process may have made for evroute: so named, and made through
    /// uinput — under `/sys/devices/virtual/`, where a physical (USB, Bluetooth, serial) device
    /// never is. The live source skips these too (no loop between two evroutes).
    public static func looksLikeEvroutes(name: String, syspath: String) -> Bool {
        isEvroutes(name) && syspath.hasPrefix("/sys/devices/virtual/")
    }
}

/// The uinput devices this process made, by their sysfs paths (`libevdev_uinput_get_syspath`:
/// `/sys/devices/virtual/input/input7`), recorded when each is made and dropped when it goes.
/// What the live source skips (no loop through its own forwarding) is what is here, not what
/// is so named: a device that names itself like one of evroute's is an ordinary device, matched
/// by the rules, grabbed and routed like any other.
public enum OwnVirtualDevices {
    private static let paths = Mutex<Set<String>>([])

    static func add(_ syspath: String) { paths.withLock { _ = $0.insert(syspath) } }
    static func remove(_ syspath: String) { paths.withLock { _ = $0.remove(syspath) } }

    /// Whether udev's `syspath` (an event node's, `/sys/devices/virtual/input/input7/event7`, or
    /// the input device's own) is one of this process's devices.
    public static func contains(syspath: String) -> Bool {
        var device = syspath
        if let slash = syspath.lastIndex(of: "/"), syspath[syspath.index(after: slash)...].hasPrefix("event") {
            device = String(syspath[..<slash])
        }
        return paths.withLock { $0.contains(device) }
    }

    /// How many there are now.
    public static var count: Int { paths.withLock { $0.count } }
}

/// What a virtual device can report: its name, ids, properties, keys and absolute axes.
public struct VirtualDeviceSpec: Sendable, Equatable {
    public var name: String
    public var bus: UInt16 = 0x06   // BUS_VIRTUAL
    public var vendor: UInt16 = 0
    public var product: UInt16 = 0
    public var version: UInt16 = 0
    public var properties: [UInt16] = []
    public var keys: [UInt16] = []
    public var absinfo: [UInt16: AbsInfo] = [:]

    public init(name: String) { self.name = name }

    /// `MT_TOOL_PALM`: the tool type that says "cancel this touch" to libinput.
    public static let toolPalm: Int32 = 2
    /// `INPUT_PROP_DIRECT`.
    public static let propertyDirect: UInt16 = 0x01

    /// A touchscreen forwarding `source`'s touches: its position axes (multitouch ones, else
    /// `ABS_X`/`ABS_Y` as slots), ranges and resolution kept (`displaySize` nil), or spanning a
    /// display of `displaySize` units; slots (the source's, else 10); `ABS_MT_TOOL_TYPE` up to
    /// `MT_TOOL_PALM`; pressure when the source has it (device units); `BTN_TOUCH`, `ABS_X`,
    /// `ABS_Y` (the first contact, for readers of single touch); `INPUT_PROP_DIRECT`. udev then
    /// tags it `ID_INPUT_TOUCHSCREEN=1`.
    public static func touchscreen(mirroring source: DeviceDescription, displaySize: Size? = nil) -> VirtualDeviceSpec {
        var spec = VirtualDeviceSpec(name: VirtualDeviceNames.touchscreen(forSource: source.name))
        spec.vendor = source.vendor
        spec.product = source.product
        spec.version = source.version
        spec.properties = [propertyDirect]
        spec.keys = [KeyCode.btnTouch]
        let abs = source.absinfo
        let zero = AbsInfo(minimum: 0, maximum: 0)
        var x = abs[AbsCode.mtPositionX] ?? abs[AbsCode.x] ?? zero
        var y = abs[AbsCode.mtPositionY] ?? abs[AbsCode.y] ?? zero
        if let size = displaySize {
            x = AbsInfo(minimum: 0, maximum: Int32(max(1, size.width.rounded()) - 1))
            y = AbsInfo(minimum: 0, maximum: Int32(max(1, size.height.rounded()) - 1))
        }
        x.value = 0
        y.value = 0
        // libinput's udev rule moves a panel's kernel fuzz into `LIBINPUT_FUZZ_<code in hex>`
        // properties and zeroes it in the kernel, where libinput takes it from then on: the
        // virtual device gets that fuzz back, so the kernel filters its positions as libinput
        // filtered the panel's. Not in display units (another scale).
        if displaySize == nil {
            let xCode = abs[AbsCode.mtPositionX] != nil ? AbsCode.mtPositionX : AbsCode.x
            let yCode = abs[AbsCode.mtPositionY] != nil ? AbsCode.mtPositionY : AbsCode.y
            if let f = udevFuzz(source.udevProperties, xCode) { x.fuzz = f }
            if let f = udevFuzz(source.udevProperties, yCode) { y.fuzz = f }
        }
        // A protocol A source (multitouch positions, no slots) is read by libinput through mtdev,
        // which filters positions with a fuzz of 1/250 of the range when the device declares
        // none. The virtual device is protocol B: the kernel filters its slots with the axes'
        // fuzz, by the same rule — so it gets that fuzz, and libinput sees the same positions
        // on both.
        if displaySize == nil, abs[AbsCode.mtPositionX] != nil, abs[AbsCode.mtSlot] == nil {
            if x.fuzz == 0 { x.fuzz = (x.maximum - x.minimum) / 250 }
            if y.fuzz == 0 { y.fuzz = (y.maximum - y.minimum) / 250 }
        }
        let slots = abs[AbsCode.mtSlot].map { max(1, Int($0.maximum) + 1) } ?? 10
        spec.absinfo[AbsCode.x] = x
        spec.absinfo[AbsCode.y] = y
        spec.absinfo[AbsCode.mtPositionX] = x
        spec.absinfo[AbsCode.mtPositionY] = y
        spec.absinfo[AbsCode.mtSlot] = AbsInfo(minimum: 0, maximum: Int32(min(slots, 64) - 1))
        spec.absinfo[AbsCode.mtTrackingID] = AbsInfo(minimum: 0, maximum: 65535)
        spec.absinfo[AbsCode.mtToolType] = AbsInfo(minimum: 0, maximum: toolPalm)
        if displaySize == nil {
            if var p = abs[AbsCode.mtPressure] ?? abs[AbsCode.pressure] { p.value = 0; spec.absinfo[AbsCode.mtPressure] = p }
        }
        return spec
    }

    /// The fuzz libinput's udev rule keeps for axis `code` (`LIBINPUT_FUZZ_35=8`: two lower-case
    /// hex digits), when the property is there and a number of at least 0.
    static func udevFuzz(_ properties: [String: String], _ code: UInt16) -> Int32? {
        let hex = String(code, radix: 16)
        let key = "LIBINPUT_FUZZ_" + (hex.count < 2 ? "0" + hex : hex)
        guard let text = properties[key], let v = Int32(text), v >= 0 else { return nil }
        return v
    }

    /// The forwarded keyboard: every key code a keyboard has (`KEY_ESC` … `KEY_MICMUTE`, and the
    /// `KEY_OK` … range of remote controls), no auto-repeat (the compositor repeats keys itself).
    public static func keyboard() -> VirtualDeviceSpec {
        var spec = VirtualDeviceSpec(name: VirtualDeviceNames.keyboard)
        spec.keys = Array(1...248) + Array(0x160...0x2ff)
        return spec
    }
}

/// A virtual input device made with libevdev's uinput API (`/dev/uinput`), gone when destroyed.
/// evroute writes whole frames to it, one write(2) each (``write(_:)``).
public final class UinputDevice {
    public let spec: VirtualDeviceSpec
    /// `/dev/input/eventN`, when the kernel has made the node.
    public let devnode: String?
    /// `/sys/devices/virtual/input/inputN`.
    public let syspath: String
    private var uinput: OpaquePointer?
    private let fd: FileDescriptor
    /// Open while the device is (made through uinput, or the benchmark's stand-in).
    private var live = false
    /// The benchmark's stand-in, when this device is one.
    private let standIn: Bool

    /// The benchmark hook: when the environment names a file in
    /// `EVROUTE_BENCH_UINPUT_STANDIN` (scripts/bench-forward-path.sh gives `/dev/null`), a virtual
    /// device is that file opened for writing instead of a uinput device, so that forwarding runs
    /// (frames built and written, one write(2) each) on a machine without `/dev/uinput`. Not a
    /// setting: no command-line option or configuration key names it.
    static let standInPath: String? = getenv("EVROUTE_BENCH_UINPUT_STANDIN").map { String(cString: $0) }
    private static let standIns = Mutex<Int>(0)

    /// Creates the device; `SystemError` names `/dev/uinput` (ENOENT: no uinput module; EACCES:
    /// no permission).
    public init(_ spec: VirtualDeviceSpec) throws(SystemError) {
        self.spec = spec
        if let path = Self.standInPath, !path.isEmpty {
            standIn = true
            fd = try SystemCall.open(path, flags: O_WRONLY | O_CLOEXEC)
            devnode = path
            let n = Self.standIns.withLock { n in n += 1; return n }
            syspath = "/sys/devices/virtual/input/evroute-bench-standin\(n)"
            live = true
            OwnVirtualDevices.add(syspath)
            return
        }
        standIn = false
        guard let dev = libevdev_new() else { throw SystemError(errno: ENOMEM, call: "libevdev_new", path: nil) }
        defer { libevdev_free(dev) }
        libevdev_set_name(dev, spec.name)
        libevdev_set_phys(dev, VirtualDeviceNames.phys)
        libevdev_set_id_bustype(dev, Int32(spec.bus))
        libevdev_set_id_vendor(dev, Int32(spec.vendor))
        libevdev_set_id_product(dev, Int32(spec.product))
        libevdev_set_id_version(dev, Int32(spec.version))
        for p in spec.properties { libevdev_enable_property(dev, UInt32(p)) }
        libevdev_enable_event_type(dev, UInt32(EventType.syn))
        if !spec.keys.isEmpty {
            libevdev_enable_event_type(dev, UInt32(EventType.key))
            for k in spec.keys { libevdev_enable_event_code(dev, UInt32(EventType.key), UInt32(k), nil) }
        }
        if !spec.absinfo.isEmpty {
            libevdev_enable_event_type(dev, UInt32(EventType.abs))
            for (code, a) in spec.absinfo.sorted(by: { $0.key < $1.key }) {
                var info = input_absinfo(value: a.value, minimum: a.minimum, maximum: a.maximum, fuzz: a.fuzz, flat: a.flat,
                                         resolution: a.resolution)
                libevdev_enable_event_code(dev, UInt32(EventType.abs), UInt32(code), &info)
            }
        }
        var created: OpaquePointer?
        let rc = libevdev_uinput_create_from_device(dev, LIBEVDEV_UINPUT_OPEN_MANAGED.rawValue, &created)
        guard rc == 0, let created else {
            throw SystemError(errno: rc < 0 ? -rc : EIO, call: "libevdev_uinput_create_from_device", path: "/dev/uinput")
        }
        uinput = created
        live = true
        fd = FileDescriptor(rawValue: libevdev_uinput_get_fd(created))
        devnode = libevdev_uinput_get_devnode(created).map { String(cString: $0) }
        // Its sysfs path is how this process knows it for its own (``OwnVirtualDevices``): a
        // device it cannot place would be read back as an ordinary one, so it is not kept.
        guard let path = libevdev_uinput_get_syspath(created).map({ String(cString: $0) }) else {
            libevdev_uinput_destroy(created)
            uinput = nil
            live = false
            throw SystemError(errno: ENODEV, call: "libevdev_uinput_get_syspath", path: devnode ?? "/dev/uinput")
        }
        syspath = path
        OwnVirtualDevices.add(path)
    }

    /// Writes `events` (whole frames, each ending in `SYN_REPORT`) in one write(2).
    @usableFromInline
    func write(_ events: UnsafeRawBufferPointer) throws(SystemError) {
        guard live, let start = events.baseAddress, events.count > 0 else { return }
        let written = Glibc.write(fd.rawValue, start, events.count)
        if written == events.count { return }
        try writeRest(events, from: max(written, 0))
    }

    /// What one write(2) did not take (uinput takes a whole write unless it fails): the rest,
    /// through the one write loop (interrupts, a full device, errors naming the device).
    @inline(never)
    private func writeRest(_ events: UnsafeRawBufferPointer, from offset: Int) throws(SystemError) {
        try SystemCall.writeAll(fd, UnsafeRawBufferPointer(rebasing: events[offset...]), path: devnode ?? "/dev/uinput")
    }

    /// Removes the device (readers see it unplugged); idempotent.
    public func destroy() {
        guard live else { return }
        live = false
        if standIn {
            try? SystemCall.close(fd, path: devnode)
        } else if let u = uinput {
            uinput = nil
            libevdev_uinput_destroy(u)
        }
        OwnVirtualDevices.remove(syspath)
    }

    deinit { destroy() }
}

/// A frame's worth of events for a virtual device, built in place (`struct input_event`s; the
/// kernel stamps them when they are written) and written whole.
public struct VirtualFrameBuffer {
    @usableFromInline var events: [input_event] = []

    public init() {}

    @inlinable
    public var isEmpty: Bool { events.isEmpty }

    /// How many events are queued.
    @inlinable
    public var count: Int { events.count }

    /// Takes back the last `n` events queued.
    @inlinable
    public mutating func removeLast(_ n: Int) { events.removeLast(n) }

    /// The queued events as (type, code, value), in order (for tests and logs).
    public var queued: [(type: UInt16, code: UInt16, value: Int32)] { events.map { ($0.type, $0.code, $0.value) } }

    /// Inlinable: the forwarder appends a few events per touch phase.
    @inlinable
    public mutating func append(_ type: UInt16, _ code: UInt16, _ value: Int32) {
        events.append(input_event(time: timeval(), type: type, code: code, value: value))
    }

    /// Ends the frame (`SYN_REPORT`).
    @inlinable
    public mutating func report() { append(EventType.syn, SynCode.report, 0) }

    /// Writes every frame to `device` in one write(2), then empties the buffer (the buffer keeps its room).
    /// Inlined: one function fewer between the flush and the system call.
    @inlinable @inline(__always)
    public mutating func write(to device: UinputDevice) throws(SystemError) {
        defer { events.removeAll(keepingCapacity: true) }
        let failure = events.withUnsafeBytes { raw -> SystemError? in
            do throws(SystemError) { try device.write(raw); return nil } catch { return error }
        }
        if let failure { throw failure }
    }

    public mutating func removeAll() { events.removeAll(keepingCapacity: true) }
}
