import CUdev
import EvrouteSystem
#if canImport(Glibc)
import Glibc
#endif

/// One evdev node as udev knows it (`/sys/class/input/eventN`).
public struct UdevInputDevice: Sendable, Hashable {
    /// `/sys/devices/…/input/input7/event3`.
    public var syspath: String
    /// `event3`.
    public var sysname: String
    /// `/dev/input/event3`; nil if udev has none (then the device cannot be opened).
    public var devnode: String?
    /// udev properties: `ID_INPUT=1`, `ID_INPUT_TOUCHSCREEN=1`, `LIBINPUT_CALIBRATION_MATRIX=…`,
    /// `ID_PATH=…`. Empty (apart from kernel ones like `DEVNAME`) when udevd has not processed it.
    public var properties: [String: String]
    /// The kernel's name of the device: the parent `inputN`'s `name` attribute.
    public var name: String?
    /// The parent `inputN`'s `id/vendor` and `id/product` attributes (hex in sysfs).
    public var vendor: UInt16?
    public var product: UInt16?
    /// Whether udevd has processed the device (its rules ran, `ID_INPUT_*` are set).
    public var isInitialized: Bool

    public init(syspath: String, sysname: String, devnode: String?, properties: [String: String] = [:],
                name: String? = nil, vendor: UInt16? = nil, product: UInt16? = nil, isInitialized: Bool = true) {
        self.syspath = syspath
        self.sysname = sysname
        self.devnode = devnode
        self.properties = properties
        self.name = name
        self.vendor = vendor
        self.product = product
        self.isInitialized = isInitialized
    }

    /// A description from udev's data alone (name, ids, properties; no capabilities), for a
    /// node that cannot be opened; nil unless udev has classified the device and knows its
    /// name and ids (everything a device rule can test).
    public var udevOnlyDescription: DeviceDescription? {
        let classified = properties.contains { key, value in
            value == "1" && (key == "ID_INPUT" || key.hasPrefix("ID_INPUT_"))
        }
        guard classified, let name, let vendor, let product else { return nil }
        return DeviceDescription(name: name, vendor: vendor, product: product, udevProperties: properties, path: devnode)
    }

    /// Whether this is an evdev node: sysname `eventN`, devnode under `/dev/input/`.
    public var isEvdevNode: Bool {
        sysname.hasPrefix("event") && (devnode?.hasPrefix("/dev/input/event") ?? false)
    }
}

/// A libudev context (`struct udev`). Cheap; one per process is enough.
/// Not thread-safe; use it from the event loop only.
public final class UdevContext {
    let handle: OpaquePointer

    /// `udev_new()`.
    public init() throws(SystemError) {
        handle = try SystemCall.checkNotNull("udev_new") { udev_new() }
    }

    deinit { udev_unref(handle) }

    /// Every evdev node of subsystem `input` (`/dev/input/event*`), sorted by node path.
    ///
    /// Reads sysfs and udev's database; works without udevd (then `ID_INPUT_*` are missing
    /// and ``UdevInputDevice/isInitialized`` is false). Devices that vanish while being
    /// listed are skipped.
    public func inputDevices() throws(SystemError) -> [UdevInputDevice] {
        let enumerate = try SystemCall.checkNotNull("udev_enumerate_new") { udev_enumerate_new(handle) }
        defer { udev_enumerate_unref(enumerate) }
        _ = try SystemCall.checkNegativeErrno("udev_enumerate_add_match_subsystem", path: nil) {
            udev_enumerate_add_match_subsystem(enumerate, "input")
        }
        _ = try SystemCall.checkNegativeErrno("udev_enumerate_add_match_sysname", path: nil) {
            udev_enumerate_add_match_sysname(enumerate, "event*")
        }
        _ = try SystemCall.checkNegativeErrno("udev_enumerate_scan_devices", path: "/sys/class/input") {
            udev_enumerate_scan_devices(enumerate)
        }
        var devices: [UdevInputDevice] = []
        var entry = udev_enumerate_get_list_entry(enumerate)
        while let current = entry {
            defer { entry = udev_list_entry_get_next(current) }
            guard let syspath = udev_list_entry_get_name(current),
                  let device = udev_device_new_from_syspath(handle, syspath) else { continue }
            defer { udev_device_unref(device) }
            let info = UdevInputDevice(udevDevice: device)
            if info.isEvdevNode { devices.append(info) }
        }
        return devices.sorted { ($0.devnode ?? "").lexicographicallyPrecedes($1.devnode ?? "") }
    }

    /// The udev view of one device node (`/dev/input/event3`), or nil if udev does not know
    /// it (not a character device, or not an input device).
    public func inputDevice(devnode: String) -> UdevInputDevice? {
        var status = stat()
        guard stat(devnode, &status) == 0, (status.st_mode & S_IFMT) == S_IFCHR else { return nil }
        guard let device = udev_device_new_from_devnum(handle, CChar(UInt8(ascii: "c")), status.st_rdev) else { return nil }
        defer { udev_device_unref(device) }
        let info = UdevInputDevice(udevDevice: device)
        return info.isEvdevNode ? info : nil
    }
}

extension UdevInputDevice {
    /// Copies what evroute needs out of a `struct udev_device`.
    init(udevDevice device: OpaquePointer) {
        func string(_ pointer: UnsafePointer<CChar>?) -> String? { pointer.map { String(cString: $0) } }
        var properties: [String: String] = [:]
        var entry = udev_device_get_properties_list_entry(device)
        while let current = entry {
            if let key = string(udev_list_entry_get_name(current)) {
                properties[key] = string(udev_list_entry_get_value(current)) ?? ""
            }
            entry = udev_list_entry_get_next(current)
        }
        // The eventN node's parent is the inputN device that carries name and ids.
        // (The parent reference is owned by `device`; it must not be unref'd.)
        var name: String?, vendor: UInt16?, product: UInt16?
        if let parent = udev_device_get_parent_with_subsystem_devtype(device, "input", nil) {
            name = string(udev_device_get_sysattr_value(parent, "name"))
            vendor = string(udev_device_get_sysattr_value(parent, "id/vendor")).flatMap { UInt16($0, radix: 16) }
            product = string(udev_device_get_sysattr_value(parent, "id/product")).flatMap { UInt16($0, radix: 16) }
        }
        self.init(syspath: string(udev_device_get_syspath(device)) ?? "",
                  sysname: string(udev_device_get_sysname(device)) ?? "",
                  devnode: string(udev_device_get_devnode(device)) ?? properties["DEVNAME"],
                  properties: properties, name: name, vendor: vendor, product: product,
                  isInitialized: udev_device_get_is_initialized(device) > 0)
    }
}
