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
    /// Type-specific gauges (absent until set).
    private var gauges: [PluginGauge: Int] = [:]
    /// Type-specific counters (absent while zero).
    private var counters: [PluginCounter: Int] = [:]

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
        for (k, v) in details { parts.append("\(k.split(separator: "_").joined(separator: " ")) \(v)") }
        var line = "\(name) (\(type)): " + parts.joined(separator: ", ")
        if let lastError { line += "; last error: \(lastError)" }
        return line
    }

    /// A type-specific gauge: nil until the plugin sets it (then `status` shows it).
    public subscript(gauge gauge: PluginGauge) -> Int? {
        get { gauges[gauge] }
        set { gauges[gauge] = newValue }
    }

    /// A type-specific counter: 0 until counted (`status` shows it once it is not 0).
    public subscript(counter counter: PluginCounter) -> Int {
        get { counters[counter] ?? 0 }
        set { counters[counter] = newValue == 0 ? nil : newValue }
    }

    /// The type-specific values as `status` shows them (its `details` object): the gauges set
    /// and the counters not 0, by JSON name, sorted by name.
    public var details: [(name: String, value: Int)] {
        var out = gauges.map { (name: $0.key.rawValue, value: $0.value) }
        for (c, v) in counters { out.append((c.rawValue, v)) }
        return out.sorted { $0.name < $1.name }
    }
}

/// A gauge in a plugin's ``PluginStatistics/details``: a current value the plugin sets. The raw
/// value is its name in `evroute status`.
public enum PluginGauge: String, CaseIterable, Sendable {
    /// `socket`: clients connected.
    case clients
    /// `socket` with answers, `process`: events waiting for an answer.
    case pending
    /// `process`: the helper's process id (absent while it is down).
    case pid
    /// `exec`: commands waiting for a free slot.
    case queued
    /// `process`: bytes waiting to be written to the helper's stdin.
    case queuedBytes = "queued_bytes"
    /// `exec`: commands running; `process`: 1 while the helper runs, else 0.
    case running
    /// `exec`: the most commands that ran at once.
    case peakRunning = "peak_running"
}

/// A counter in a plugin's ``PluginStatistics/details``, since the instance started. The raw
/// value is its name in `evroute status`.
public enum PluginCounter: String, CaseIterable, Sendable {
    /// `socket`: clients accepted.
    case clientsAccepted = "clients_accepted"
    /// `socket`: clients disconnected for reading too slowly.
    case clientsDropped = "clients_dropped"
    /// `socket`: connections refused at `max-clients`.
    case clientsRefused = "clients_refused"
    /// `socket`, `process`: commands a peer sent on its connection (docs/ui-control.md), each answered.
    case commands
    /// `process`: events declined at once because the helper was down.
    case declinedWhileDown = "declined_while_down"
    case forwardedKeys = "forwarded_keys"
    case forwardedTouches = "forwarded_touches"
    /// `socket`, `process`: lines that are not an answer (or are too long).
    case garbageLines = "garbage_lines"
    /// `socket`, `process`: answers to no pending event (late, repeated or unknown).
    case lateAnswers = "late_answers"
    /// `exec`: commands that exited non-zero or were killed by a signal.
    case nonzeroExits = "nonzero_exits"
    /// `exec`: commands whose output went beyond `output-limit`.
    case outputTruncated = "output_truncated"
    /// `exec`: commands started.
    case started
    /// `forward`: characters of typed text (`type-text`) that no key of the keymap types (left out).
    case untypedCharacters = "untyped_characters"
    /// `exec`: commands still running at `timeout` (sent SIGTERM).
    case timeouts
}
