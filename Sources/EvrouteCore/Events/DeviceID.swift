/// Identifies one input device (live or replayed) for the life of the daemon.
/// Numbers are never reused, so a re-plugged device gets a new one.
public struct DeviceID: Hashable, Sendable, CustomStringConvertible {
    public var rawValue: Int
    public init(_ rawValue: Int) { self.rawValue = rawValue }
    public var description: String { "device#\(rawValue)" }
}

/// A device as the router knows it: which rule matched it and which display it drives.
public struct DeviceInfo: Sendable {
    public var id: DeviceID
    /// The name of the matching device rule (the trace's `device` field).
    public var ruleName: String
    /// The kernel's name of the device.
    public var name: String
    public var kind: DeviceKind
    /// The display its touches land on, or keys go to.
    public var display: String

    public init(id: DeviceID, ruleName: String, name: String, kind: DeviceKind, display: String) {
        self.id = id
        self.ruleName = ruleName
        self.name = name
        self.kind = kind
        self.display = display
    }
}

/// What a device is, as udev's input_id classifies it.
public enum DeviceKind: String, Sendable, CaseIterable {
    case touchscreen, keyboard, pointer, touchpad, tablet, joystick, accelerometer, key, switchDevice = "switch", other
}
