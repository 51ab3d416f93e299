import EvrouteCore

/// Counts what a replay routed, for the summary line at its end (`--dry-run --replay`,
/// `evroute monitor --replay`): touches, keys, actions, gestures, how many events were handled
/// or not, and per region the touches begun in it. One of the run's observers (``RouteFanOut``,
/// before the trace writer).
public final class RouteSummary: RouteObserver {
    public private(set) var touches = 0
    public private(set) var keys = 0
    public private(set) var actions = 0
    public private(set) var gestures = 0
    public private(set) var texts = 0
    public private(set) var motions = 0
    /// `idle` events (displays that went idle).
    public private(set) var idles = 0
    /// Contacts a device rule's filters took out (dropped or cancelled; the swallowed wake touch too).
    public private(set) var filtered = 0
    public private(set) var handled = 0
    public private(set) var unhandled = 0
    /// Devices a rule took (`device-added`).
    public private(set) var devices = 0
    /// Per bound region path: touches begun in it, and how many of those something took (at
    /// any phase: a tap region takes only the end).
    public private(set) var regions: [String: (touches: Int, handled: Int)] = [:]
    /// Touches still down: their region's path, and whether one of their phases was taken yet.
    private var live: [Int: (path: String, handled: Bool)] = [:]

    public init() {}

    public func record(_ record: RouteRecord) {
        switch record {
        case .deviceAdded: devices += 1
        case .routed(let event, let by, _): count(event, by: by)
        case .filtered: filtered += 1
        default: break
        }
    }

    public func routed(_ event: RoutedEvent, handledBy responder: ResponderID?, handler: HandlerIndex?) {
        count(event, by: responder)
    }

    /// A routed event counted (the touches by region: where each began, whether a phase was taken).
    private func count(_ event: borrowing RoutedEvent, by: ResponderID?) {
        if by == nil { unhandled += 1 } else { handled += 1 }
        switch event.kind {
        case .touch(let phase, _):
            guard let id = event.touch?.id else { break }
            if phase == .began {
                touches += 1
                let path = event.regionPath ?? "(no region)"
                regions[path, default: (0, 0)].touches += 1
                live[id] = (path, false)
            }
            if by != nil, let touch = live[id], !touch.handled {
                regions[touch.path, default: (0, 0)].handled += 1
                live[id]?.handled = true
            }
            if phase == .ended || phase == .cancelled { live[id] = nil }
        case .key(_, let phase): if phase == .down { keys += 1 }
        case .action: actions += 1
        case .gesture: gestures += 1
        case .text: texts += 1
        case .motion: motions += 1
        case .idle: idles += 1
        case .active: break
        }
    }

    /// At most this many regions are named on the line (the busiest first).
    public static let regionsShown = 12

    /// `summary: 1042 input events, 2 routed device(s); 6 touch(es), 14 key press(es), 1 action(s),
    /// 2 gesture event(s); 310 event(s) handled, 4 unhandled; touches by region: home/root/back 2
    /// (2 handled), …` — `inputEvents` counts every event read, also those of devices no rule takes.
    public func line(inputEvents: Int) -> String {
        var out = "summary: \(inputEvents) input events, \(devices) routed device(s); \(touches) touch(es)"
        if filtered > 0 { out += " (and \(filtered) filtered contact(s))" }
        out += ", \(keys) key press(es)"
        if texts > 0 { out += ", \(texts) text event(s)" }
        if motions > 0 { out += ", \(motions) motion event(s)" }
        if idles > 0 { out += ", \(idles) idle(s)" }
        out += ", \(actions) action(s), \(gestures) gesture event(s); \(handled) event(s) handled, \(unhandled) unhandled"
        guard !regions.isEmpty else { return out }
        let busiest = regions.sorted { ($0.value.touches, $1.key) > ($1.value.touches, $0.key) }
        out += "; touches by region: " + busiest.prefix(Self.regionsShown).map { "\($0.key) \($0.value.touches) (\($0.value.handled) handled)" }
            .joined(separator: ", ")
        if busiest.count > Self.regionsShown { out += ", and \(busiest.count - Self.regionsShown) more region(s)" }
        return out
    }
}
