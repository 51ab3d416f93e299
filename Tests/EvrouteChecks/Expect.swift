// `expect` and `expectEqual`: plain-function twins of `#expect` for its two common uses, a
// condition and an equality. The macro expands every call site into a generic closure call that
// the compiler then type-checks, a large part of what building the tests cost (CONTRIBUTING.md); a
// function call is checked once. `expectEqual` prints both values when they
// differ; a failed `expect` points at its line. `#expect(throws:)`, `#require` and the rest stay
// the framework's (CONTRIBUTING.md).
import Testing

/// Records an issue at the call site when `condition` is false.
public func expect(
    _ condition: @autoclosure () throws -> Bool, _ comment: @autoclosure () -> Comment? = nil,
    fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
) rethrows {
    if try !condition() {
        Issue.record(comment() ?? "expectation failed",
                     sourceLocation: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
    }
}

/// Records an issue at the call site, with both values, when `actual` is not `expected`.
public func expectEqual<T: Equatable>(
    _ actual: @autoclosure () throws -> T, _ expected: @autoclosure () throws -> T,
    _ comment: @autoclosure () -> Comment? = nil,
    fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
) rethrows {
    let a = try actual(), b = try expected()
    if a != b {
        var text = "\(String(reflecting: a)) is not \(String(reflecting: b))"
        if let comment = comment() { text += ": \(comment)" }
        Issue.record(Comment(rawValue: text),
                     sourceLocation: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
    }
}
