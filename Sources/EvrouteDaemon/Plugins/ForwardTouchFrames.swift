import EvrouteCore
import EvrouteInput

/// The frames of one virtual touchscreen (protocol B), built as forwarded touches' phases come:
/// which slot holds which touch, each slot's last position, `BTN_TOUCH` as last written. Pure:
/// ``ForwardOutputs`` writes ``frame`` to the device.
///
/// Rules every reader of evdev (libinput first) needs:
/// - A slot never begins and ends in one frame (libinput drops such a touch), and never gets
///   two phases in one frame: a second phase for a slot already written in the open frame ends
///   the frame first, whatever the times.
/// - A cancel in ``ForwardCancel/palm`` mode is `MT_TOOL_PALM` in a frame of its own, then the
///   lift; the lift frame turns the slot's tool type back to `MT_TOOL_FINGER`, after its
///   tracking id -1. libinput takes a new touch's palm state from the slot's tool type as it is
///   when the new tracking id arrives: a slot left a palm would make the next finger in it a
///   palm that is never reported. (The new touch's own `MT_TOOL_FINGER` comes after its
///   tracking id, too late; the kernel drops it anyway when the slot is already a finger.)
///
/// What a reader cannot tell from absent is not written (``skipsUnchanged``): the kernel's
/// input core drops an absolute value equal to the one it holds for the axis (for the slot's
/// own, in a multi-touch slot) when the axis has no fuzz, and a frame that carries no value
/// after that (a `SYN_REPORT` alone, or after a slot selection only) reaches no reader. So a
/// position or pressure equal to the one last written to its slot, an `ABS_X`/`ABS_Y` equal to
/// the last written, and a frame left with no value are left out: every reader (libinput, the
/// compositor) sees the same events, and a source frame that changes nothing forwarded costs
/// no write(2).
struct ForwardTouchFrames {
    /// The router touch id in each slot.
    private(set) var slots: [Int?]
    /// The slots holding a touch, a bit each (the first contact and a free slot are found
    /// from it without a look through ``slots``).
    private(set) var occupied: UInt64 = 0
    /// A bit for each slot the device has.
    private let allSlots: UInt64
    /// Each slot's last position, for `ABS_X`/`ABS_Y` (the first contact's), and what the
    /// device holds for the slot when ``known`` has its bit.
    private var positions: [(x: Int32, y: Int32)]
    /// Each slot's pressure as last written (nil: not known).
    private var pressures: [Int32?]
    /// The slots whose ``positions`` are what the device holds, a bit each.
    private var known: UInt64 = 0
    /// `ABS_X`/`ABS_Y` as last written (nil: not known).
    private var single: (x: Int32, y: Int32)?
    private let hasPressure: Bool
    /// Whether values the device already holds are left out: its position and pressure axes
    /// have no fuzz (with fuzz, the kernel compares a value with its own filtered one, not with
    /// the last written, and may still move toward a value written again).
    let skipsUnchanged: Bool
    /// Where the open frame begins in ``frame``, which slot was selected then, and how many
    /// slot selections it holds (a frame of selections only is dropped, see above).
    private var frameStart = 0
    private var selectedAtStart: Int?
    private var selections = 0
    /// The frame being queued and what is queued before it.
    var frame = VirtualFrameBuffer()
    /// The time of the source frame being queued (a phase of another time ends it).
    private var frameTime: Timestamp?
    private(set) var open = false
    /// Slots written in the open frame, a bit each (a virtual touchscreen has at most
    /// ``maximumSlots``).
    private var written: UInt64 = 0
    /// `BTN_TOUCH` as last written.
    private var touching = false
    /// The slot `ABS_MT_SLOT` last selected on the device (nil: not known). The kernel keeps
    /// the selected slot across frames and passes no `ABS_MT_SLOT` on (it emits one itself
    /// before a value of another slot than the last it reported): selecting the slot already
    /// selected is written for nothing, so it is not.
    private var selectedSlot: Int?

    /// The most slots a virtual touchscreen has (``VirtualDeviceSpec/touchscreen(mirroring:displaySize:)``).
    static let maximumSlots = 64

    init(slots: Int, hasPressure: Bool, skipsUnchanged: Bool = false) {
        let slots = min(slots, Self.maximumSlots)
        self.slots = Array(repeating: nil, count: slots)
        allSlots = slots >= 64 ? .max : (1 << UInt64(slots)) - 1
        positions = Array(repeating: (0, 0), count: slots)
        pressures = Array(repeating: nil, count: slots)
        self.hasPressure = hasPressure
        self.skipsUnchanged = skipsUnchanged
    }

    var lastTime: Timestamp? { frameTime }

    /// The queued frames were not written (the write failed): which slot the device has
    /// selected is no longer known.
    mutating func dropQueued() {
        frame.removeAll()
        selectedSlot = nil
        frameStart = 0
        selections = 0
        known = 0
        single = nil
        for i in pressures.indices { pressures[i] = nil }
    }
    func freeSlot() -> Int? {
        let free = ~occupied & allSlots
        return free == 0 ? nil : free.trailingZeroBitCount
    }


