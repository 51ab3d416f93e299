import EvrouteCore

/// What udev's `input_id` builtin would say about a device: one flag per `ID_INPUT_*` property.
public struct DeviceClassification: Hashable, Sendable {
    public var isTouchscreen = false
    public var isTouchpad = false
    public var isTablet = false
    public var isTabletPad = false
    public var isJoystick = false
    /// `ID_INPUT_MOUSE` (relative mice and absolute "mice" with buttons).
    public var isMouse = false
    public var isPointingStick = false
    public var isAccelerometer = false
    /// `ID_INPUT_KEYBOARD`: a full keyboard.
    public var isKeyboard = false
    /// `ID_INPUT_KEY`: has some keys.
    public var hasKeys = false
    public var isSwitch = false

    public init() {}

    /// The one kind the router uses, most specific first: accelerometer, touchscreen, tablet,
    /// touchpad, keyboard, pointer (mouse or pointing stick), joystick, key, switch, other.
    /// A keyboard and touchpad on one event node is a touchpad by this order; a keyboard that
    /// also reports a wheel or mouse buttons (a mouse-only node is a pointer) is a keyboard.
    public var kind: DeviceKind {
        if isAccelerometer { return .accelerometer }
        if isTouchscreen { return .touchscreen }
        if isTablet || isTabletPad { return .tablet }
        if isTouchpad { return .touchpad }
        if isKeyboard { return .keyboard }
        if isMouse || isPointingStick { return .pointer }
        if isJoystick { return .joystick }
        if hasKeys { return .key }
        if isSwitch { return .switchDevice }
        return .other
    }
}

/// Classifies a device from its capabilities the way udev's `input_id` builtin does
/// (systemd `src/udev/udev-builtin-input_id.c`), so a recording gets the kind a live device
/// with the same capabilities would get from `ID_INPUT_*`.
public enum DeviceClassifier {
    /// The device's kind (see `DeviceClassification.kind`).
    public static func kind(of description: DeviceDescription) -> DeviceKind {
        classify(description).kind
    }

