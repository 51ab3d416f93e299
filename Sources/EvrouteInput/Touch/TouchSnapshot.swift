import EvrouteCore

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

extension TouchSnapshot {
    /// The snapshot as the events of a libevdev resync: `SYN_DROPPED`, the values of every slot
    /// with a contact down (or single-touch `BTN_TOUCH` and position), `SYN_REPORT`. Empty when
    /// nothing is down. A ``TouchDecoder`` for a device with ``DeviceDescription/resyncsAfterDrop``
    /// turns them into touches that begin now.
    public func resyncEvents(at time: Timestamp) -> [InputEvent] {
        var events: [InputEvent] = []
        func add(_ type: UInt16, _ code: UInt16, _ value: Int32) {
            events.append(InputEvent(time: time, type: type, code: code, value: value))
        }
        let down = slots.enumerated().filter { $0.element.trackingID >= 0 }
        if !down.isEmpty {
            add(EventType.syn, SynCode.dropped, 0)
            for (index, slot) in down {
                add(EventType.abs, AbsCode.mtSlot, Int32(index))
                add(EventType.abs, AbsCode.mtTrackingID, slot.trackingID)
                add(EventType.abs, AbsCode.mtPositionX, slot.x)
                add(EventType.abs, AbsCode.mtPositionY, slot.y)
                add(EventType.abs, AbsCode.mtPressure, slot.pressure)
                add(EventType.abs, AbsCode.mtTouchMajor, slot.touchMajor)
                add(EventType.abs, AbsCode.mtTouchMinor, slot.touchMinor)
                add(EventType.abs, AbsCode.mtToolType, slot.toolType)
            }
            add(EventType.abs, AbsCode.mtSlot, Int32(currentSlot))
            add(EventType.syn, SynCode.report, 0)
        } else if slots.isEmpty && touching {
            add(EventType.syn, SynCode.dropped, 0)
            add(EventType.key, KeyCode.btnTouch, 1)
            add(EventType.abs, AbsCode.x, x)
            add(EventType.abs, AbsCode.y, y)
            add(EventType.abs, AbsCode.pressure, pressure)
            add(EventType.syn, SynCode.report, 0)
        }
        return events
    }
}
