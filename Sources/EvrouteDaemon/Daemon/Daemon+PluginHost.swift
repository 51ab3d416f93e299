import EvrouteCore

extension Daemon {
    /// The default plugin host.
    static func makePluginHost(layout: Layout, loop: EventLoop, log: Log) throws -> (any DaemonPlugins)? {
        nil
    }
}
