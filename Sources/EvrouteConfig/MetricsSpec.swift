import EvrouteCore

/// The top-level `metrics:` section (docs/config.md): where the daemon writes its
/// Prometheus text file, and how often.
public struct MetricsSpec: Sendable, Equatable {
    /// The file node_exporter's textfile collector reads (written as a temp file in the same
    /// directory, then renamed); nil: no file (`evroute status --format prometheus` still answers).
    public var textfile: String?
    /// Seconds between two writes.
    public var intervalSeconds: Int
    public var location: SourceLocation?
    /// Where the `textfile` value was written.
    public var textfileLocation: SourceLocation?

    /// `interval-s`'s valid range (whole seconds).
    public static let intervalRange = 1...3600
    public static let defaultIntervalSeconds = 15

    public init(textfile: String? = nil, intervalSeconds: Int = MetricsSpec.defaultIntervalSeconds, location: SourceLocation? = nil) {
        self.textfile = textfile
        self.intervalSeconds = intervalSeconds
        self.location = location
    }

    public static func == (a: MetricsSpec, b: MetricsSpec) -> Bool {
        a.textfile == b.textfile && a.intervalSeconds == b.intervalSeconds
    }
}

extension LayoutSpec {
    /// The top-level `metrics:` section (the Prometheus text file), if any.
    public var metrics: MetricsSpec? {
        get { sections["metrics"] as? MetricsSpec }
        set { if let newValue { sections["metrics"] = newValue } else { sections["metrics"] = nil } }
    }
}
