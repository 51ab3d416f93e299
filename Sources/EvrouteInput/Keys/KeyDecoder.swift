import EvrouteCore

/// Turns a device's `EV_KEY` events into key inputs: value 1 → down, 2 → repeat, 0 → up,
/// named from libevdev's tables (`KEY_ENTER`).
///
/// On touch devices (see `TouchProtocol.of`) the digitizer buttons (`BTN_TOUCH`, `BTN_TOOL_*`,
/// `BTN_STYLUS*`) belong to the contact state and are not keys. Names are cached per code, so a
/// steady stream of keys allocates nothing.
public struct KeyDecoder {
    public let device: DeviceID
    /// Whether digitizer buttons are dropped.
    public let ignoresDigitizerButtons: Bool
    private var names: [UInt16: String] = [:]

    public init(device: DeviceID, description: DeviceDescription) {
        self.init(device: device, ignoresDigitizerButtons: TouchProtocol.of(description) != .none)
    }

    public init(device: DeviceID, ignoresDigitizerButtons: Bool) {
        self.device = device
        self.ignoresDigitizerButtons = ignoresDigitizerButtons
    }

    /// The key input for an event, or nil when it is not a key event this decoder reports.
    public mutating func feed(_ event: InputEvent) -> KeyInput? {
        guard event.type == EventType.key else { return nil }
        if ignoresDigitizerButtons && KeyCode.isDigitizerButton(event.code) { return nil }
        let phase: KeyPhase
        switch event.value {
        case 1: phase = .down
        case 2: phase = .repeat
        case 0: phase = .up
        default: return nil
        }
        return KeyInput(device: device, time: event.time, code: Int(event.code), name: name(of: event.code), phase: phase)
    }

    private mutating func name(of code: UInt16) -> String {
        if let cached = names[code] { return cached }
        let name = EventCodeNames.keyName(code)
        names[code] = name
        return name
    }
}
