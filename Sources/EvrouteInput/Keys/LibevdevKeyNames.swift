import CEvdev
import EvrouteCore

/// The key names of the linked libevdev (its table for `EV_KEY`): the names the input layer
/// gives keys, so the ones a config's `key:NAME` handlers, chords and forwarded keys may take.
/// libevdev is asked once, for every code up to `KEY_MAX`; a name is looked up in libevdev's
/// own table, which also reads another spelling of a code (`BTN_A` for `BTN_SOUTH`).
public struct LibevdevKeyNames: KeyNaming {
    /// The one table of the process.
    public static let shared = LibevdevKeyNames()

    /// The name of each code `0...KEY_MAX` (nil where libevdev has none).
    private let names: [String?]
    public let allNames: [String]

    private init() {
        names = (0...KeyNames.maxCode).map { EventCodeNames.codeName(type: EventType.key, code: UInt16($0)) }
        allNames = names.compactMap { $0 }
    }

    public func code(named name: String) -> UInt16? {
        EventCodeNames.code(named: name, type: EventType.key)
    }

    public func name(of code: UInt16) -> String? {
        Int(code) < names.count ? names[Int(code)] : nil
    }
}

extension KeyNames {
    /// Registers libevdev's key names (``LibevdevKeyNames``) as the process's: what the
    /// executable does at start, and the test support before it reads a config.
    public static func useLibevdev() {
        register(LibevdevKeyNames.shared)
    }
}
