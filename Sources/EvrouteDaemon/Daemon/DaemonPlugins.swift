import EvrouteCore

/// What the daemon needs from the plugins that run its handlers; ``PluginHost`` provides it.
protocol DaemonPlugins: AnyObject {
    /// Becomes the router's handler dispatcher.
    func attach(to router: Router)
    /// Takes a new layout's plugin declarations (on a successful reload).
    func reload(layout: Layout)
    /// Stops every plugin (the daemon is exiting).
    func shutdown()
    /// Per-instance counters, for `evroute status`.
    var statistics: [PluginStatistics] { get }
}
