import EvrouteCore

extension Layout {
    /// The responders whose `present` handlers present `screen` (its `screen:` option), in
    /// handler order: what `tree` shows as "presented by". A UI may present any screen at run
    /// time too (`evroute ctl present`); that is not in the config.
    func presenters(of screen: Int) -> [ResponderID] {
        let name = screens[screen].name
        return handlers.filter { $0.pluginType == .present && $0.options["screen"]?.string == name }.map(\.owner)
    }
}
