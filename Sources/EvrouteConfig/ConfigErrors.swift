/// Every error found in one config file, in file order. This is what ``ConfigLoader``
/// throws: it never stops at the first error when it can go on sensibly.
public struct ConfigErrors: Error, Sendable, CustomStringConvertible, RandomAccessCollection {
    /// The errors, at least one, sorted by line and column.
    public var errors: [ConfigError]

    /// Wraps a list of errors (sorted by file, line and column; ties keep their order).
    public init(_ errors: [ConfigError]) {
        self.errors = errors.enumerated().sorted { a, b in
            let l = a.element, r = b.element
            if l.file != r.file { return a.offset < b.offset }
            if l.line != r.line { return l.line < r.line }
            if l.column != r.column { return l.column < r.column }
            return a.offset < b.offset
        }.map(\.element)
    }

    public var startIndex: Int { errors.startIndex }
    public var endIndex: Int { errors.endIndex }
    public subscript(position: Int) -> ConfigError { errors[position] }

    /// One diagnostic per line, at most ``ConfigError/printedAtMost`` of them, then `… and N more`.
    public var description: String { ConfigError.lines(errors).joined(separator: "\n") }
}

extension ConfigError {
    /// The most diagnostics printed for one file (`check`, the daemon's start and reload); the
    /// rest are counted in one last line, `… and N more`. One mistake repeated through a large
    /// file (a generated layout) is then a screenful, not thousands of lines.
    public static let printedAtMost = 100

    /// The printed lines of `diagnostics` (in the order given): the first ``printedAtMost``,
    /// then `… and N more error(s)` (or `warning(s)`, or `diagnostic(s)` when they are both).
    public static func lines(_ diagnostics: [ConfigError], limit: Int = printedAtMost) -> [String] {
        guard diagnostics.count > limit else { return diagnostics.map(\.description) }
        let rest = diagnostics[limit...]
        let what = rest.allSatisfy { $0.severity == .error } ? "error(s)"
            : rest.allSatisfy { $0.severity == .warning } ? "warning(s)" : "diagnostic(s)"
        return diagnostics[..<limit].map(\.description) + ["… and \(rest.count) more \(what)"]
    }
}
