/// How a device reports its contacts.
public enum TouchProtocol: Equatable, Sendable {
    /// Multi-touch protocol B: `ABS_MT_SLOT` + `ABS_MT_TRACKING_ID`, with this many slots.
    case slots(count: Int)
    /// Multi-touch protocol A: anonymous contacts, each closed by `SYN_MT_REPORT`.
    case contactReports
    /// `ABS_X`/`ABS_Y` + `BTN_TOUCH`, one contact.
    case singleTouch
    /// Not a touch device.
    case none

    /// The protocol a device speaks: MT axes win (then `ABS_X`/`ABS_Y`/`BTN_TOUCH` are ignored),
    /// with slots meaning protocol B.
    public static func of(_ description: DeviceDescription) -> TouchProtocol {
        let abs = description.events[EventType.abs] ?? []
        if abs.contains(AbsCode.mtPositionX) && abs.contains(AbsCode.mtPositionY) {
            if abs.contains(AbsCode.mtSlot) {
                let maximum = Int(description.absinfo[AbsCode.mtSlot]?.maximum ?? 0)
                return .slots(count: min(max(maximum + 1, 1), TouchProtocol.maximumSlots))
            }
            return .contactReports
        }
        if abs.contains(AbsCode.x) && abs.contains(AbsCode.y) && description.has(EventType.key, KeyCode.btnTouch) {
            return .singleTouch
        }
        return .none
    }

    /// The most slots the decoder keeps (devices report up to a few dozen).
    public static let maximumSlots = 256
}
