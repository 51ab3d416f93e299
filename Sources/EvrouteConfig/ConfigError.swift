import EvrouteCore

/// One diagnostic of a config file, with the place it was found: printed like a compiler's,
/// `FILE:LINE:COL: error: MESSAGE` — or, for a warning (``severity`` `.warning`: the config
/// compiles but probably does not do what was meant), `FILE:LINE:COL: warning: MESSAGE`.
///
/// The struct is open for extension: new ``Kind`` values may be added without breaking
/// callers, so match on `kind` with a `default` branch, or not at all.
public struct ConfigError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The class of an error, for programs that want to tell them apart (tests, editors).
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        /// The name of the kind, e.g. `unknown-key`.
        public let name: String
        /// A kind of one's own (the names above are taken).
        public init(_ name: String) { self.name = name }

        /// The file could not be read.
        public static let io = Kind("io")
        /// The text is not valid YAML.
        public static let syntax = Kind("syntax")
        /// A key that is not part of the format at this place.
        public static let unknownKey = Kind("unknown-key")
        /// The same key twice in one mapping.
        public static let duplicateKey = Kind("duplicate-key")
        /// A required key is absent.
        public static let missingKey = Kind("missing-key")
        /// A value of the wrong type (a string where a number is expected, …).
        public static let wrongType = Kind("wrong-type")
        /// A value of the right type but out of range or not one of the allowed spellings.
        public static let invalidValue = Kind("invalid-value")
        /// A semantic error found when compiling the layout (unknown names, duplicates, cycles).
        public static let semantic = Kind("semantic")
        /// A warning of the layout compiler (it compiles, but something in it can never happen).
        public static let layoutWarning = Kind("layout-warning")

        public var description: String { name }
    }

    /// The file as it was given to the loader (or `<built-in>`, `<string>`).
    public var file: String
    /// 1-based line; 0 when the error has no place in the file (e.g. it cannot be read).
    public var line: Int
    /// 1-based column (counted in Unicode scalars); 0 when unknown.
    public var column: Int
    /// What was found and what was expected.
    public var message: String
    /// The class of the error.
    public var kind: Kind
    /// An error (the config is refused) or a warning (it is not).
    public var severity: Severity

    /// Creates an error (or a warning) at `file:line:column`.
    public init(file: String, line: Int, column: Int, message: String, kind: Kind, severity: Severity = .error) {
        self.file = file
        self.line = line
        self.column = column
        self.message = message
        self.kind = kind
        self.severity = severity
    }

    /// Creates an error (or a warning) at a source location (or at the top of `file` when there is none).
    public init(_ message: String, at location: SourceLocation?, file: String, kind: Kind, severity: Severity = .error) {
        self.init(file: location?.file ?? file, line: location?.line ?? 0, column: location?.column ?? 0,
                  message: message, kind: kind, severity: severity)
    }

    /// A compiled layout's diagnostic (its ``LayoutError/severity`` kept), named in `file` when it has no place.
    public init(_ diagnostic: LayoutError, file: String) {
        self.init(diagnostic.message, at: diagnostic.location, file: file,
                  kind: diagnostic.severity == .warning ? .layoutWarning : .semantic, severity: diagnostic.severity)
    }

    /// The place of the error, or nil when it has none.
    public var location: SourceLocation? {
        line > 0 ? SourceLocation(file: file, line: line, column: column) : nil
    }

    /// `FILE:LINE:COL: error: MESSAGE` (or `warning:`), or `FILE: error: MESSAGE` without a place.
    public var description: String {
        if line > 0 { return "\(file):\(line):\(column): \(severity.rawValue): \(message)" }
        return "\(file): \(severity.rawValue): \(message)"
    }
}
