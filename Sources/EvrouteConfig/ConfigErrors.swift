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

    /// One diagnostic per line.
    public var description: String { errors.map(\.description).joined(separator: "\n") }
}
