import EvrouteCore
import EvrouteInput

/// What a dry-run session prints to: the trace (``TraceWriter``, `--dry-run`) or the monitor's
/// lines for people (``MonitorWriter``, `evroute monitor`). Both are route observers; this adds
/// what the session knows beside routing.
public protocol RouteReport: RouteObserver {
    /// A device no rule takes, or that cannot be opened: its node (a device node or a
    /// recording's path, when known), name, kind when known, and why.
    func deviceIgnored(node: String?, name: String, kind: DeviceKind?, reason: DeviceIgnoreReason, time: Timestamp)
    /// A live device node that was not routed (see ``deviceIgnored(node:name:kind:reason:time:)``)
    /// was removed.
    func deviceGone(node: String, time: Timestamp)
    /// A device's input could not be taken as sent (``TouchDecoder/Warning``): once per kind
    /// and device, naming the limit.
    func deviceWarning(name: String, message: String, time: Timestamp)
    /// Whether live devices no rule takes are reported (the trace leaves them out: it shows
    /// what is routed; the monitor names them, with why).
    var reportsIgnoredLiveDevices: Bool { get }
    /// Live input has no device: at start, or when the last one went.
    func noDevice(time: Timestamp)
    /// Where live devices are: to name their nodes.
    func attach(_ source: LiveInputSource)
    /// Where replayed devices come from: to name their recordings.
    func attach(_ replay: ReplayDriver)
    /// Before the first record of a replay: the recordings that were on another clock and were
    /// aligned at the earliest one's start (none: nothing is said).
    func clocksAligned(_ alignments: [ClockAlignment])
    /// The summary line at the end of a replay (``RouteSummary/line(inputEvents:)``).
    func summary(_ line: String)
    /// Writes what is buffered.
    func flush()
    /// Whether output waits for ``flush()`` (the event loop writes it lazily).
    var hasPendingOutput: Bool { get }
}

extension RouteReport {
    public var reportsIgnoredLiveDevices: Bool { false }
    public func noDevice(time: Timestamp) {}
    public func deviceGone(node: String, time: Timestamp) {}
    public func attach(_ source: LiveInputSource) {}
    public func attach(_ replay: ReplayDriver) {}
    public func clocksAligned(_ alignments: [ClockAlignment]) {}
}
