import EvrouteCore

/// What one plugin instance has done since it started, for `evroute status`.
///
/// Counters of asynchronous plugins (`socket` with answers, `process`) count each event once,
/// by its final outcome: `handled`, `declined` (answered unhandled, or declined at once) or
/// `timedOut` (no answer before the deadline; the event walked on).
public struct PluginStatistics: Sendable, CustomStringConvertible {
    /// The instance name (`shell`, `ui`, …).
    public var name: String
    /// The plugin type (a hosted one: `log`, `exec`, `socket`, `process`).
    public var type: PluginKind
    /// Events offered to the instance.
    public var delivered = 0
    /// Events the instance took.
    public var handled = 0
    /// Events the instance declined (they walked on to the next handler).
    public var declined = 0
    /// Events that got no answer before their deadline (they walked on).
    public var timedOut = 0
    /// Events dropped because a bound was reached (exec queue, helper stdin queue).
    public var dropped = 0
    /// Things that went wrong: spawn errors, children killed on timeout, garbage answers, …
    public var failures = 0
    /// Times a `process` helper was restarted.
    public var restarts = 0
    /// The most recent error, if any.
    public var lastError: String?
    /// Type-specific gauges and counters: `clients`, `running`, `queued`, `pending`, `pid`,
    /// `garbage_lines`, `late_answers`, `clients_dropped`, `output_truncated`, …
    public var details: [String: Int] = [:]

    public init(name: String, type: PluginKind) {
        self.name = name
        self.type = type
    }

    /// One line: `ui (socket): delivered 12, handled 10, declined 2, …, clients 1`.
    public var description: String {
        var parts = ["delivered \(delivered)", "handled \(handled)", "declined \(declined)"]
        if timedOut > 0 { parts.append("timed out \(timedOut)") }
        if dropped > 0 { parts.append("dropped \(dropped)") }
        if failures > 0 { parts.append("failures \(failures)") }
        if restarts > 0 { parts.append("restarts \(restarts)") }
        for (k, v) in details.sorted(by: { $0.key < $1.key }) { parts.append("\(k.split(separator: "_").joined(separator: " ")) \(v)") }
        var line = "\(name) (\(type)): " + parts.joined(separator: ", ")
        if let lastError { line += "; last error: \(lastError)" }
        return line
    }
}
