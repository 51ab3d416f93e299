/// Event types (`EV_*` in `linux/input-event-codes.h`).
public enum EventType {
    public static let syn: UInt16 = 0x00
    public static let key: UInt16 = 0x01
    public static let rel: UInt16 = 0x02
    public static let abs: UInt16 = 0x03
    public static let msc: UInt16 = 0x04
    public static let sw: UInt16 = 0x05
    public static let led: UInt16 = 0x11
    public static let snd: UInt16 = 0x12
    public static let rep: UInt16 = 0x14
    public static let ff: UInt16 = 0x15
    /// `EV_MAX`.
    public static let max: UInt16 = 0x1f
}

/// `SYN_*` codes.
public enum SynCode {
    public static let report: UInt16 = 0
    public static let config: UInt16 = 1
    public static let mtReport: UInt16 = 2
    public static let dropped: UInt16 = 3
}

/// `ABS_*` codes the input layer uses.
public enum AbsCode {
    public static let x: UInt16 = 0x00
    public static let y: UInt16 = 0x01
    public static let z: UInt16 = 0x02
    public static let rx: UInt16 = 0x03
    public static let pressure: UInt16 = 0x18
    public static let mtSlot: UInt16 = 0x2f
    public static let mtTouchMajor: UInt16 = 0x30
    public static let mtTouchMinor: UInt16 = 0x31
    public static let mtWidthMajor: UInt16 = 0x32
    public static let mtWidthMinor: UInt16 = 0x33
    public static let mtOrientation: UInt16 = 0x34
    public static let mtPositionX: UInt16 = 0x35
    public static let mtPositionY: UInt16 = 0x36
    public static let mtToolType: UInt16 = 0x37
    public static let mtBlobID: UInt16 = 0x38
    public static let mtTrackingID: UInt16 = 0x39
    public static let mtPressure: UInt16 = 0x3a
    public static let mtDistance: UInt16 = 0x3b
    public static let mtToolX: UInt16 = 0x3c
    public static let mtToolY: UInt16 = 0x3d
}

/// `REL_*` codes the classifier uses.
public enum RelCode {
    public static let x: UInt16 = 0x00
    public static let y: UInt16 = 0x01
    public static let hwheel: UInt16 = 0x06
    public static let wheel: UInt16 = 0x08
}

/// `KEY_*` / `BTN_*` codes the input layer uses.
public enum KeyCode {
    public static let reserved: UInt16 = 0
    public static let esc: UInt16 = 1
    public static let d: UInt16 = 32
    public static let btnMisc: UInt16 = 0x100
    public static let btn0: UInt16 = 0x100
    public static let btn1: UInt16 = 0x101
    public static let btnMouse: UInt16 = 0x110
    public static let btnLeft: UInt16 = 0x110
    public static let btnJoystick: UInt16 = 0x120
    public static let btnDigi: UInt16 = 0x140
    public static let btnToolPen: UInt16 = 0x140
    public static let btnToolRubber: UInt16 = 0x141
    public static let btnToolBrush: UInt16 = 0x142
    public static let btnToolPencil: UInt16 = 0x143
    public static let btnToolAirbrush: UInt16 = 0x144
    public static let btnToolFinger: UInt16 = 0x145
    public static let btnToolMouse: UInt16 = 0x146
    public static let btnToolLens: UInt16 = 0x147
    public static let btnToolQuintTap: UInt16 = 0x148
    public static let btnStylus3: UInt16 = 0x149
    public static let btnTouch: UInt16 = 0x14a
    public static let btnStylus: UInt16 = 0x14b
    public static let btnStylus2: UInt16 = 0x14c
    public static let btnToolDoubleTap: UInt16 = 0x14d
    public static let btnToolTripleTap: UInt16 = 0x14e
    public static let btnToolQuadTap: UInt16 = 0x14f
    public static let ok: UInt16 = 0x160
    public static let btnDpadUp: UInt16 = 0x220
    public static let btnDpadRight: UInt16 = 0x223
    public static let alsToggle: UInt16 = 0x230
    public static let btnTriggerHappy: UInt16 = 0x2c0
    public static let btnTriggerHappy40: UInt16 = 0x2e7
    /// `KEY_MAX`.
    public static let max: UInt16 = 0x2ff

    /// Whether `code` is a digitizer button (`BTN_TOOL_*`, `BTN_TOUCH`, `BTN_STYLUS*`):
    /// part of a touch device's contact state, never a key press.
    public static func isDigitizerButton(_ code: UInt16) -> Bool { code >= 0x140 && code <= 0x14f }
}

/// `INPUT_PROP_*` device properties.
public enum InputProperty {
    public static let pointer: UInt16 = 0x00
    public static let direct: UInt16 = 0x01
    public static let buttonPad: UInt16 = 0x02
    public static let semiMT: UInt16 = 0x03
    public static let topButtonPad: UInt16 = 0x04
    public static let pointingStick: UInt16 = 0x05
    public static let accelerometer: UInt16 = 0x06
    /// `INPUT_PROP_MAX`.
    public static let max: UInt16 = 0x1f
}

/// `BUS_*` bus types the classifier cares about.
public enum BusType {
    public static let usb: UInt16 = 0x03
    public static let i2c: UInt16 = 0x18
}