    /// A phase of `time`: a queued frame of another time ends first.
    mutating func start(time: Timestamp) {
        if open {
            if frameTime == time { return }
            endFrame()
        }
        frameTime = time
        openFrame()
    }

    @inline(__always)
    private mutating func openFrame() {
        open = true
        frameStart = frame.count
        selectedAtStart = selectedSlot
        selections = 0
    }

    /// Slot `slot` gets its next phase: a frame that already holds one for it ends first.
    @inline(__always)
    private mutating func touchSlot(_ slot: Int) {
        nextPhase(slot)
        select(slot)
    }

    /// The frame-splitting half of ``touchSlot(_:)``: no selection written yet.
    @inline(__always)
    private mutating func nextPhase(_ slot: Int) {
        let bit: UInt64 = 1 << UInt64(slot)
        if written & bit != 0 {
            endFrame()
            openFrame()
        }
        written |= bit
    }

    @inline(__always)
    private mutating func select(_ slot: Int) {
        if selectedSlot != slot {
            frame.append(EventType.abs, AbsCode.mtSlot, Int32(slot))
            selectedSlot = slot
            selections += 1
        }
    }

    mutating func begin(slot: Int, touch: Int, trackingID: Int32, x: Int32, y: Int32, pressure: Double?) {
        touchSlot(slot)
        slots[slot] = touch
        occupied |= 1 << UInt64(slot)
        frame.append(EventType.abs, AbsCode.mtTrackingID, trackingID)
        frame.append(EventType.abs, AbsCode.mtToolType, 0)
        frame.append(EventType.abs, AbsCode.mtPositionX, x)
        frame.append(EventType.abs, AbsCode.mtPositionY, y)
        if hasPressure, let p = pressure {
            let v = Int32(clamping: Int(p.rounded()))
            frame.append(EventType.abs, AbsCode.mtPressure, v)
            pressures[slot] = v
        }
        positions[slot] = (x, y)
        known |= 1 << UInt64(slot)
    }

    /// Inlined: the phase nearly every wake-up queues.
    @inline(__always)
    mutating func move(slot: Int, x: Int32, y: Int32, pressure: Double?) {
        nextPhase(slot)
        let bit: UInt64 = 1 << UInt64(slot)
        if skipsUnchanged, known & bit != 0 {
            let held = positions[slot]
            if x != held.x {
                select(slot)
                frame.append(EventType.abs, AbsCode.mtPositionX, x)
            }
            if y != held.y {
                select(slot)
                frame.append(EventType.abs, AbsCode.mtPositionY, y)
            }
        } else {
            select(slot)
            frame.append(EventType.abs, AbsCode.mtPositionX, x)
            frame.append(EventType.abs, AbsCode.mtPositionY, y)
        }
        if hasPressure, let p = pressure {
            let v = Int32(clamping: Int(p.rounded()))
            if !skipsUnchanged || pressures[slot] != v {
                select(slot)
                frame.append(EventType.abs, AbsCode.mtPressure, v)
                pressures[slot] = v
            }
        }
        positions[slot] = (x, y)
        known |= bit
    }

    /// The finger lifts: `TOUCH_UP` in libinput.
    mutating func end(slot: Int) {
        touchSlot(slot)
        frame.append(EventType.abs, AbsCode.mtTrackingID, -1)
        slots[slot] = nil
        occupied &= ~(1 << UInt64(slot))
    }

    /// evroute ends the touch early, as `mode` says.
    mutating func cancel(slot: Int, mode: ForwardCancel) {
        switch mode {
        case .lift:
            end(slot: slot)
        case .palm:
            touchSlot(slot)
            frame.append(EventType.abs, AbsCode.mtToolType, VirtualDeviceSpec.toolPalm)
            touchSlot(slot)   // a frame of its own: libinput reports the cancel, then the lift
            frame.append(EventType.abs, AbsCode.mtTrackingID, -1)
            frame.append(EventType.abs, AbsCode.mtToolType, 0)
            slots[slot] = nil
            occupied &= ~(1 << UInt64(slot))
        }
    }

    /// Ends the queued frame: `BTN_TOUCH` when it changed, the first contact's `ABS_X`/`ABS_Y`,
    /// `SYN_REPORT`; a frame left with no value is taken back (see above).
    mutating func endFrame() {
        guard open else { return }
        open = false
        written = 0
        let touching = occupied != 0
        if touching != self.touching {
            frame.append(EventType.key, KeyCode.btnTouch, touching ? 1 : 0)
            self.touching = touching
        }
        if touching {
            let first = positions[occupied.trailingZeroBitCount]
            if skipsUnchanged, let held = single {
                if first.x != held.x { frame.append(EventType.abs, AbsCode.x, first.x) }
                if first.y != held.y { frame.append(EventType.abs, AbsCode.y, first.y) }
            } else {
                frame.append(EventType.abs, AbsCode.x, first.x)
                frame.append(EventType.abs, AbsCode.y, first.y)
            }
            single = first
        }
        if frame.count - frameStart == selections {
            // Nothing but slot selections: the kernel would pass nothing on.
            frame.removeLast(selections)
            selectedSlot = selectedAtStart
            return
        }
        frame.report()
    }
}
