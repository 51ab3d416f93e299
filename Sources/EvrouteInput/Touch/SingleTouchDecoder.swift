/// Single-touch: `ABS_X`/`ABS_Y`/`ABS_PRESSURE` and `BTN_TOUCH`, as one slot whose tracking ID
/// is `BTN_TOUCH` (0 while down, -1 while up). Only the state at the frame's end counts: a
/// `BTN_TOUCH` that goes up and down again within a frame keeps the contact.
final class SingleTouchDecoder: ProtocolDecoder {
    private var slot = SlotState()

    override var liveContactCount: Int { slot.contact > 0 ? 1 : 0 }

    override func feed(_ event: InputEvent) {
        if event.type == EventType.key {
            if event.code == KeyCode.btnTouch { slot.pending.trackingID = event.value != 0 ? 0 : -1 }
            return
        }
        guard event.type == EventType.abs else { return }
        let changed: Bool
        switch event.code {
        case AbsCode.x: changed = slot.pending.x != event.value; slot.pending.x = event.value
        case AbsCode.y: changed = slot.pending.y != event.value; slot.pending.y = event.value
        case AbsCode.pressure: changed = slot.pending.pressure != event.value; slot.pending.pressure = event.value
        default: changed = false
        }
        if changed { slot.changed = true }
    }

    override func finish() {
        // Interrupted when BTN_TOUCH says other than whether a contact is down.
        slot.interrupted = (slot.pending.trackingID >= 0) != (slot.contact > 0)
        slot.finish(into: frame)
    }

    override func cancelAll() {
        slot.cancel(into: frame)
    }

    override func resync(_ snapshot: TouchSnapshot) {
        slot.resync(to: RawContact(trackingID: snapshot.touching ? 0 : -1, x: snapshot.x, y: snapshot.y, pressure: snapshot.pressure),
                    into: frame)
    }

    override func resyncedState() -> TouchSnapshot {
        TouchSnapshot(touching: slot.pending.trackingID >= 0, x: slot.pending.x, y: slot.pending.y, pressure: slot.pending.pressure)
    }
}
