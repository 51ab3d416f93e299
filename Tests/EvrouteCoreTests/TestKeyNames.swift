import EvrouteCore

/// A few key names as the input layer spells them, with their codes: the core's tests hand the
/// compiler this table (the core holds none; the executable registers libevdev's).
struct TestKeyNames: KeyNaming {
    static let table: [(code: UInt16, name: String)] = [
        (1, "KEY_ESC"), (16, "KEY_Q"), (17, "KEY_W"), (28, "KEY_ENTER"), (29, "KEY_LEFTCTRL"), (30, "KEY_A"),
        (42, "KEY_LEFTSHIFT"), (44, "KEY_Z"), (46, "KEY_C"), (48, "KEY_B"), (56, "KEY_LEFTALT"), (63, "KEY_F5"),
        (97, "KEY_RIGHTCTRL"), (102, "KEY_HOME"), (126, "KEY_RIGHTMETA"), (0x110, "BTN_LEFT"), (0x130, "BTN_SOUTH"),
    ]
    /// Another spelling of a code, as libevdev reads `BTN_A` for `BTN_SOUTH`.
    static let aliases: [String: UInt16] = ["BTN_A": 0x130]

    func code(named name: String) -> UInt16? {
        Self.table.first { $0.name == name }?.code ?? Self.aliases[name]
    }
    func name(of code: UInt16) -> String? { Self.table.first { $0.code == code }?.name }
    var allNames: [String] { Self.table.map(\.name) }
}

let testKeyNames = TestKeyNames()
