import EvrouteCore

/// The range and resolution of one absolute axis (`struct input_absinfo`).
public struct AbsInfo: Hashable, Sendable {
    public var value: Int32
    public var minimum: Int32
    public var maximum: Int32
    public var fuzz: Int32
    public var flat: Int32
    public var resolution: Int32

    public init(value: Int32 = 0, minimum: Int32, maximum: Int32, fuzz: Int32 = 0, flat: Int32 = 0, resolution: Int32 = 0) {
        self.value = value
        self.minimum = minimum
        self.maximum = maximum
        self.fuzz = fuzz
        self.flat = flat
        self.resolution = resolution
    }
}

/// What a device is: identity and capabilities, from a live device (libevdev + udev)
/// or from a recording's description (`N: I: P: B: A:` lines).
public struct DeviceDescription: Sendable {
    public var name: String
    public var bus: UInt16
    public var vendor: UInt16
    public var product: UInt16
    public var version: UInt16
    /// INPUT_PROP_* bits that are set (e.g. INPUT_PROP_DIRECT = 1).
    public var properties: Set<UInt16>
    /// Supported event codes per event type (EV_KEY → its key codes, …).
    public var events: [UInt16: Set<UInt16>]
    /// Absolute axes and their ranges.
    public var absinfo: [UInt16: AbsInfo]
    /// udev properties (`ID_INPUT_TOUCHSCREEN=1`, `LIBINPUT_CALIBRATION_MATRIX=…`), live devices only.
    public var udevProperties: [String: String]
    /// The device node (`/dev/input/event3`) or the recording's path.
    public var path: String?
    /// Whether a `SYN_DROPPED` in this device's stream is followed by libevdev's resync: the
    /// events up to the next `SYN_REPORT` bring the state up to date (true for live devices
    /// read through ``EvdevDevice``). A raw stream (a recording) must discard them instead.
    public var resyncsAfterDrop: Bool = false

    public init(name: String, bus: UInt16 = 0, vendor: UInt16 = 0, product: UInt16 = 0, version: UInt16 = 0,
                properties: Set<UInt16> = [], events: [UInt16: Set<UInt16>] = [:], absinfo: [UInt16: AbsInfo] = [:],
                udevProperties: [String: String] = [:], path: String? = nil) {
        self.name = name
        self.bus = bus
        self.vendor = vendor
        self.product = product
        self.version = version
        self.properties = properties
        self.events = events
        self.absinfo = absinfo
        self.udevProperties = udevProperties
        self.path = path
    }

    /// Whether the device reports `type`/`code`.
    public func has(_ type: UInt16, _ code: UInt16) -> Bool { events[type]?.contains(code) ?? false }
}
