import EvrouteCore
import EvrouteInput

/// A device's keys: decoded to key events, typed into text where its rule wants text
/// (libxkbcommon), and collected into lines for `text: line` (a scanner; its deadline is the
/// line's `line-timeout-ms`). Also the keys stage of a touch or motion device.
final class KeyDispatcher: DeviceDispatcher {
    let device: DeviceID
    private var keys: KeyDecoder?
    /// Keys → text, for devices with typing keys whose rule wants text.
    let text: TextDecoder?
    /// `text: line`: the line being collected (and its keys are not routed).
    private var line: LineCollector?

    init(device: DeviceID, keys: KeyDecoder?, text: TextDecoder?, line: LineCollector?) {
        self.device = device
        self.keys = keys
        self.text = text
        self.line = line
    }

    func dispatch(_ batch: InputBatch, in session: RoutingSession) {
        for i in batch.indices {
            let event = batch[i]
            // An axis event routes nothing: time moves at the others.
            if event.type == EventType.abs { continue }
            session.advanceTime(to: event.time)
            if event.type == EventType.key { key(event, in: session) }
        }
    }

    /// One `EV_KEY` event, time already at it.
    func key(_ event: InputEvent, in session: RoutingSession) {
        let router = session.router
        guard let key = keys?.feed(event) else { return }
        guard let text else { router.handle(key); return }
        let typed = text.feed(key)
        if line != nil {
            // A scanner: its keys make a line, not key events.
            if let line = line!.feed(typed, at: key.time) {
                router.handle(TextInput(device: device, time: key.time, text: line))
            }
            session.dispatcherDeadlinesChanged()
            return
        }
        // The key first; its text only when the router found a taker for text and no chord.
        if router.handle(key), case .text(let s) = typed { router.handle(TextInput(device: device, time: key.time, text: s)) }
    }

    var hasDeadlines: Bool { line != nil }

    var deadline: Timestamp? { line?.deadline }

    /// The line's silence ran out: it goes out at its deadline.
    func expire(at time: Timestamp, in session: RoutingSession) {
        sendLine(at: time, session.router)
    }

    /// A line still collecting goes out now, as if its silence had run out.
    func removeAll(at time: Timestamp, in session: RoutingSession) {
        sendLine(at: time, session.router)
    }

    private func sendLine(at time: Timestamp, _ router: Router) {
        if let line = line?.take() { router.handle(TextInput(device: device, time: time, text: line)) }
    }
}
