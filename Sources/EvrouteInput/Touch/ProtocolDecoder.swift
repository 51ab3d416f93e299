/// One touch protocol's decoder, behind ``TouchDecoder``: one subclass per protocol
/// (`SlotDecoder`, `ContactReportDecoder`, `SingleTouchDecoder`); this base class is the
/// decoder of a device without touch axes and does nothing. The decoders write their contact
/// changes to the shared `TouchFrameBuilder`; `TouchDecoder` handles `EV_SYN`.
class ProtocolDecoder {
    let frame: TouchFrameBuilder

    init(frame: TouchFrameBuilder) {
        self.frame = frame
    }

    /// How many contacts are down.
    var liveContactCount: Int { 0 }

    /// Takes one event other than `EV_SYN`.
    func feed(_ event: InputEvent) {}

    /// Takes the `EV_ABS` events of `events` from `start` to the first of another type; returns
    /// where they end. The same as ``feed(_:)`` for each (a subclass may loop without a call
    /// per event).
    func feedAxes(_ events: InputBatch, from start: Int) -> Int {
        var i = start
        while i < events.count {
            let event = events[i]
            guard event.type == EventType.abs else { break }
            feed(event)
            i += 1
        }
        return i
    }

    /// `SYN_MT_REPORT` (protocol A): the contact being reported is complete.
    func closeContactReport() {}

    /// `SYN_REPORT`: writes the frame's changes.
    func finish() {}

    /// Writes a cancel for every contact down; afterwards values for them are ignored.
    func cancelAll() {}

    /// Brings the decoder to a device state re-read after `SYN_DROPPED`; a protocol with no
    /// state to re-read (protocol A) cancels every contact.
    func resync(_ snapshot: TouchSnapshot) { cancelAll() }

    /// The device state after libevdev's resync events (applied to the pending values).
    func resyncedState() -> TouchSnapshot { TouchSnapshot() }
}
