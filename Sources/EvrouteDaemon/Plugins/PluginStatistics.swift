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
    /// Type-specific gauges by name (absent until set).
    private var gauges: [String: Int] = [:]
    /// Type-specific counters by name (absent while zero).
    private var counters: [String: Int] = [:]

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
    public subscript(gauge gauge: PluginMetric) -> Int? {
        get { gauges[gauge.name] }
        set { gauges[gauge.name] = newValue }
    }

    /// A type-specific counter: 0 until counted (`status` shows it once it is not 0).
    public subscript(counter counter: PluginMetric) -> Int {
        get { counters[counter.name] ?? 0 }
        set { counters[counter.name] = newValue == 0 ? nil : newValue }
    }

    /// The type-specific values as `status` shows them (its `details` object): the gauges set
    /// and the counters not 0, by JSON name, sorted by name.
    public var details: [(name: String, value: Int)] {
        var out = gauges.map { (name: $0.key, value: $0.value) }
        for (c, v) in counters { out.append((c, v)) }
        return out.sorted { $0.name < $1.name }
    }
}

/// A type-specific value a plugin reports in its ``PluginStatistics/details`` (`evroute status`):
/// declared once, by the plugin type that counts it (in the type's own file, listed in its
/// ``PluginType/metrics``), and shown generically. Two kinds: a **gauge** is a current value the
/// plugin sets (absent until set), a **counter** counts since the instance started (shown once
/// it is not 0).
public struct PluginMetric: Hashable, Sendable {
    public enum Kind: Sendable { case gauge, counter }
    /// Its name in `evroute status` (snake_case); two types may report a value of one name.
    public let name: String
    public let kind: Kind
    /// What it counts, in one sentence.
    public let help: String

    public init(gauge name: String, help: String) { self.name = name; kind = .gauge; self.help = help }
    public init(counter name: String, help: String) { self.name = name; kind = .counter; self.help = help }

    public static func == (a: PluginMetric, b: PluginMetric) -> Bool { a.name == b.name }
    public func hash(into hasher: inout Hasher) { hasher.combine(name) }
}
