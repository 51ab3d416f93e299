/// The event kinds a handler declares it takes (`on:` in the config).
public enum EventFilter: Hashable, Sendable, CustomStringConvertible {
    /// Every touch phase.
    case touch
    case touchBegan, touchMoved, touchEnded, touchCancelled
    /// A touch that ended as a tap (short, and it stayed in place).
    case tap
    /// Every key event.
    case key
    /// Key events of one key, e.g. `key:KEY_ENTER`.
    case keyNamed(String)
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
            if let k = suffix("key:") { self = .keyNamed(k) }
            else if let a = suffix("action:") { self = .action(a) }
            else if let g = suffix("gesture:") { self = .gesture(g) }
            else { return nil }
        }
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
