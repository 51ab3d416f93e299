/// A problem reading an evemu recording: which file, which line (1-based; 0 when the file
/// itself could not be read), and what was wrong.
public struct EvemuError: Error, Equatable, Sendable, CustomStringConvertible {
    public var path: String
    public var line: Int
    public var message: String

    public init(path: String, line: Int, message: String) {
        self.path = path
        self.line = line
        self.message = message
    }

    /// `path:line: message` (or `path: message` for whole-file problems).
    public var description: String {
        line > 0 ? "\(path):\(line): \(message)" : "\(path): \(message)"
    }
}

/// Something odd in an evemu recording that does not stop it from being replayed (timestamps
/// going backwards): which file, which line (0: the file as a whole), what — an ``EvemuError``'s
/// place and words, reported as a warning.
public struct EvemuWarning: Equatable, Sendable, CustomStringConvertible {
    public var problem: EvemuError
    public var path: String { problem.path }
    public var line: Int { problem.line }
    public var message: String { problem.message }

    public init(path: String, line: Int, message: String) {
        problem = EvemuError(path: path, line: line, message: message)
    }

    /// `path:line` (or `path` for the file as a whole).
    public var location: String { line > 0 ? "\(path):\(line)" : path }

    /// `path:line: warning: message`, as compilers and `evroute check` write warnings.
    public var description: String { "\(location): warning: \(message)" }
}
