/// How serious a diagnostic is: an error refuses what was given (a config, a recording, a
/// plugin's options); a warning is printed, never refused; a note adds to the one before it.
public enum Severity: String, Sendable, Hashable {
    case error, warning, note
}

/// The one diagnostic type of every layer: a problem found in something evroute was given —
/// a config file, a compiled layout, a recording, a plugin's options — its ``Severity``, where
/// it was written and what was wrong. Printed in one place, ``rendered(showingSeverity:)``, as
/// compilers do:
///
/// - `FILE:LINE:COL: error: MESSAGE` (or `warning:`, `note:`) for a place in a file;
/// - `PATH:LINE: warning: MESSAGE` where the input has no columns (a recording's lines);
/// - `FILE: error: MESSAGE` for the file as a whole (it cannot be read; line 0);
/// - `error: MESSAGE` where the problem is in no file (a layout changed at run time, whose
///   message names the region or screen).
///
/// It lives in the core because every layer that reports one (config, input, runtime, daemon)
/// depends on the core already, while the system layer, which must not, reports none: its
/// errors are errno's (`SystemError`), with no place in a file.
///
/// Errors of two kinds print without the word `error:` (``Kind/labelsErrors``): a recording's
/// (`PATH:LINE: MESSAGE`) and a plugin's refusal to run (`FILE:LINE:COL: MESSAGE`), as they
/// always have; their warnings are labelled like every other.
public struct Diagnostic: Error, Sendable, Hashable, CustomStringConvertible {
    /// The class of a diagnostic, for programs that want to tell them apart (tests, editors).
    /// New values may be added without breaking callers: match with a `default` branch.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        /// The name of the kind, e.g. `unknown-key`.
        public let name: String
        /// A kind of one's own (the names below are taken).
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
        /// A recording (evemu) that cannot be read, or is odd but replayable.
        public static let recording = Kind("recording")
        /// A plugin the host cannot run from a layout (options not checked, no command).
        public static let plugin = Kind("plugin")

        /// Whether an error of this kind is printed with the word `error:` (all but a
        /// recording's and a plugin's, whose text is `PLACE: MESSAGE`).
        public var labelsErrors: Bool { self != .recording && self != .plugin }

