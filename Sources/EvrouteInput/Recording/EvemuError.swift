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
