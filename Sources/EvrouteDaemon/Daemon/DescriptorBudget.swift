import EvrouteConfig
import EvrouteCore
import EvrouteRuntime
import EvrouteSystem

/// The descriptors a config may make the daemon hold at once, against the limit it will run
/// with: every client of a `socket` plugin (`max-clients`) and of the control socket
/// (``ControlServer/maximumClients``) is one, besides the daemon's own. The daemon raises its
/// soft `RLIMIT_NOFILE` to the hard limit at start, so the hard limit is the one that counts.
/// Past it, clients are refused at the limit (the listener pauses; see ``UnixListener``) rather
/// than at `max-clients`, and devices or plugin pipes may fail to open. The control socket keeps
/// one place whatever the clients hold: its listener's reserve descriptor, on which one operator
/// is served at the limit (``UnixListener/servesOnReserve``).
public enum DescriptorBudget {
    /// The daemon's own descriptors besides its clients: standard I/O, the loop (epoll, signalfd,
    /// the timerfd, eventfds), udev, devices, plugin pipes, the listeners and their reserves,
    /// the log. A margin, not a count: a few dozen devices and plugins fit.
    public static let margin = 64

    /// Every socket plugin's `max-clients`, the control socket's cap and the margin.
    public static func needed(by layout: Layout) -> Int {
        let sockets = layout.pluginOptions.values.reduce(0) { sum, options in
            sum + ((options as? SocketOptions)?.maxClients ?? 0)
        }
        return sockets + ControlServer.maximumClients + margin
    }

    /// `evroute check`'s warning (and the journal's at start and reload) when ``needed(by:)``
    /// passes `limit`, placed at the largest `max-clients` (or its plugin); nil when it fits.
    public static func warning(for layout: Layout, file: String,
                               limit: UInt64 = DescriptorLimit.current.hard) -> Diagnostic? {
        let needed = needed(by: layout)
        guard UInt64(needed) > limit else { return nil }
        let largest = layout.plugins.compactMap { spec -> (PluginSpec, Int)? in
            guard let socket = layout.pluginOptions[spec.name] as? SocketOptions else { return nil }
            return (spec, socket.maxClients)
        }.max { $0.1 < $1.1 }
        let place = largest.flatMap { $0.0.optionLocations["max-clients"] ?? $0.0.location }
        let message = "the socket plugins' max-clients (\(needed - ControlServer.maximumClients - margin) in all), the control "
            + "socket's \(ControlServer.maximumClients) clients and \(margin) for the daemon itself need \(needed) file descriptors, "
            + "more than the \(limit) it may open (RLIMIT_NOFILE's hard limit, to which it raises its own): clients past it are "
            + "refused; lower max-clients or raise the limit (LimitNOFILE= in the unit)"
        return Diagnostic(message, at: place, file: file, kind: .layoutWarning, severity: .warning)
    }
}
