import EvrouteCore
import CYaml

extension Diagnostic {
    /// A ``Diagnostic`` for the error libyaml's `parser` stopped with while reading `yaml`:
    /// - scanner and parser errors: `invalid YAML: PROBLEM (CONTEXT at line L, column C)` at
    ///   the problem's place (the part in parentheses when libyaml gives a context), with a hint
///   to check the indentation for the problems an indentation change causes;
    /// - reader errors (e.g. a control character): `cannot read the text: PROBLEM` at the
    ///   offending character.
    static func fromLibYAML(_ parser: yaml_parser_t, file: String, yaml: String) -> Diagnostic {
        let problem = parser.problem.map { String(cString: $0) } ?? "unknown error"
        switch parser.error {
        case YAML_READER_ERROR:
            let (line, column) = readerPlace(byteOffset: Int(parser.problem_offset), in: yaml)
            return Diagnostic(file: file, line: line, column: column, message: "cannot read the text: \(problem)", kind: .syntax)
        case YAML_SCANNER_ERROR, YAML_PARSER_ERROR, YAML_COMPOSER_ERROR:
            var message = "invalid YAML: \(problem)"
            if let context = parser.context {
                let mark = parser.context_mark
                message += " (\(String(cString: context)) at line \(mark.line + 1), column \(mark.column + 1))"
            }
            if indentationProblems.contains(problem) { message += " (check the indentation of this line and the one before)" }
            let mark = parser.problem_mark
            return Diagnostic(file: file, line: Int(mark.line) + 1, column: Int(mark.column) + 1, message: message, kind: .syntax)
        case YAML_MEMORY_ERROR:
            return Diagnostic(file: file, line: 0, column: 0, message: "cannot read YAML: out of memory", kind: .syntax)
        default:
            return Diagnostic(file: file, line: 0, column: 0, message: "cannot read YAML: \(problem)", kind: .syntax)
        }
    }

    /// libyaml's problems that, in a config, nearly always come from a line indented more or
    /// less than the one before it.
    static let indentationProblems: Set<String> = [
        "mapping values are not allowed in this context", "did not find expected key",
    ]

    /// Line and column of a reader error's byte offset, counting characters (a `\r\n` is one
    /// character and does not start a line); 0, 0 when the offset is not at a character.
    static func readerPlace(byteOffset: Int, in yaml: String) -> (line: Int, column: Int) {
        guard let index = yaml.utf8.index(yaml.utf8.startIndex, offsetBy: byteOffset, limitedBy: yaml.utf8.endIndex),
              let character = index.samePosition(in: yaml) else { return (0, 0) }
        var line = 1, column = 1
        for ch in yaml[..<character] {
            if ch == "\n" { line += 1; column = 1 } else { column += 1 }
        }
        return (line, column)
    }
}
