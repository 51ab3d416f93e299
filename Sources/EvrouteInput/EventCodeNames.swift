import CEvdev

/// Names of event types and codes, from libevdev's tables (`KEY_ENTER`, `ABS_MT_SLOT`, `EV_KEY`).
public enum EventCodeNames {
    /// The name of an event type (`EV_KEY`), or nil when libevdev does not know it.
    public static func typeName(_ type: UInt16) -> String? {
        guard let name = libevdev_event_type_get_name(UInt32(type)) else { return nil }
        return String(cString: name)
    }

    /// The name of a code of a type (`KEY_ENTER` for EV_KEY 28), or nil when libevdev does not know it.
    public static func codeName(type: UInt16, code: UInt16) -> String? {
        guard let name = libevdev_event_code_get_name(UInt32(type), UInt32(code)) else { return nil }
        return String(cString: name)
    }

    /// The name of a key code; unknown codes are spelled `KEY_<decimal code>`.
    public static func keyName(_ code: UInt16) -> String {
        codeName(type: EventType.key, code: code) ?? "KEY_\(code)"
    }

    /// The code for a name within a type (`ABS_X` in EV_ABS → 0), or nil.
    public static func code(named name: String, type: UInt16) -> UInt16? {
        let value = libevdev_event_code_from_name(UInt32(type), name)
        return value < 0 ? nil : UInt16(value)
    }

    /// The type and code for a code name alone (`KEY_ENTER` → EV_KEY, 28), or nil.
    public static func typeAndCode(named name: String) -> (type: UInt16, code: UInt16)? {
        let type = libevdev_event_type_from_code_name(name)
        guard type >= 0 else { return nil }
        let code = libevdev_event_code_from_code_name(name)
        guard code >= 0 else { return nil }
        return (UInt16(type), UInt16(code))
    }
}
