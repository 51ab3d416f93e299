import EvrouteCore

/// Where each touch of a run went down and the way it moved, for a picture of the layout with
/// the touches over it (`evroute --dry-run --replay … --heatmap FILE.svg`). One of the run's
/// observers (``RouteFanOut``, before the summary and the trace).
public final class TouchTrails: RouteObserver {
    /// What became of a touch, the best of its phases: a handler of its region, an ancestor
    /// or its screen took it; only the display, application or fallback did; nothing did; it
    /// was blocked (an exclusive-touch or single-touch region) and went nowhere; or a `forward`
    /// handler took it, for the compositor behind evroute.
    public enum Outcome: String, Sendable, Comparable {
        case blocked, unhandled, fellThrough = "fell-through", handled, forwarded

        public static func < (a: Outcome, b: Outcome) -> Bool { a.rank < b.rank }
        private var rank: Int {
            switch self {
            case .blocked: 0
            case .unhandled: 1
            case .fellThrough: 2
            case .handled: 3
            case .forwarded: 4
            }
        }

        /// The outcome of one phase taken by `responder` (nil: nothing took it), through a
        /// forwarding handler or not.
        static func of(_ responder: ResponderID?, forwarded: Bool = false) -> Outcome {
            if forwarded, responder != nil { return .forwarded }
            switch responder {
            case .region?, .screen?: return .handled
            case .display?, .application?, .fallback?, .motion?: return .fellThrough
            case nil: return .unhandled
            }
        }
    }

    /// One touch: its screen, its points in display coordinates (the first where it went down),
    /// and what became of it.
    public struct Trail: Sendable {
        /// The router's touch id.
        public let id: Int
        /// The display's name.
        public let display: String
        /// The screen active on the display when it went down (by name; nil when none was).
        public let screen: String?
        /// The region it is bound to (its path), nil when it hit none.
        public let region: String?
        /// Display coordinates, the first where it went down; at most ``TouchTrails/maximumPoints``.
        public internal(set) var points: [Point]
        /// What became of it (the best of its phases).
        public internal(set) var outcome: Outcome
        /// Whether it ended cancelled rather than lifted.
        public internal(set) var cancelled: Bool
    }

    /// Points of a trail closer than this (display units) to the last one kept are skipped.
    public static let minimumStep = 2.0
    /// The most points kept per trail (the last is always its end).
    public static let maximumPoints = 1024

    /// The touches, in the order they went down.
    public private(set) var trails: [Trail] = []
    /// Touches still down: router touch id → index in `trails`.
    private var open: [Int: Int] = [:]

    public init() {}

    public func record(_ record: RouteRecord) {
        if case .routed(let event, let by, let h) = record { see(event, by: by, forwarded: h?.forwards == true) }
    }

    public func routed(_ event: RoutedEvent, handledBy responder: ResponderID?, handler: HandlerIndex?) {
        see(event, by: responder, forwarded: handler.map { event.layout[handler: $0].forwards } ?? false)
    }

    /// A touch phase extends its trail (or starts one).
    func see(_ event: borrowing RoutedEvent, by: ResponderID?, forwarded: Bool) {
        if case .touch(let phase, _) = event.kind, let touch = event.touch {
            switch phase {
            case .began:
                let layout = touch.layout
                open[touch.id] = trails.count
                trails.append(Trail(id: touch.id, display: layout.displays[touch.display].name,
                                    screen: touch.screen.map { layout.screens[$0].name },
                                    region: touch.region.map { layout.regions[$0].path }, points: [touch.beganLocation],
                                    outcome: touch.blocked != nil ? .blocked : .of(by, forwarded: forwarded), cancelled: false))
            case .moved, .stationary, .ended, .cancelled:
                guard let i = open[touch.id] else { break }
                if trails[i].outcome != .blocked { trails[i].outcome = max(trails[i].outcome, .of(by, forwarded: forwarded)) }
                let last = trails[i].points[trails[i].points.count - 1]
                if phase.isTerminal {
                    if last != touch.location {
                        if trails[i].points.count == Self.maximumPoints { trails[i].points.removeLast() }
                        trails[i].points.append(touch.location)
                    }
                    trails[i].cancelled = phase == .cancelled
                    open[touch.id] = nil
                } else if trails[i].points.count < Self.maximumPoints - 1, last.distance(to: touch.location) >= Self.minimumStep {
                    trails[i].points.append(touch.location)
                }
            }
        }
    }
}
