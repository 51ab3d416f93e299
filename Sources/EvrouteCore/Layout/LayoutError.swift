/// How serious a diagnostic is: an error refuses the config; a warning is printed, never refused.
public enum Severity: String, Sendable, Hashable {
    case error, warning
}

/// A diagnostic of a layout: a semantic error in the spec (it cannot be compiled), or a
/// warning (it compiles, but probably does not do what was meant), with where it was written.
public struct LayoutError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public var location: SourceLocation?
    public var severity: Severity

    public init(_ message: String, at location: SourceLocation?, severity: Severity = .error) {
        self.message = message
        self.location = location
        self.severity = severity
    }

    /// `FILE:LINE:COL: error: MESSAGE` (or `warning:`).
    public var description: String {
        if let location { return "\(location): \(severity.rawValue): \(message)" }
        return "\(severity.rawValue): \(message)"
    }
}

/// Every semantic error found in one spec (compilation collects them all, not just the first).
public struct LayoutErrors: Error, Sendable, CustomStringConvertible {
    public var errors: [LayoutError]
    public init(_ errors: [LayoutError]) { self.errors = errors }
    public var description: String { errors.map(\.description).joined(separator: "\n") }
}
