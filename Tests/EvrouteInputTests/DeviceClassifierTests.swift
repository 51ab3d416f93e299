import EvrouteCore
@testable import EvrouteInput
import Testing
import EvrouteChecks

@Suite("Device classification")
struct DeviceClassifierTests {
    @Test("Synthetic devices classify like input_id")
    func synthetic() {
        expectEqual(DeviceClassifier.kind(of: Devices.protocolB()), .touchscreen)
        expectEqual(DeviceClassifier.kind(of: Devices.protocolA()), .touchscreen)
        expectEqual(DeviceClassifier.kind(of: Devices.singleTouch()), .touchscreen)

        var touchpad = Devices.protocolB()
        touchpad.properties = [InputProperty.pointer, InputProperty.buttonPad]
        touchpad.events[EventType.key] = [KeyCode.btnTouch, KeyCode.btnToolFinger, KeyCode.btnLeft]
        expectEqual(DeviceClassifier.kind(of: touchpad), .touchpad)

        var pen = Devices.singleTouch()
        pen.events[EventType.key] = [KeyCode.btnTouch, KeyCode.btnToolPen, KeyCode.btnStylus]
        expectEqual(DeviceClassifier.kind(of: pen), .tablet)

        // Direct + BTN_TOOL_FINGER is still a touchscreen.
        var direct = Devices.protocolB()
        direct.events[EventType.key] = [KeyCode.btnTouch, KeyCode.btnToolFinger]
        expectEqual(DeviceClassifier.kind(of: direct), .touchscreen)

        let mouse = DeviceDescription(name: "mouse", events: [EventType.key: [KeyCode.btnLeft, 0x111], EventType.rel: [RelCode.x, RelCode.y, RelCode.wheel]])
        expectEqual(DeviceClassifier.kind(of: mouse), .pointer)

        let keyboard = DeviceDescription(name: "kbd", events: [EventType.key: Set((1...120).map(UInt16.init))])
        expectEqual(DeviceClassifier.kind(of: keyboard), .keyboard)
        var notQuite = keyboard
        notQuite.events[EventType.key]!.remove(16)   // KEY_Q missing: not a full keyboard
        expectEqual(DeviceClassifier.kind(of: notQuite), .key)

        let power = DeviceDescription(name: "Power Button", events: [EventType.key: [116]])
        expectEqual(DeviceClassifier.kind(of: power), .key)

        let accel = DeviceDescription(name: "accel", properties: [InputProperty.accelerometer],
                                      events: [EventType.abs: [AbsCode.x, AbsCode.y, AbsCode.z]])
        expectEqual(DeviceClassifier.kind(of: accel), .accelerometer)
        let accelNoProp = DeviceDescription(name: "accel", events: [EventType.abs: [AbsCode.x, AbsCode.y, AbsCode.z]])
        expectEqual(DeviceClassifier.kind(of: accelNoProp), .accelerometer)

        let lid = DeviceDescription(name: "Lid Switch", events: [EventType.sw: [0]])
        expectEqual(DeviceClassifier.kind(of: lid), .switchDevice)

        let gamepad = DeviceDescription(name: "pad", events: [EventType.key: [0x130, 0x131], EventType.abs: [AbsCode.x, AbsCode.y, AbsCode.rx]])
        expectEqual(DeviceClassifier.kind(of: gamepad), .joystick)
    }

    @Test("udev ID_INPUT_* properties give the kind")
    func udevProperties() {
        expectEqual(DeviceKind.from(udevProperties: ["ID_INPUT": "1", "ID_INPUT_TOUCHSCREEN": "1"]), .touchscreen)
        expectEqual(DeviceKind.from(udevProperties: ["ID_INPUT": "1", "ID_INPUT_KEY": "1", "ID_INPUT_KEYBOARD": "1"]), .keyboard)
        expectEqual(DeviceKind.from(udevProperties: ["ID_INPUT": "1", "ID_INPUT_KEY": "1", "ID_INPUT_KEYBOARD": "1", "ID_INPUT_MOUSE": "1"]), .keyboard)
        expectEqual(DeviceKind.from(udevProperties: ["ID_INPUT": "1", "ID_INPUT_MOUSE": "1"]), .pointer)
        expectEqual(DeviceKind.from(udevProperties: ["ID_INPUT": "1", "ID_INPUT_KEY": "1"]), .key)
        expectEqual(DeviceKind.from(udevProperties: ["ID_INPUT": "1", "ID_INPUT_TOUCHPAD": "1"]), .touchpad)
        expectEqual(DeviceKind.from(udevProperties: ["ID_INPUT": "1", "ID_INPUT_ACCELEROMETER": "1"]), .accelerometer)
        expectEqual(DeviceKind.from(udevProperties: ["ID_INPUT_TOUCHSCREEN": "0"]), .other)
    }

    static let expectedKeyboards: [String: DeviceKind] = [
        // The mouse interface of a keyboard: BTN_LEFT/RIGHT/MIDDLE and REL_X/Y/WHEEL only.
        "CHICONY USB Keyboard.desc": .pointer,
        "Lenovo ThinkPad Compact USB Keyboard with TrackPoint.keyboard.events": .keyboard,
        "Lenovo ThinkPad Compact USB Keyboard with TrackPoint.trackpoint.events": .pointer,
        "Logitech K400 Plus.events": .keyboard,
        "Logitech Unifying Device. Wireless PID:400e.desc": .keyboard,
        "Microsoft Surface Type Cover.events": .keyboard,
        // Its multimedia node also sets the first 32 key bits, so input_id calls it a keyboard.
        "Razer Razer BlackWidow 2013.keyboard-multimedia.desc": .keyboard,
        "Razer Razer BlackWidow 2013.keyboard.desc": .keyboard,
    ]

    @Test("Every real recording classifies sensibly")
    func sharedRecordings() throws {
        for name in Recordings.files(in: "touchscreens") {
            let d = try EvemuRecording.load(path: Recordings.path("touchscreens", name)).description
            expectEqual(DeviceClassifier.kind(of: d), .touchscreen, "\(name)")
        }
        let keyboards = Recordings.files(in: "keyboards")
        expectEqual(Set(keyboards), Set(Self.expectedKeyboards.keys))
        for name in keyboards {
            let d = try EvemuRecording.load(path: Recordings.path("keyboards", name)).description
            expectEqual(DeviceClassifier.kind(of: d), Self.expectedKeyboards[name], "\(name): \(DeviceClassifier.classify(d))")
        }
    }
}
