/// One contact's raw axis values, in device units.
struct RawContact: Equatable {
    var trackingID: Int32 = -1
    var x: Int32 = 0
    var y: Int32 = 0
    var pressure: Int32 = 0
    var touchMajor: Int32 = 0
    var touchMinor: Int32 = 0
    var toolType: Int32 = 0

    /// Stores an `ABS_MT_*` value; returns whether a reported value changed. Unknown codes are ignored.
    @inline(__always)
    mutating func setMT(code: UInt16, value: Int32) -> Bool {
        switch code {
        case AbsCode.mtPositionX: return Self.update(&x, value)
        case AbsCode.mtPositionY: return Self.update(&y, value)
        case AbsCode.mtPressure: return Self.update(&pressure, value)
        case AbsCode.mtTouchMajor: return Self.update(&touchMajor, value)
        case AbsCode.mtTouchMinor: return Self.update(&touchMinor, value)
        case AbsCode.mtToolType: return Self.update(&toolType, value)
        default: return false
        }
    }

    @inline(__always)
    private static func update(_ field: inout Int32, _ value: Int32) -> Bool {
        if field == value { return false }
        field = value
        return true
    }
}
