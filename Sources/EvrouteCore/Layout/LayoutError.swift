/// A layout that cannot be compiled: a semantic error in the spec, with where it was written.
public struct LayoutError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var location: SourceLocation?

    public init(_ message: String, at location: SourceLocation?) {
        self.message = message
        self.location = location
    }

    public var description: String {
        if let location { return "\(location): error: \(message)" }
        return "error: \(message)"
    }
}

/// Every semantic error found in one spec (compilation collects them all, not just the first).
public struct LayoutErrors: Error, Sendable, CustomStringConvertible {
    public var errors: [LayoutError]
    public init(_ errors: [LayoutError]) { self.errors = errors }
    public var description: String { errors.map(\.description).joined(separator: "\n") }
}

/// Something a layout compiles with but probably does not mean: printed, never refused.
public struct LayoutWarning: Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public var location: SourceLocation?

    public init(_ message: String, at location: SourceLocation?) {
        self.message = message
        self.location = location
    }

    public var description: String {
        if let location { return "\(location): warning: \(message)" }
        return "warning: \(message)"
    }
}
