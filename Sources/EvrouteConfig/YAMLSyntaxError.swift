import Yams

extension ConfigError {
    /// A ``ConfigError`` for an error thrown by Yams while reading `yaml`.
    static func fromYams(_ error: Error, file: String, yaml: String) -> ConfigError {
        guard let e = error as? YamlError else {
            return ConfigError(file: file, line: 0, column: 0, message: "cannot read YAML: \(error)", kind: .syntax)
        }
        func syntax(_ context: YamlError.Context?, _ problem: String, _ mark: Mark) -> ConfigError {
            var message = "invalid YAML: \(problem)"
            if let context {
                message += " (\(context.text) at line \(context.mark.line), column \(context.mark.column))"
            }
            return ConfigError(file: file, line: mark.line, column: mark.column, message: message, kind: .syntax)
        }
        switch e {
        case let .scanner(context, problem, mark, _): return syntax(context, problem, mark)
        case let .parser(context, problem, mark, _): return syntax(context, problem, mark)
        case let .composer(context, problem, mark, _): return syntax(context, problem, mark)
        case let .reader(problem, offset, _, _):
            var line = 0, column = 0
            if let offset {
                line = 1; column = 1
                for (i, ch) in yaml.enumerated() {
                    if i >= offset { break }
                    if ch == "\n" { line += 1; column = 1 } else { column += 1 }
                }
            }
            return ConfigError(file: file, line: line, column: column, message: "cannot read the text: \(problem)", kind: .syntax)
        case let .duplicatedKeysInMapping(duplicates, context):
            let key = duplicates.first ?? "?"
            let first = context.mark
            let second = Self.findDuplicate(of: key, after: first, in: yaml)
            let at = second ?? (first.line, first.column)
            var message = "duplicate key '\(key)' in a mapping (each key may appear once)"
            if second != nil { message += "; first given at line \(first.line), column \(first.column)" }
            return ConfigError(file: file, line: at.line, column: at.column, message: message, kind: .duplicateKey)
        default:
            return ConfigError(file: file, line: 0, column: 0, message: "cannot read YAML: \(e)", kind: .syntax)
        }
    }

    /// Yams reports a duplicate key at its first occurrence; a compiler points at the second.
    /// In block style the second one is at the same column, further down, before the mapping
    /// ends (a line indented less than the key). Returns nil when it cannot tell (flow style).
    static func findDuplicate(of key: String, after first: Mark, in yaml: String) -> (line: Int, column: Int)? {
        let lines = yaml.split(separator: "\n", omittingEmptySubsequences: false).map { Array($0.unicodeScalars) }
        guard first.line >= 1, first.line <= lines.count else { return nil }
        let col = first.column - 1
        let keyScalars = Array(key.unicodeScalars)
        for index in first.line..<lines.count {
            let line = lines[index]
            guard let firstNonBlank = line.firstIndex(where: { $0 != " " && $0 != "\t" && $0 != "\r" }) else { continue }
            if line[firstNonBlank] == "#" { continue }
            // `- key:` of the next list item, or any less-indented line, ends the mapping.
            if firstNonBlank < col { return nil }
            guard line.count > col + keyScalars.count else { continue }
            var candidate = Array(line[col..<(col + keyScalars.count)])
            var after = col + keyScalars.count
            if candidate == keyScalars {
                while after < line.count, line[after] == " " { after += 1 }
                if after < line.count, line[after] == ":" { return (index + 1, col + 1) }
            }
            // A quoted spelling of the same key.
            for q in ["\"", "'"] as [Unicode.Scalar] where line[col] == q {
                let end = col + 1 + keyScalars.count
                guard end < line.count else { continue }
                candidate = Array(line[(col + 1)..<end])
                if candidate == keyScalars, line[end] == q { return (index + 1, col + 1) }
            }
        }
        return nil
    }
}