        public var description: String { name }
    }

    /// An error, a warning or a note.
    public var severity: Severity
    /// The file as it was given (or `<built-in>`, `<string>`, `<recording>`); nil when the
    /// problem is in no file.
    public var file: String?
    /// 1-based line; 0 when the problem is in the file as a whole (or in no file).
    public var line: Int
    /// 1-based column (counted in Unicode scalars; 0 when unknown); nil where the input has
    /// no columns (a recording's lines), and then none is printed.
    public var column: Int?
    /// What was found and what was expected.
    public var message: String
    /// The class of the diagnostic.
    public var kind: Kind

    /// A diagnostic at `file:line:column` (line 0: the file as a whole).
    public init(file: String?, line: Int, column: Int?, message: String, kind: Kind, severity: Severity = .error) {
        self.file = file
        self.line = line
        self.column = column
        self.message = message
        self.kind = kind
        self.severity = severity
    }

    /// A diagnostic at a source location, or of the whole `file` when there is none.
    public init(_ message: String, at location: SourceLocation?, file: String, kind: Kind, severity: Severity = .error) {
        self.init(file: location?.file ?? file, line: location?.line ?? 0, column: location?.column ?? 0,
                  message: message, kind: kind, severity: severity)
    }

    /// A diagnostic of the layout compiler at a source location (or in no file): kind
    /// ``Kind/semantic`` for an error, ``Kind/layoutWarning`` for a warning, unless given.
    public init(_ message: String, at location: SourceLocation?, severity: Severity = .error, kind: Kind? = nil) {
        self.init(file: location?.file, line: location?.line ?? 0, column: location?.column,
                  message: message, kind: kind ?? (severity == .warning ? .layoutWarning : .semantic), severity: severity)
    }

    /// A diagnostic of a recording: `path`, its 1-based `line` (0: the file as a whole).
    public init(recording path: String, line: Int, message: String, severity: Severity = .error) {
        self.init(file: path, line: line, column: nil, message: message, kind: .recording, severity: severity)
    }

    /// The place of the diagnostic in a file, or nil when it has none (or no column).
    public var location: SourceLocation? {
        guard let file, line > 0, let column else { return nil }
        return SourceLocation(file: file, line: line, column: column)
    }

    /// This diagnostic, named in `file` (line 0: as a whole) when it has no file of its own.
    public func placed(in file: String) -> Diagnostic {
        guard self.file == nil else { return self }
        var copy = self
        copy.file = file
        copy.line = 0
        copy.column = 0
        return copy
    }

    /// `FILE:LINE:COL`, `PATH:LINE` or `FILE`; nil when the diagnostic is in no file.
    public var place: String? {
        guard let file else { return nil }
        guard line > 0 else { return file }
        guard let column else { return "\(file):\(line)" }
        return "\(file):\(line):\(column)"
    }

    /// The printed form, the one renderer of diagnostics: `PLACE: SEVERITY: MESSAGE`; without
    /// `SEVERITY: ` when `showingSeverity` is false (a log line, whose level says it already).
    public func rendered(showingSeverity: Bool) -> String {
        let text = showingSeverity ? "\(severity.rawValue): \(message)" : message
        guard let place else { return text }
        return "\(place): \(text)"
    }

    /// ``rendered(showingSeverity:)``, the severity shown unless this is an error of a kind
    /// that is not labelled (``Kind/labelsErrors``).
    public var description: String {
        rendered(showingSeverity: severity != .error || kind.labelsErrors)
    }

    /// The most diagnostics printed for one file (`check`, the daemon's start and reload); the
    /// rest are counted in one last line, `… and N more`. One mistake repeated through a large
    /// file (a generated layout) is then a screenful, not thousands of lines.
    public static let printedAtMost = 100

    /// The printed lines of `diagnostics` (in the order given): the first ``printedAtMost``,
    /// then `… and N more error(s)` (or `warning(s)`, or `diagnostic(s)` when they are both).
    public static func lines(_ diagnostics: [Diagnostic], limit: Int = printedAtMost) -> [String] {
        guard diagnostics.count > limit else { return diagnostics.map(\.description) }
        let rest = diagnostics[limit...]
        let what = rest.allSatisfy { $0.severity == .error } ? "error(s)"
            : rest.allSatisfy { $0.severity == .warning } ? "warning(s)" : "diagnostic(s)"
        return diagnostics[..<limit].map(\.description) + ["… and \(rest.count) more \(what)"]
    }
}

/// Every error found in one input (a config's reading or compilation collects them all, not
/// just the first): what ``ConfigLoader`` and the layout compiler throw.
public struct Diagnostics: Error, Sendable, CustomStringConvertible, RandomAccessCollection {
    /// The diagnostics, at least one.
    public var errors: [Diagnostic]

    /// Wraps a list, in the order given.
    public init(_ errors: [Diagnostic]) { self.errors = errors }

    /// Wraps a list sorted by line and column within each file (files and ties keep their order).
    public static func inFileOrder(_ errors: [Diagnostic]) -> Diagnostics {
        Diagnostics(errors.enumerated().sorted { a, b in
            let l = a.element, r = b.element
            if l.file != r.file { return a.offset < b.offset }
            if l.line != r.line { return l.line < r.line }
            if l.column != r.column { return (l.column ?? 0) < (r.column ?? 0) }
            return a.offset < b.offset
        }.map(\.element))
    }

    public var startIndex: Int { errors.startIndex }
    public var endIndex: Int { errors.endIndex }
    public subscript(position: Int) -> Diagnostic { errors[position] }

    /// One diagnostic per line, at most ``Diagnostic/printedAtMost`` of them, then `… and N more`.
    public var description: String { Diagnostic.lines(errors).joined(separator: "\n") }
}