    /// All of input_id's flags for the device.
    public static func classify(_ d: DeviceDescription) -> DeviceClassification {
        var result = DeviceClassification()
        let keys = d.events[EventType.key] ?? []
        let abs = d.events[EventType.abs] ?? []
        let rel = d.events[EventType.rel] ?? []
        let hasKeyType = d.events[EventType.key] != nil

        if d.events[EventType.sw] != nil { result.isSwitch = true }

        // Pointers (test_pointers).
        let hasAbsCoordinates = abs.contains(AbsCode.x) && abs.contains(AbsCode.y)
        let has3DCoordinates = hasAbsCoordinates && abs.contains(AbsCode.z)
        if d.properties.contains(InputProperty.accelerometer) || (!hasKeyType && has3DCoordinates) {
            result.isAccelerometer = true
            return result
        }
        result.isPointingStick = d.properties.contains(InputProperty.pointingStick)
        let isStylus = keys.contains(KeyCode.btnStylus)
        let isPen = keys.contains(KeyCode.btnToolPen)
        let isFinger = keys.contains(KeyCode.btnToolFinger)
        var hasMTCoordinates = abs.contains(AbsCode.mtPositionX) && abs.contains(AbsCode.mtPositionY)
        // Devices that claim every abs axis (ABS_MT_SLOT and the axis below it) are not MT devices.
        if hasMTCoordinates && abs.contains(AbsCode.mtSlot) && abs.contains(AbsCode.mtSlot - 1) {
            hasMTCoordinates = false
        }
        let isDirect = d.properties.contains(InputProperty.direct)
        let hasTouch = keys.contains(KeyCode.btnTouch)
        let hasPadButtons = keys.contains(KeyCode.btn0) && keys.contains(KeyCode.btn1) && !hasTouch
        let hasWheel = rel.contains(RelCode.wheel) || rel.contains(RelCode.hwheel)
        let hasRelCoordinates = rel.contains(RelCode.x) && rel.contains(RelCode.y)
        let hasMouseButton = keys.contains(KeyCode.btnMouse)

        var hasJoystickAxesOrButtons = keys.contains { code in
            (code >= KeyCode.btnJoystick && code < KeyCode.btnDigi)
                || (code >= KeyCode.btnTriggerHappy && code <= KeyCode.btnTriggerHappy40)
                || (code >= KeyCode.btnDpadUp && code <= KeyCode.btnDpadRight)
        }
        if !hasJoystickAxesOrButtons {
            hasJoystickAxesOrButtons = abs.contains { $0 >= AbsCode.rx && $0 < AbsCode.pressure }
        }

        var isAbsMouse = false
        if hasAbsCoordinates {
            if isStylus || isPen { result.isTablet = true }
            else if isFinger && !isDirect { result.isTouchpad = true }
            else if hasMouseButton { isAbsMouse = true }
            else if hasTouch || isDirect { result.isTouchscreen = true }
            else if hasJoystickAxesOrButtons { result.isJoystick = true }
        } else if hasJoystickAxesOrButtons {
            result.isJoystick = true
        }
        if hasMTCoordinates {
            if isStylus || isPen { result.isTablet = true }
            else if isFinger && !isDirect { result.isTouchpad = true }
            else if hasTouch || isDirect { result.isTouchscreen = true }
        }
        if result.isTablet && hasPadButtons { result.isTabletPad = true }
        if hasPadButtons && hasWheel && !hasRelCoordinates {
            result.isTablet = true
            result.isTabletPad = true
        }
        if !result.isTablet && !result.isTouchpad && !result.isJoystick && hasMouseButton
            && (hasRelCoordinates || !hasAbsCoordinates) {
            result.isMouse = true
        }
        if isAbsMouse { result.isMouse = true }
        // There is no such thing as an i2c mouse.
        if result.isMouse && d.bus == BusType.i2c { result.isPointingStick = true }

        // Keyboards with multimedia buttons in the joystick range are not joysticks.
        if result.isJoystick && hasKeyType {
            let wellKnown = keys.filter { $0 >= KeyCode.esc && $0 <= KeyCode.d }.count
            let keyCount = keys.filter(isKeyboardKey).count
            if wellKnown >= 4 || keyCount >= 10 { result.isJoystick = false }
        }

        // Keys (test_key).
        if hasKeyType {
            result.hasKeys = keys.contains(where: isKeyboardKey)
            // The first 32 codes (without KEY_RESERVED) are ESC, the digits, and Q to D: a full keyboard.
            result.isKeyboard = (KeyCode.esc...31).allSatisfy { keys.contains($0) }
        }
        // A wheel alone (e.g. a volume knob) makes a "key" device.
        if !result.hasKeys && hasWheel && !result.isMouse && !result.isTouchpad && !result.isTablet && !result.isJoystick {
            result.hasKeys = true
        }
        return result
    }

    /// KEY_* codes (not BTN_*): below BTN_MISC, or in the high key blocks.
    private static func isKeyboardKey(_ code: UInt16) -> Bool {
        code < KeyCode.btnMisc
            || (code >= KeyCode.ok && code < KeyCode.btnDpadUp)
            || (code >= KeyCode.alsToggle && code < KeyCode.btnTriggerHappy)
    }
}

extension DeviceKind {
    /// The kind a live device's udev properties give it (`ID_INPUT_TOUCHSCREEN=1`, …), in the order of
    /// `DeviceClassification.kind`; `.other` when none is set.
    public static func from(udevProperties: [String: String]) -> DeviceKind {
        func isSet(_ key: String) -> Bool { udevProperties[key] == "1" }
        var c = DeviceClassification()
        c.isAccelerometer = isSet("ID_INPUT_ACCELEROMETER")
        c.isTouchscreen = isSet("ID_INPUT_TOUCHSCREEN")
        c.isTablet = isSet("ID_INPUT_TABLET")
        c.isTabletPad = isSet("ID_INPUT_TABLET_PAD")
        c.isTouchpad = isSet("ID_INPUT_TOUCHPAD")
        c.isKeyboard = isSet("ID_INPUT_KEYBOARD")
        c.isMouse = isSet("ID_INPUT_MOUSE")
        c.isPointingStick = isSet("ID_INPUT_POINTINGSTICK")
        c.isJoystick = isSet("ID_INPUT_JOYSTICK")
        c.hasKeys = isSet("ID_INPUT_KEY")
        c.isSwitch = isSet("ID_INPUT_SWITCH")
        return c.kind
    }
}
