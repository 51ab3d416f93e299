import EvrouteCore

extension DeviceKind {
    /// The kind udev's `input_id` builtin assigned, from its `ID_INPUT_*` properties
    /// (each `"1"` when set), or nil when udev has not classified the device (no
    /// `ID_INPUT*` property: udevd did not run; classify from capabilities instead).
    ///
    /// A device can carry several tags (a keyboard with a built-in pointer); the first
    /// in this order wins: touchscreen, tablet, touchpad, joystick, pointer (mouse,
    /// pointing stick, trackball), keyboard, key, accelerometer, switch. A device udev
    /// marked `ID_INPUT=1` with none of these is ``other``.
    public static func fromUdev(properties: [String: String]) -> DeviceKind? {
        func tagged(_ key: String) -> Bool { properties[key] == "1" }
        let order: [(String, DeviceKind)] = [
            ("ID_INPUT_TOUCHSCREEN", .touchscreen),
            ("ID_INPUT_TABLET", .tablet),
            ("ID_INPUT_TOUCHPAD", .touchpad),
            ("ID_INPUT_JOYSTICK", .joystick),
            ("ID_INPUT_MOUSE", .pointer),
            ("ID_INPUT_POINTINGSTICK", .pointer),
            ("ID_INPUT_TRACKBALL", .pointer),
            ("ID_INPUT_KEYBOARD", .keyboard),
            ("ID_INPUT_KEY", .key),
            ("ID_INPUT_ACCELEROMETER", .accelerometer),
            ("ID_INPUT_SWITCH", .switchDevice),
        ]
        for (key, kind) in order where tagged(key) { return kind }
        return tagged("ID_INPUT") ? .other : nil
    }
}
