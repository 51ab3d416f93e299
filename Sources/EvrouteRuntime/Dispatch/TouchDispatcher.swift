import EvrouteConfig
import EvrouteCore
import EvrouteInput

/// A touchscreen, touchpad or tablet: decode (the kernel's touch protocol) → map onto the
/// display → contact filters, in order → touch frames to the router; its keys, if any (buttons
/// beside the contacts), as a key device's. Its deadlines are its filters' (a held contact's
/// bound: a ghost tap's hold, a stuck contact's limit).
final class TouchDispatcher: DeviceDispatcher {
    let info: DeviceInfo
    let decoder: TouchDecoder
    /// The frames' contact filters, in order (``TouchFrameFilters``; empty: none).
    private(set) var filters: ContactFilterChain
    /// Whether there are filters, and whether one of them has deadlines (read without
    /// touching the chain: a device without filters pays a test per frame).
    private let filtering: Bool, filterDeadlines: Bool
    let keys: KeyDispatcher?

    init(info: DeviceInfo, decoder: TouchDecoder, filters: ContactFilterChain, keys: KeyDispatcher?) {
        self.info = info
        self.decoder = decoder
        self.filters = filters
        self.filtering = !filters.isEmpty
        self.filterDeadlines = filters.hasDeadlines
        self.keys = keys
    }

    func dispatch(_ batch: InputBatch, in session: RoutingSession) {
        var i = 0
        while i < batch.count {
            let event = batch[i]
            if event.type == EventType.abs {
                // A run of axis events, most of a frame, only updates the decoder: one call
                // for it, and time moves at the others, as if it moved at every event.
                i = decoder.feedAxes(batch, from: i)
                continue
            }
            if event.type == EventType.syn {
                // Warnings come up while a frame is read and are told at its end, after it (a
                // frame's events share their time), or when the device goes.
                // A frame's end: the dispatchers' deadlines first; the router's time moves when it
                // routes the frame (its first step), or here when the frame changed nothing — or
                // first, with filters (what they hold back or drop is told at the frame's time).
                if filtering { session.advanceTime(to: event.time) } else { session.expireDispatchers(upTo: event.time) }
                let (made, warnings) = decoder.feedFrameEnd(event)
                if let frame = consume made {
                    route(frame, session)
                } else if !filtering {
                    session.router.advanceTime(to: event.time)
                }
                if warnings { reportWarnings(session, at: event.time) }
            } else {
                session.advanceTime(to: event.time)
                if let frame = decoder.feed(event) { route(frame, session) }
                if event.type == EventType.key, let keys { keys.key(event, in: session) }
            }
            i += 1
        }
    }

    /// A frame through the filters to the router; what they drop or cancel goes to the router
    /// too (counted, observed, never routed).
    /// (`frame` is taken, not copied: its contacts are filtered in place.)
    private func route(_ frame: consuming TouchFrameInput, _ session: RoutingSession) {
        let router = session.router
        if filtering {
            // The contacts as they came: one the filters hold back is still a finger on the display.
            router.noteContacts(frame)
            var filtered: [FilteredContact] = []
            if filters.filter(&frame, &filtered) { session.dispatcherDeadlinesChanged() }
            for contact in filtered { router.filtered(contact) }
        }
        if !frame.contacts.isEmpty { router.handle(frame) }
        decoder.recycle(frame)
    }

    func reportWarnings(_ session: RoutingSession, at time: Timestamp) {
        for warning in decoder.takeWarnings() { session.onDeviceWarning?(info, warning, time) }
    }

    var hasDeadlines: Bool { filterDeadlines || (keys?.hasDeadlines ?? false) }

    var deadline: Timestamp? {
        let own = filterDeadlines ? filters.deadline : nil
        guard let keyDeadline = keys?.deadline else { return own }
        return own.map { min($0, keyDeadline) } ?? keyDeadline
    }

    /// The due filter's `expire`, on an empty frame of the device at the deadline, then the
    /// filters after it; routed as any frame.
    func expire(at time: Timestamp, in session: RoutingSession) {
        var filtered: [FilteredContact] = []
        guard filterDeadlines, let frame = filters.expire(device: info.id, at: time, &filtered) else {
            keys?.expire(at: time, in: session)
            return
        }
        let router = session.router
        for contact in filtered { router.filtered(contact) }
        if !frame.contacts.isEmpty { router.handle(frame) }
    }

    /// Every contact is cancelled (through the filters: one they hold goes with them).
    func removeAll(at time: Timestamp, in session: RoutingSession) {
        keys?.removeAll(at: time, in: session)
        if let frame = decoder.cancelAll(at: time) { route(frame, session) }
        if decoder.hasWarnings { reportWarnings(session, at: time) }
    }

    var droppedContacts: Int { decoder.droppedContacts + decoder.droppedSamples }
    var synDropped: Int { decoder.synDropped }
}
