import EvrouteCore

/// The router's one observer in every mode: it holds the observers (sinks) of a run — the
/// daemon's log and counters; a dry-run's touch trails, summary and trace or monitor lines — and
/// hands each record, and each routed event (not copied into a record), to each of them in order.
///
/// It observes routed events iff one of its members does (``RouteObserver/observesRoutedEvents``,
/// read when it is built): then the router tells it every routed event, which goes on to the
/// members that want it; else the router builds nothing per event (the daemon's log-only path).
public final class RouteFanOut: RouteObserver {
    /// The members, in the order each record reaches them.
    public let sinks: [RouteObserver]
    /// The members that want routed events.
    private let routedSinks: [RouteObserver]
    public let observesRoutedEvents: Bool

    /// The member that wants routed events when it is the only one (the daemon's metrics sink):
    /// called straight, without the loop over the members.
    private let onlyRoutedSink: RouteObserver?

    public init(_ sinks: [RouteObserver]) {
        self.sinks = sinks
        routedSinks = sinks.filter(\.observesRoutedEvents)
        observesRoutedEvents = !routedSinks.isEmpty
        onlyRoutedSink = routedSinks.count == 1 ? routedSinks[0] : nil
    }

    public func record(_ record: RouteRecord) {
        for sink in sinks { sink.record(record) }
    }

    public func routed(_ event: RoutedEvent, handledBy responder: ResponderID?, handler: HandlerIndex?) {
        if let onlyRoutedSink {
            onlyRoutedSink.routed(event, handledBy: responder, handler: handler)
            return
        }
        for sink in routedSinks { sink.routed(event, handledBy: responder, handler: handler) }
    }
}
