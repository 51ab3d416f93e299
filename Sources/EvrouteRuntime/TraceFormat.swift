/// How the dry-run trace is printed.
public enum TraceFormat: String, Sendable, CaseIterable {
    /// One aligned line per decision, for people.
    case text
    /// One JSON object per line: the stable contract of docs/events.md.
    case json
}
