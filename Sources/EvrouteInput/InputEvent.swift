import EvrouteCore

/// One raw evdev event (`struct input_event`), from a live device or a recording.
/// Everything in the input layer speaks this type, so devices and recordings are one stream.
public struct InputEvent: Hashable, Sendable {
    public var time: Timestamp
    public var type: UInt16
    public var code: UInt16
    public var value: Int32

    public init(time: Timestamp, type: UInt16, code: UInt16, value: Int32) {
        self.time = time
        self.type = type
        self.code = code
        self.value = value
    }
}
