import Glibc
import EvrouteCore

/// Something a config compiles with but probably does not mean (a child region sticking out
/// of its parent, a root frame unlike its display, a handler option its plugin does not read):
/// printed `FILE:LINE:COL: warning: MESSAGE`, never refused.
public struct ConfigWarning: Sendable, Hashable, CustomStringConvertible {
    public var file: String
    /// 1-based line; 0 when the warning has no place in the file.
    public var line: Int
    /// 1-based column; 0 when unknown.
    public var column: Int
    public var message: String

    public init(file: String, line: Int, column: Int, message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.message = message
    }

    /// `FILE:LINE:COL: warning: MESSAGE`, or `FILE: warning: MESSAGE` without a place.
    public var description: String {
        if line > 0 { return "\(file):\(line):\(column): warning: \(message)" }
        return "\(file): warning: \(message)"
    }
}

/// What `evroute check` reports of one config: every error, or the compiled layout and its warnings.
public struct ConfigCheck: Sendable {
    /// The file as named in messages (``ConfigLoader/builtInName`` for the built-in default).
    public var file: String
    public var errors: [ConfigError]
    public var warnings: [ConfigWarning]
    /// The spec and layout, when there are no errors.
    public var result: (spec: LayoutSpec, layout: Layout)?

    public var ok: Bool { errors.isEmpty }
}

extension ConfigLoader {
    /// The warnings of a compiled layout, in file order.
    public static func warnings(of layout: Layout, file: String) -> [ConfigWarning] {
        layout.warnings.map {
            ConfigWarning(file: $0.location?.file ?? file, line: $0.location?.line ?? 0, column: $0.location?.column ?? 0,
                          message: $0.message)
        }.enumerated().sorted { a, b in
            (a.element.line, a.element.column, a.offset) < (b.element.line, b.element.column, b.offset)
        }.map(\.element)
    }

    /// Loads and compiles the config as the daemon would (``loadLayout(path:)``: the same
    /// checks as at start and reload) and reports its errors or its warnings.
    public static func check(path: String?) -> ConfigCheck {
        var status = stat()
        let file = path ?? (stat(defaultPath, &status) == 0 ? defaultPath : builtInName)
        do {
            let loaded = try loadLayout(path: path)
            return ConfigCheck(file: file, errors: [], warnings: warnings(of: loaded.layout, file: file), result: loaded)
        } catch {
            return ConfigCheck(file: file, errors: error.errors, warnings: [], result: nil)
        }
    }
}
