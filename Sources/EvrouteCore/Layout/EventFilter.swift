/// The event kinds a handler declares it takes (`on:` in the config).
public enum EventFilter: Hashable, Sendable, CustomStringConvertible {
    /// Every touch phase.
    case touch
    case touchBegan, touchMoved, touchEnded, touchCancelled
    /// A touch that ended as a tap (short, and it stayed in place).
    case tap
    /// Every key event.
    case key
    /// Key events of one key, e.g. `key:KEY_ENTER` (with any modifiers held).
    case keyNamed(String)
    /// A chord: key events of one key pressed while exactly these modifiers are held, e.g.
    /// `key:ctrl+KEY_W` (either side's modifier key counts).
    case chord(KeyModifiers, String)
    /// A named action (`action:open-admin`).
    case action(String)
    /// A gesture recognizer's event (`gesture:admin-hold`).
    case gesture(String)
    /// Text typed on a keyboard (`text`).
    case text
    /// Motion: a shake (in the chain), an accelerometer's samples (under `motion:`).
    case motion
    /// An accelerometer's orientation changes (under `motion:`).
    case orientation
    /// A display went idle (`idle`), or became active again (`active`).
    case idle, active
    /// Everything.
    case any

    /// Parses the config spelling (`touch-began`, `key:KEY_A`, …); nil when unknown.
    public init?(parsing s: String) {
        switch s {
        case "touch": self = .touch
        case "touch-began": self = .touchBegan
        case "touch-moved": self = .touchMoved
        case "touch-ended": self = .touchEnded
        case "touch-cancelled": self = .touchCancelled
        case "tap": self = .tap
        case "key": self = .key
        case "text": self = .text
        case "motion": self = .motion
        case "orientation": self = .orientation
        case "idle": self = .idle
        case "active": self = .active
        case "any": self = .any
        default:
            func suffix(_ p: String) -> String? {
                guard s.hasPrefix(p) else { return nil }
                let rest = String(s.dropFirst(p.count))
                return rest.isEmpty ? nil : rest
            }
            if let k = suffix("key:") { self = EventFilter.key(parsing: k) }
            else if let a = suffix("action:") { self = .action(a) }
            else if let g = suffix("gesture:") { self = .gesture(g) }
            else { return nil }
        }
    }

    /// `KEY_W` or a chord `ctrl+shift+KEY_W`. A chord naming an unknown or repeated modifier
    /// stays a ``keyNamed(_:)`` (an unknown key: the compiler says what is wrong with it).
    static func key(parsing k: String) -> EventFilter {
        guard let chord = KeyChord(parsing: k) else { return .keyNamed(k) }
        return chord.modifiers.isEmpty ? .keyNamed(chord.key) : .chord(chord.modifiers, chord.key)
    }

    /// The spellings accepted in `on:`, for error messages.
    public static let spellings = "touch, touch-began, touch-moved, touch-ended, touch-cancelled, tap, key, key:KEY_NAME, text, motion, orientation, idle, active, action:NAME, gesture:NAME, any"

    public var description: String {
        switch self {
        case .touch: "touch"
        case .touchBegan: "touch-began"
        case .touchMoved: "touch-moved"
        case .touchEnded: "touch-ended"
        case .touchCancelled: "touch-cancelled"
        case .tap: "tap"
        case .key: "key"
        case .keyNamed(let k): "key:\(k)"
        case .chord(let m, let k): "key:\(m.prefix)\(k)"
        case .action(let a): "action:\(a)"
        case .gesture(let g): "gesture:\(g)"
        case .text: "text"
        case .motion: "motion"
        case .orientation: "orientation"
        case .idle: "idle"
        case .active: "active"
        case .any: "any"
        }
    }
}

/// A key or chord as written (`KEY_F5`, `ctrl+shift+KEY_W`, `alt+KEY_HOME`): modifiers `ctrl`,
/// `alt`, `shift`, `super`, each at most once, joined by `+`, then a key name. The one parser of
/// `on: ["key:…"]` and of the `forward` plugin's `press:`.
public struct KeyChord: Hashable, Sendable, CustomStringConvertible {
    public var modifiers: KeyModifiers
    public var key: String

    public init(modifiers: KeyModifiers, key: String) {
        self.modifiers = modifiers
        self.key = key
    }

    /// Nil when a modifier is unknown or repeated, or the key is missing (``problem(in:)`` says which).
    public init?(parsing s: String) {
        guard Self.problem(in: s) == nil else { return nil }
        var parts = s.split(separator: "+", omittingEmptySubsequences: false).map(String.init)
        let key = parts.removeLast()
        var mods: KeyModifiers = []
        for p in parts { mods.insert(KeyModifiers.names.first { $0.name == p }!.modifier) }
        self.init(modifiers: mods, key: key)
    }

    /// What is wrong with a chord's modifiers (not its key name): an unknown modifier (with the
    /// part), a repeated one, or nothing after the last `+`.
    public enum Problem: Equatable, Sendable {
        case unknownModifier(String)
        case repeatedModifier(String)
        case missingKey
    }

    public static func problem(in s: String) -> Problem? {
        var parts = s.split(separator: "+", omittingEmptySubsequences: false).map(String.init)
        let key = parts.removeLast()
        if key.isEmpty { return .missingKey }
        var seen = Set<String>()
        for p in parts {
            guard KeyModifiers.names.contains(where: { $0.name == p }) else { return .unknownModifier(p) }
            if !seen.insert(p).inserted { return .repeatedModifier(p) }
        }
        return nil
    }

    public var description: String { modifiers.prefix + key }
}

extension KeyChord {
    /// Reads a chord as a layout writes it (`press: "alt+KEY_HOME"`): the chord, or what is
    /// wrong with it (a modifier or key name not known, with a did-you-mean).
    /// `keyNames`: the table the key must be in (the host's registered one unless handed one).
    public static func read(_ s: String, keyNames: any KeyNaming = KeyNames.provider) -> Result<KeyChord, ChordError> {
        let mods = KeyModifiers.names.map(\.name)
        func guess(_ w: String, _ in: [String]) -> String {
            let lower = `in`.map { $0.lowercased() }
            guard let hit = Spelling.closest(to: w, in: lower), let i = lower.firstIndex(of: hit) else { return "" }
            return "; did you mean '\(`in`[i])'?"
        }
        if let problem = problem(in: s) {
            switch problem {
            case .unknownModifier(let m):
                return .failure(ChordError("unknown modifier '\(m)' in '\(s)' (modifiers: \(mods.joined(separator: ", ")), joined by '+' before the key, e.g. ctrl+KEY_W)\(guess(m, mods))"))
            case .repeatedModifier(let m): return .failure(ChordError("modifier '\(m)' is named twice in '\(s)'"))
            case .missingKey: return .failure(ChordError("'\(s)' names no key after its last '+' (e.g. ctrl+KEY_W)"))
            }
        }
        let chord = KeyChord(parsing: s)!
        guard keyNames.isKnown(chord.key), chord.key.hasPrefix("KEY_") || chord.key.hasPrefix("BTN_") else {
            let canonical = keyNames.canonicalName(of: chord.key)
            let hint = canonical.map { "; libevdev names it '\($0)'" } ?? guess(chord.key, keyNames.allNames)
            return .failure(ChordError("unknown key '\(chord.key)' in '\(s)' (a key name of libevdev's table, e.g. KEY_F5)\(hint)"))
        }
        return .success(chord)
    }

    /// Why a chord does not read.
    public struct ChordError: Error, CustomStringConvertible, Sendable {
        public let description: String
        public init(_ d: String) { description = d }
    }
}
