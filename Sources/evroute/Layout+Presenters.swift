import EvrouteCore

extension Layout {
    /// The responders whose `present` handlers present `screen` (its `screen:` option), in
    /// handler order: what `tree` shows as "presented by". A UI may present any screen at run
    /// time too (`evroute ctl present`); that is not in the config.
    func presenters(of screen: Int) -> [ResponderID] {
        let name = screens[screen].name
        return handlers.filter { $0.pluginType == .present && $0.options["screen"]?.string == name }.map(\.owner)
    }

    /// ``presenters(of:)`` of every screen at once, by screen name: one pass over the handlers
    /// (a layout of many presented screens is drawn in linear time).
    func presenterIndex() -> [String: [ResponderID]] {
        var index: [String: [ResponderID]] = [:]
        for h in handlers where h.pluginType == .present {
            if let name = h.options["screen"]?.string { index[name, default: []].append(h.owner) }
        }
        return index
    }
}
