/// A key transition as the kernel reports it (EV_KEY value 1 / 2 / 0).
public enum KeyPhase: String, Sendable {
    case down, `repeat`, up, cancelled
}

/// One key event from a keyboard.
public struct KeyInput: Sendable {
    public var device: DeviceID
    public var time: Timestamp
    /// The evdev key code (`KEY_ENTER` = 28).
    public var code: Int
    /// The evdev name of the code, e.g. `KEY_ENTER`.
    public var name: String
    public var phase: KeyPhase

    public init(device: DeviceID, time: Timestamp, code: Int, name: String, phase: KeyPhase) {
        self.device = device
        self.time = time
        self.code = code
        self.name = name
        self.phase = phase
    }
}
