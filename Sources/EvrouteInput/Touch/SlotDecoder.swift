/// Protocol B: `ABS_MT_SLOT` picks a slot, the events after it set that slot's values; at the
/// frame's end the slots the frame addressed are finished in slot order.
///
/// The slots are fixed-size storage for ``TouchProtocol/maximumSlots`` (18 KiB): an event's
/// value goes to its slot without a copy-on-write check. The slots and the frame's position in
/// them are one value (``SlotTable``). No access to it makes a call (a contact beyond the slot
/// limit is counted after the run; a slot's change is settled in place, then reported):
/// no access can overlap another, so the optimizer checks none of them at run time.
final class SlotDecoder: ProtocolDecoder {
    /// The slots the device declares (may be more than are kept).
    private let declaredSlots: Int
    /// The first `slotCount` are used.
    private let slotCount: Int
    private var table: SlotTable

    init(slots count: Int, declaredSlots: Int, initialSlot: Int, frame: TouchFrameBuilder) {
        self.declaredSlots = declaredSlots
        assert(TouchProtocol.maximumSlots == SlotTable.Slots.count)
        slotCount = min(count, SlotTable.Slots.count)
        table = SlotTable(currentSlot: initialSlot)
        super.init(frame: frame)
    }

    override var liveContactCount: Int {
        var live = 0
        for index in 0..<slotCount where table.slots[index].contact > 0 { live += 1 }
        return live
    }

    override func feed(_ event: InputEvent) {
        guard event.type == EventType.abs else { return }
        var dropped = SlotTable.Dropped()
        table.feedAxis(event, slotCount: slotCount, dropped: &dropped)
        if dropped.count > 0 { drop(dropped) }
    }

    /// A frame's axis events in one loop (most of a frame: `ABS_MT_SLOT`, the positions, …).
    override func feedAxes(_ events: InputBatch, from start: Int) -> Int {
        var dropped = SlotTable.Dropped()
        let end = table.feedAxes(events, from: start, slotCount: slotCount, dropped: &dropped)
        if dropped.count > 0 { drop(dropped) }
        return end
    }

    /// Contacts the slot limit left out: counted and said once, never silently.
    @inline(never)
    private func drop(_ dropped: SlotTable.Dropped) {
        for _ in 0..<dropped.count { frame.dropContact(.slotBeyondLimit(slot: dropped.firstSlot, declared: declaredSlots)) }
    }

    /// Finishes the slots this frame's events addressed: below 64, a bit each, visited in slot
    /// order; beyond (devices with more slots), every slot.
    override func finish() {
        let (mask, beyond) = table.takeTouched()
        if beyond {
            finishEverySlot()
            return
        }
        // The frame's slots finished here, each in line (no call per slot).
        var rest = mask
        while rest != 0 {
            let index = rest.trailingZeroBitCount
            rest &= rest - 1
            if index < slotCount { finishSlot(index) }
        }
    }

    /// ``finish()`` for a device with more than 64 slots: every slot, out of line.
    @inline(never)
    private func finishEverySlot() {
        for index in 0..<slotCount { finishSlot(index) }
    }

    /// One slot's change (``SlotState/settle()``, in place), then reported: the slot's access
    /// ends before the frame is called.
    @inline(__always)
    private func finishSlot(_ index: Int) {
        guard let change = table.slots[index].settle() else { return }
        if change.ended > 0 { frame.add(change.ended, .ended, change.endedValues) }
        if change.begins {
            let number = frame.takeContactNumber()
            table.slots[index].contact = number
            frame.add(number, .began, change.values)
        } else if change.moved > 0 {
            frame.add(change.moved, .moved, change.values)
        }
    }

    override func cancelAll() {
        for index in 0..<slotCount {
            var slot = table.slots[index]
            slot.cancel(into: frame)
            table.slots[index] = slot
        }
    }

    /// Missing slots of `snapshot` count as empty.
    override func resync(_ snapshot: TouchSnapshot) {
        for index in 0..<slotCount {
            let read = index < snapshot.slots.count ? snapshot.slots[index] : TouchSnapshot.Slot(trackingID: -1)
            var slot = table.slots[index]
            slot.resync(to: RawContact(trackingID: read.trackingID, x: read.x, y: read.y, pressure: read.pressure,
                                       touchMajor: read.touchMajor, touchMinor: read.touchMinor, toolType: read.toolType),
                        into: frame)
            table.slots[index] = slot
        }
        table.currentSlot = snapshot.currentSlot
    }

    override func resyncedState() -> TouchSnapshot {
        TouchSnapshot(slots: (0..<slotCount).map {
            let p = table.slots[$0].pending
            return TouchSnapshot.Slot(trackingID: p.trackingID, x: p.x, y: p.y, pressure: p.pressure,
                                      touchMajor: p.touchMajor, touchMinor: p.touchMinor, toolType: p.toolType)
        }, currentSlot: table.currentSlot)
    }
}

/// A protocol-B decoder's slots and where the frame's events go in them.
struct SlotTable {
    typealias Slots = InlineArray<256, SlotState>

    var slots = Slots(repeating: SlotState())
    var currentSlot: Int
    /// Slots below 64 that events of the current frame addressed (bit per slot).
    var touchedSlots: UInt64 = 0
    /// An event of the current frame addressed a slot of 64 or beyond.
    var touchedSlotsBeyondMask = false

    init(currentSlot: Int) {
        self.currentSlot = currentSlot
    }

    /// New contacts in slots beyond the limit: how many, and the first one's slot.
    struct Dropped {
        var count = 0
        var firstSlot = 0
    }

    /// The `EV_ABS` events of `events` from `start` to the first of another type; returns where
    /// they end. Contacts beyond `slotCount` are added to `dropped`.
    @inline(__always)
    mutating func feedAxes(_ events: InputBatch, from start: Int, slotCount: Int, dropped: inout Dropped) -> Int {
        var i = start
        while i < events.count {
            let event = events[i]
            guard event.type == EventType.abs else { break }
            feedAxis(event, slotCount: slotCount, dropped: &dropped)
            i += 1
        }
        return i
    }

    @inline(__always)
    mutating func feedAxis(_ event: InputEvent, slotCount: Int, dropped: inout Dropped) {
        if event.code == AbsCode.mtSlot {
            currentSlot = Int(event.value)
            return
        }
        let slot = currentSlot
        if slot >= 0 && slot < 64 { touchedSlots |= 1 << UInt64(slot) } else { touchedSlotsBeyondMask = true }
        guard slot >= 0 && slot < slotCount else {
            // A contact the slot limit leaves out (counted and said by the decoder).
            if event.code == AbsCode.mtTrackingID, event.value >= 0, slot >= slotCount {
                if dropped.count == 0 { dropped.firstSlot = slot }
                dropped.count += 1
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

    /// The slots this frame's events addressed (below 64, a bit each; `beyond`: one of 64 or
    /// more), forgotten for the next frame.
    @inline(__always)
    mutating func takeTouched() -> (mask: UInt64, beyond: Bool) {
        defer {
            touchedSlots = 0
            touchedSlotsBeyondMask = false
        }
        return (touchedSlots, touchedSlotsBeyondMask)
    }
}
