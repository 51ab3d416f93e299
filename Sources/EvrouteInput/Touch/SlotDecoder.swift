/// Protocol B: `ABS_MT_SLOT` picks a slot, the events after it set that slot's values; at the
/// frame's end the slots the frame addressed are finished in slot order.
final class SlotDecoder: ProtocolDecoder {
    /// The slots the device declares (may be more than are kept).
    private let declaredSlots: Int
    @exclusivity(unchecked) private var slots: [SlotState]
    @exclusivity(unchecked) private var currentSlot: Int
    /// Slots below 64 that events of the current frame addressed (bit per slot).
    @exclusivity(unchecked) private var touchedSlots: UInt64 = 0
    /// An event of the current frame addressed a slot of 64 or beyond.
    @exclusivity(unchecked) private var touchedSlotsBeyondMask = false

    init(slots count: Int, declaredSlots: Int, initialSlot: Int, frame: TouchFrameBuilder) {
        self.declaredSlots = declaredSlots
        slots = Array(repeating: SlotState(), count: count)
        currentSlot = initialSlot
        super.init(frame: frame)
    }

    override var liveContactCount: Int { slots.reduce(0) { $0 + ($1.contact > 0 ? 1 : 0) } }

    override func feed(_ event: InputEvent) {
        guard event.type == EventType.abs else { return }
        if event.code == AbsCode.mtSlot {
            currentSlot = Int(event.value)
            return
        }
        let slot = currentSlot
        if slot >= 0 && slot < 64 { touchedSlots |= 1 << UInt64(slot) } else { touchedSlotsBeyondMask = true }
        guard slot >= 0 && slot < slots.count else {
            // A contact the slot limit leaves out: counted and said once, never silently.
            if event.code == AbsCode.mtTrackingID, event.value >= 0, slot >= slots.count {
                frame.dropContact(.slotBeyondLimit(slot: slot, declared: declaredSlots))
            }
            return
        }
        if event.code == AbsCode.mtTrackingID {
            if event.value != slots[slot].pending.trackingID {
                slots[slot].pending.trackingID = event.value < 0 ? -1 : event.value
                slots[slot].interrupted = true
            }
            return
        }
        slots[slot].setMT(code: event.code, value: event.value)
    }

    /// Finishes the slots this frame's events addressed: below 64, a bit each, visited in slot
    /// order; beyond (devices with more slots), every slot.
    override func finish() {
        if touchedSlotsBeyondMask {
            touchedSlotsBeyondMask = false
            touchedSlots = 0
            for index in slots.indices { slots[index].finish(into: frame) }
            return
        }
        var mask = touchedSlots
        touchedSlots = 0
        while mask != 0 {
            let index = mask.trailingZeroBitCount
            mask &= mask - 1
            if index < slots.count { slots[index].finish(into: frame) }
        }
    }

    override func cancelAll() {
        for index in slots.indices { slots[index].cancel(into: frame) }
    }

    /// Missing slots of `snapshot` count as empty.
    override func resync(_ snapshot: TouchSnapshot) {
        for index in slots.indices {
            let read = index < snapshot.slots.count ? snapshot.slots[index] : TouchSnapshot.Slot(trackingID: -1)
            slots[index].resync(to: RawContact(trackingID: read.trackingID, x: read.x, y: read.y, pressure: read.pressure,
                                               touchMajor: read.touchMajor, touchMinor: read.touchMinor, toolType: read.toolType),
                                into: frame)
        }
        currentSlot = snapshot.currentSlot
    }

    override func resyncedState() -> TouchSnapshot {
        TouchSnapshot(slots: slots.map {
            TouchSnapshot.Slot(trackingID: $0.pending.trackingID, x: $0.pending.x, y: $0.pending.y,
                               pressure: $0.pending.pressure, touchMajor: $0.pending.touchMajor,
                               touchMinor: $0.pending.touchMinor, toolType: $0.pending.toolType)
        }, currentSlot: currentSlot)
    }
}
