/// Identifies one input device (live or replayed) for the life of the daemon.
/// Numbers are never reused, so a re-plugged device gets a new one.
public struct DeviceID: Hashable, Sendable, CustomStringConvertible {
    public var rawValue: Int
    public init(_ rawValue: Int) { self.rawValue = rawValue }
    public var description: String { "device#\(rawValue)" }
}

/// A device as the router knows it: which rule matched it and which display it drives.
///
/// Every routed event carries one, so its fields live behind a single copy-on-write
/// reference: copying a `DeviceInfo` is one retain, not one per string.
public struct DeviceInfo: Sendable {
    final class Storage: @unchecked Sendable {
        var id: DeviceID
        var ruleName: String
        var name: String
        var kind: DeviceKind
        var display: String
        var typesText = false
        var rightAltTypes = false

        init(id: DeviceID, ruleName: String, name: String, kind: DeviceKind, display: String) {
            self.id = id
            self.ruleName = ruleName
            self.name = name
            self.kind = kind
            self.display = display
        }

        func copy() -> Storage {
            let s = Storage(id: id, ruleName: ruleName, name: name, kind: kind, display: display)
            s.typesText = typesText
            s.rightAltTypes = rightAltTypes
            return s
        }
    }

    // Mutated only through the setters below, which copy a shared storage first.
    var storage: Storage

    private mutating func unique() -> Storage {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        return storage
    }

    public var id: DeviceID {
        get { storage.id }
        set { unique().id = newValue }
    }
    /// The name of the matching device rule (the trace's `device` field).
    public var ruleName: String {
        get { storage.ruleName }
        set { unique().ruleName = newValue }
    }
    /// The kernel's name of the device.
    public var name: String {
        get { storage.name }
        set { unique().name = newValue }
    }
    public var kind: DeviceKind {
        get { storage.kind }
        set { unique().kind = newValue }
    }
    /// Whether the device types text (its rule's `text:` is on or `line`, and it has typing keys):
    /// a typing key whose text a handler takes is never forwarded (the text is evroute's).
    public var typesText: Bool {
        get { storage.typesText }
        set { unique().typesText = newValue }
    }
    /// Whether its keymap makes Right Alt a key that types (AltGr, a compose key: `de`,
    /// `compose:ralt`), not an Alt: a key pressed with it held is still text.
    public var rightAltTypes: Bool {
        get { storage.rightAltTypes }
        set { unique().rightAltTypes = newValue }
    }
    /// The display its touches land on, or keys go to.
    public var display: String {
        get { storage.display }
        set { unique().display = newValue }
    }

    public init(id: DeviceID, ruleName: String, name: String, kind: DeviceKind, display: String) {
        storage = Storage(id: id, ruleName: ruleName, name: name, kind: kind, display: display)
    }
}

/// What a device is, as udev's input_id classifies it.
public enum DeviceKind: String, Sendable, CaseIterable {
    case touchscreen, keyboard, pointer, touchpad, tablet, joystick, accelerometer, key, switchDevice = "switch", other
}
