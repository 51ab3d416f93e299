import EvrouteCore

/// An observer in front of another one (the dry-run's summary and touch trails, before its
/// trace): it sees each routed event — lent, or out of a `.routed` record — and every other
/// record, then passes each on to ``next`` as it came.
public protocol RouteObserverStage: RouteObserver {
    /// Where everything goes after this stage saw it.
    var next: RouteObserver { get }
    /// A routed event (`by`: the responder that took it, nil when nothing did).
    func see(_ event: borrowing RoutedEvent, by: ResponderID?)
    /// Any other record. Nothing unless implemented.
    func see(_ record: RouteRecord)
}

extension RouteObserverStage {
    public func see(_ record: RouteRecord) {}

    public func record(_ record: RouteRecord) {
        if case .routed(let event, let by, _) = record { see(event, by: by) } else { see(record) }
        next.record(record)
    }

    public func routed(_ event: borrowing RoutedEvent, handledBy responder: ResponderID?, handler: Int?) {
        see(event, by: responder)
        next.routed(event, handledBy: responder, handler: handler)
    }
}
