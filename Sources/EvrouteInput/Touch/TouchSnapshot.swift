/// A device's complete touch state, as libevdev knows it after a `SYN_DROPPED` resync
/// (`libevdev_get_slot_value`, `libevdev_get_event_value`); given to `TouchDecoder.resync(_:at:)`.
public struct TouchSnapshot: Sendable, Equatable {
    /// One protocol-B slot.
    public struct Slot: Sendable, Equatable {
        /// `ABS_MT_TRACKING_ID`; -1 when the slot is empty.
        public var trackingID: Int32
        public var x: Int32
        public var y: Int32
        public var pressure: Int32
        public var touchMajor: Int32
        public var touchMinor: Int32
        public var toolType: Int32

        public init(trackingID: Int32, x: Int32 = 0, y: Int32 = 0, pressure: Int32 = 0,
                    touchMajor: Int32 = 0, touchMinor: Int32 = 0, toolType: Int32 = 0) {
            self.trackingID = trackingID
            self.x = x
            self.y = y
            self.pressure = pressure
            self.touchMajor = touchMajor
            self.touchMinor = touchMinor
            self.toolType = toolType
        }
    }

    /// Protocol B: every slot, in slot order (missing slots count as empty).
    public var slots: [Slot]
    /// Protocol B: the slot later events without `ABS_MT_SLOT` apply to.
    public var currentSlot: Int
    /// Single-touch: `BTN_TOUCH`.
    public var touching: Bool
    /// Single-touch: `ABS_X`, `ABS_Y`, `ABS_PRESSURE`.
    public var x: Int32
    public var y: Int32
    public var pressure: Int32

    public init(slots: [Slot] = [], currentSlot: Int = 0, touching: Bool = false, x: Int32 = 0, y: Int32 = 0, pressure: Int32 = 0) {
        self.slots = slots
        self.currentSlot = currentSlot
        self.touching = touching
        self.x = x
        self.y = y
        self.pressure = pressure
    }
}
