/// What the input layer tells the core about one contact in one frame.
public enum ContactChange: Sendable, Equatable {
    /// A new contact touched down.
    case began
    /// The contact is still down (it may or may not have moved).
    case moved
    /// The contact lifted.
    case ended
    /// The contact's state was lost (SYN_DROPPED, unplug): it did not lift normally.
    case cancelled
}

/// One contact's state in one frame (one SYN_REPORT), already in display coordinates.
public struct ContactSample: Sendable, Equatable {
    /// The input layer's identity of the contact, unique per device while it is down.
    public var contact: Int
    public var change: ContactChange
    public var location: Point
    /// Pressure, when the device reports it (raw device units).
    public var pressure: Double?
    /// Major and minor radius of the contact ellipse in display units, when reported.
    public var majorRadius: Double?
    public var minorRadius: Double?
    /// Tool type (`MT_TOOL_FINGER` = 0, pen = 1, palm = 2), when reported.
    public var toolType: Int?

    public init(contact: Int, change: ContactChange, location: Point,
                pressure: Double? = nil, majorRadius: Double? = nil, minorRadius: Double? = nil,
                toolType: Int? = nil) {
        self.contact = contact
        self.change = change
        self.location = location
        self.pressure = pressure
        self.majorRadius = majorRadius
        self.minorRadius = minorRadius
        self.toolType = toolType
    }
}

/// Everything one device reported up to one SYN_REPORT: a UIEvent's worth of touches.
public struct TouchFrameInput: Sendable {
    public var device: DeviceID
    public var time: Timestamp
    /// Contacts that changed (began, moved, ended or cancelled) in this frame.
    public var contacts: [ContactSample]

    public init(device: DeviceID, time: Timestamp, contacts: [ContactSample]) {
        self.device = device
        self.time = time
        self.contacts = contacts
    }
}
