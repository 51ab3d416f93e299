import Synchronization

/// The key and button names of the input layer (libevdev's table for `EV_KEY`): what `key:NAME`
/// handlers, chords and forwarded keys may name. The core holds no table: the host hands one
/// in (EvrouteInput's asks the linked libevdev), so a config is checked against the names its
/// events will carry.
public protocol KeyNaming: Sendable {
    /// The code `name` stands for, also for another spelling of a code named differently
    /// (`BTN_A` is `BTN_SOUTH`'s code), or nil when the table does not know the name.
    func code(named name: String) -> UInt16?
    /// The name events of `code` carry, or nil when the table has none for it.
    func name(of code: UInt16) -> String?
    /// Every name events carry, in code order (for did-you-mean).
    var allNames: [String] { get }
}

extension KeyNaming {
    /// Whether the input layer can name a key `name`: a name of the table, or `KEY_<code>` for
    /// a code up to `KEY_MAX` (how a code without a name is spelled).
    public func isKnown(_ name: String) -> Bool {
        if let code = code(named: name), self.name(of: code) == name { return true }
        guard name.hasPrefix("KEY_"), let code = Int(name.dropFirst(4)), code >= 0, code <= KeyNames.maxCode else { return false }
        return String(code) == name.dropFirst(4)
    }

    /// The name events carry for `name` when `name` is another spelling of a code the table
    /// names differently (`BTN_A` → `BTN_SOUTH`): a handler on it would never see its key.
    public func canonicalName(of name: String) -> String? {
        guard let code = code(named: name), let canonical = self.name(of: code), canonical != name else { return nil }
        return canonical
    }
}

/// The policy the core applies to key names (which keys type text, how the log hides them) and
/// the process's key naming: the host registers its table once at start (``register(_:)``),
/// and ``provider`` stands for it where a naming is not handed in.
public enum KeyNames {
    /// The highest key code (`KEY_MAX`).
    public static let maxCode = 0x2ff

    /// The registered naming (``register(_:)``), looked up at each use: a compiled layout
    /// keeps it, and it answers with the table the host registered. Using it before the host
    /// registered one stops the process, naming the missing call.
    public static let provider: any KeyNaming = RegisteredKeyNaming()

    /// Makes `naming` the process's key names (``provider``). The host calls it once at start,
    /// before it reads a config.
    public static func register(_ naming: any KeyNaming) {
        registered.withLock { $0 = naming }
    }

    private static let registered = Mutex<(any KeyNaming)?>(nil)

    private struct RegisteredKeyNaming: KeyNaming {
        var naming: any KeyNaming {
            guard let naming = KeyNames.registered.withLock({ $0 }) else {
                fatalError("no key names registered: the host calls KeyNames.register(_:) at start (EvrouteInput's KeyNames.useLibevdev())")
            }
            return naming
        }
        func code(named name: String) -> UInt16? { naming.code(named: name) }
        func name(of code: UInt16) -> String? { naming.name(of: code) }
        var allNames: [String] { naming.allNames }
    }

    /// Keys of the typing block — letters, digits, the symbol keys, space and the keypad, and the
    /// numeric keys of phones, PIN pads and remotes (`KEY_NUMERIC_*`) — whose names would spell
    /// what was typed (a PIN, a scanned code, a password): the daemon's log shows them as
    /// ``obfuscatedName`` unless asked not to, as libinput's debug-events does.
    public static func isTyping(_ name: String) -> Bool {
        guard name.hasPrefix("KEY_") else { return false }
        let rest = name.dropFirst(4)
        if rest.count == 1, let c = rest.first, c.isASCII, c.isLetter || c.isNumber { return true }
        return typingNames.contains(name) || (rest.hasPrefix("KP") && !keypadNonTyping.contains(name))
            || rest.hasPrefix("NUMERIC_")
    }

    /// How the log writes a typing key's name.
    public static let obfuscatedName = "KEY_***"

    private static let typingNames: Set<String> = [
        "KEY_MINUS", "KEY_EQUAL", "KEY_LEFTBRACE", "KEY_RIGHTBRACE", "KEY_SEMICOLON", "KEY_APOSTROPHE",
        "KEY_GRAVE", "KEY_BACKSLASH", "KEY_COMMA", "KEY_DOT", "KEY_SLASH", "KEY_102ND", "KEY_SPACE",
        "KEY_RO", "KEY_YEN", "KEY_QUESTION", "KEY_DOLLAR", "KEY_EURO",
    ]
    /// Keypad keys that type nothing.
    private static let keypadNonTyping: Set<String> = ["KEY_KPENTER"]
}
