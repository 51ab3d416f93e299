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
    /// The chord modifiers (``KeyModifiers``) held on the keyboard when the key went down, as
    /// the router sets them; every phase of the key carries its down's.
    public var modifiers: KeyModifiers = []

    public init(device: DeviceID, time: Timestamp, code: Int, name: String, phase: KeyPhase) {
        self.device = device
        self.time = time
        self.code = code
        self.name = name
        self.phase = phase
    }
}

/// The modifiers of a chord (`key:ctrl+KEY_W`): either side's key counts.
public struct KeyModifiers: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let ctrl = KeyModifiers(rawValue: 1)
    public static let alt = KeyModifiers(rawValue: 2)
    public static let shift = KeyModifiers(rawValue: 4)
    public static let `super` = KeyModifiers(rawValue: 8)

    /// The modifiers a chord may name, in the order a chord is written.
    public static let names: [(name: String, modifier: KeyModifiers)] = [("ctrl", .ctrl), ("alt", .alt), ("shift", .shift), ("super", .super)]

    /// The modifier an evdev key code is (either side), or none.
    public static func of(code: Int) -> KeyModifiers {
        switch code {
        case 29, 97: .ctrl // KEY_LEFTCTRL, KEY_RIGHTCTRL
        case 56, 100: .alt // KEY_LEFTALT, KEY_RIGHTALT
        case 42, 54: .shift // KEY_LEFTSHIFT, KEY_RIGHTSHIFT
        case 125, 126: .super // KEY_LEFTMETA, KEY_RIGHTMETA
        default: []
        }
    }

    /// Whether a key pressed with these held is a chord, never text (Ctrl, Alt or Super).
    public var makesChord: Bool { !intersection([.ctrl, .alt, .super]).isEmpty }

    /// `ctrl+shift+` for ctrl and shift: the chord's prefix as written.
    public var prefix: String {
        Self.names.filter { contains($0.modifier) }.map { $0.name + "+" }.joined()
    }
}
