/// One slot: a protocol-B slot, a slot `ContactMatcher` puts a protocol-A contact in, or the
/// single-touch contact. A frame's events set ``pending`` (and the flags); ``finish(into:)`` then
/// reports what that did to the contact — every decoder's began, moved and ended come from there.
///
/// A contact is down while ``pending``'s tracking ID is not negative.
struct SlotState {
    /// The latest values, as events arrive.
    var pending = RawContact()
    /// The values last reported.
    var committed = RawContact()
    /// The decoder's number of the contact that is down here; 0 when none.
    var contact = 0
    /// The tracking ID changed this frame (a lift, or a new contact).
    var interrupted = false
    /// An axis value changed this frame.
    var changed = false

    /// Stores an `ABS_MT_*` value; a changed one marks the slot changed.
    @inline(__always)
    mutating func setMT(code: UInt16, value: Int32) {
        if pending.setMT(code: code, value: value) { changed = true }
    }

    /// Reports the frame's change to `frame` and starts the next. A contact whose tracking ID
    /// changed ends where it was last seen (a lift also takes the frame's last values, which
    /// still belong to it); a tracking ID where none is down begins a contact; a down contact
    /// whose values changed moves.
    @inline(__always)
    mutating func finish(into frame: TouchFrameBuilder) {
        guard interrupted || changed else { return }
        if contact > 0 && interrupted {
            var last = committed
            if pending.trackingID < 0 {
                last = pending
                last.trackingID = committed.trackingID
            }
            frame.add(contact, .ended, last)
            contact = 0
        }
        if pending.trackingID >= 0 {
            if contact == 0 {
                contact = frame.takeContactNumber()
                frame.add(contact, .began, pending)
                committed = pending
            } else if changed {
                frame.add(contact, .moved, pending)
                committed = pending
            }
        }
        interrupted = false
        changed = false
    }

    /// ``finish(into:)`` in two steps, for a caller whose access to the slot makes no call: the
    /// slot moves on to the frame's values here, and what to report is returned (nil: nothing),
    /// to be reported in its order — the end, then the beginning or the move. A beginning
    /// contact's number is set afterwards (``contact``), when the frame gives it.
    @inline(__always)
    mutating func settle() -> SlotChange? {
        guard interrupted || changed else { return nil }
        var change = SlotChange()
        if contact > 0 && interrupted {
            var last = committed
            if pending.trackingID < 0 {
                last = pending
                last.trackingID = committed.trackingID
            }
            change.ended = contact
            change.endedValues = last
            contact = 0
        }
        if pending.trackingID >= 0 {
            if contact == 0 {
                change.begins = true
                change.values = pending
                committed = pending
            } else if changed {
                change.moved = contact
                change.values = pending
                committed = pending
            }
        }
        interrupted = false
        changed = false
        return change
    }

    /// Cancels the contact down here, if any, and empties the slot: values for it are ignored
    /// until a new tracking ID.
    mutating func cancel(into frame: TouchFrameBuilder) {
        if contact > 0 { frame.add(contact, .cancelled, committed) }
        pending.trackingID = -1
        contact = 0
        interrupted = false
        changed = false
    }

    /// Brings the slot to values re-read from the device: a contact whose tracking ID changed or
    /// vanished is cancelled (its end was lost), a new one begins, one that stayed moves if its
    /// values changed.
    mutating func resync(to values: RawContact, into frame: TouchFrameBuilder) {
        if contact > 0 && committed.trackingID != values.trackingID {
            frame.add(contact, .cancelled, committed)
            contact = 0
        }
        pending = values
        interrupted = false
        changed = false
        if values.trackingID >= 0 {
            if contact == 0 {
                contact = frame.takeContactNumber()
                frame.add(contact, .began, values)
            } else if committed != values {
                frame.add(contact, .moved, values)
            }
            committed = values
        }
    }
}

/// What a frame did to a slot's contact (``SlotState/settle()``), to be reported.
struct SlotChange {
    /// The contact that ended here (0: none) and the values it ended with.
    var ended = 0
    var endedValues = RawContact()
    /// A contact begins here (its number is given when it is reported).
    var begins = false
    /// The contact that moved here (0: none).
    var moved = 0
    /// The beginning or moving contact's values.
    var values = RawContact()
}
