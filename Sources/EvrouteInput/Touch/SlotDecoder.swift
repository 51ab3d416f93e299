/// Protocol B: `ABS_MT_SLOT` picks a slot, the events after it set that slot's values; at the
/// frame's end the slots the frame addressed are finished in slot order.
///
/// The slots are fixed-size storage for ``TouchProtocol/maximumSlots`` (18 KiB): an event's
/// value goes to its slot without a copy-on-write check. Its private per-event state skips
/// dynamic exclusivity checks (confined to the event loop; the live path's profile shows them).
final class SlotDecoder: ProtocolDecoder {
    typealias Slots = InlineArray<256, SlotState>

    /// The slots the device declares (may be more than are kept).
    private let declaredSlots: Int
    /// The first `slotCount` are used.
    @exclusivity(unchecked) private var slots = Slots(repeating: SlotState())
    private let slotCount: Int
    @exclusivity(unchecked) private var currentSlot: Int
    /// Slots below 64 that events of the current frame addressed (bit per slot).
    @exclusivity(unchecked) private var touchedSlots: UInt64 = 0
    /// An event of the current frame addressed a slot of 64 or beyond.
    @exclusivity(unchecked) private var touchedSlotsBeyondMask = false

    init(slots count: Int, declaredSlots: Int, initialSlot: Int, frame: TouchFrameBuilder) {
        self.declaredSlots = declaredSlots
        assert(TouchProtocol.maximumSlots == Slots.count)
        slotCount = min(count, Slots.count)
        currentSlot = initialSlot
        super.init(frame: frame)
    }

    override var liveContactCount: Int {
        var live = 0
        for index in 0..<slotCount where slots[index].contact > 0 { live += 1 }
        return live
    }

    override func feed(_ event: InputEvent) {
        guard event.type == EventType.abs else { return }
        feedAxis(event)
    }

    /// A frame's axis events in one loop (most of a frame: `ABS_MT_SLOT`, the positions, …).
    override func feedAxes(_ events: InputBatch, from start: Int) -> Int {
        var i = start
        while i < events.count {
            let event = events[i]
            guard event.type == EventType.abs else { break }
            feedAxis(event)
            i += 1
        }
        return i
    }

    @inline(__always)
    private func feedAxis(_ event: InputEvent) {
        if event.code == AbsCode.mtSlot {
            currentSlot = Int(event.value)
            return
        }
        let slot = currentSlot
        if slot >= 0 && slot < 64 { touchedSlots |= 1 << UInt64(slot) } else { touchedSlotsBeyondMask = true }
        guard slot >= 0 && slot < slotCount else {
            // A contact the slot limit leaves out: counted and said once, never silently.
            if event.code == AbsCode.mtTrackingID, event.value >= 0, slot >= slotCount {
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
            for index in 0..<slotCount { slots[index].finish(into: frame) }
            return
        }
        var mask = touchedSlots
        touchedSlots = 0
        while mask != 0 {
            let index = mask.trailingZeroBitCount
            mask &= mask - 1
            if index < slotCount { slots[index].finish(into: frame) }
        }
    }

    override func cancelAll() {
        for index in 0..<slotCount { slots[index].cancel(into: frame) }
    }

    /// Missing slots of `snapshot` count as empty.
    override func resync(_ snapshot: TouchSnapshot) {
        for index in 0..<slotCount {
            let read = index < snapshot.slots.count ? snapshot.slots[index] : TouchSnapshot.Slot(trackingID: -1)
            slots[index].resync(to: RawContact(trackingID: read.trackingID, x: read.x, y: read.y, pressure: read.pressure,
                                               touchMajor: read.touchMajor, touchMinor: read.touchMinor, toolType: read.toolType),
                                into: frame)
        }
        currentSlot = snapshot.currentSlot
    }

    override func resyncedState() -> TouchSnapshot {
        TouchSnapshot(slots: (0..<slotCount).map {
            let p = slots[$0].pending
            return TouchSnapshot.Slot(trackingID: p.trackingID, x: p.x, y: p.y, pressure: p.pressure,
                                      touchMajor: p.touchMajor, touchMinor: p.touchMinor, toolType: p.toolType)
        }, currentSlot: currentSlot)
    }
}
