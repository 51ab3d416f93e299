import EvrouteCore
import Yams

/// The keys of one YAML mapping, read once and checked against the keys allowed there.
struct Fields {
    /// The mapping node itself.
    let node: Node
    /// How messages name this mapping: `region 'header'`, `display`, ….
    let label: String
    /// Key → (key node, value node), in file order in `order`.
    private(set) var entries: [String: (key: Node, value: Node)] = [:]
    private(set) var order: [String] = []

    init(node: Node, label: String) {
        self.node = node
        self.label = label
    }

    mutating func add(_ key: String, keyNode: Node, value: Node) {
        if entries[key] == nil { order.append(key) }
        entries[key] = (keyNode, value)
    }

    subscript(key: String) -> Node? { entries[key]?.value }
    func keyNode(_ key: String) -> Node? { entries[key]?.key }
    func has(_ key: String) -> Bool { entries[key] != nil }
}

/// Turns a composed YAML tree into a ``LayoutSpec``, collecting every error on the way.
/// Nothing here throws: a bad value is reported and skipped (or replaced by a placeholder
/// so that the rest can still be checked), and the caller throws if `errors` is not empty.
final class SpecReader {
    let file: String
    private(set) var errors: [ConfigError] = []

    init(file: String) { self.file = file }

    // MARK: Errors and locations

    func location(_ node: Node?) -> SourceLocation? {
        guard let mark = node?.mark else { return nil }
        return SourceLocation(file: file, line: mark.line, column: mark.column)
    }

    func error(_ node: Node?, _ kind: ConfigError.Kind, _ message: String) {
        errors.append(ConfigError(message, at: location(node), file: file, kind: kind))
    }

    func wrongType(_ node: Node, _ what: String, expected: String) {
        error(node, .wrongType, "\(what) must be \(expected), found \(describe(node))")
    }

    // MARK: Mappings

    /// Reads a mapping's keys. `known` lists the keys allowed (nil: any key is allowed,
    /// e.g. plugin options); unknown keys are reported at the key. Returns nil, after
    /// reporting, when `node` is not a mapping.
    func fields(_ node: Node, _ what: String, known: [String]?) -> Fields? {
        guard case .mapping(let mapping) = node else {
            wrongType(node, what, expected: "a mapping")
            return nil
        }
        // Name the mapping after its `name` when it has a plain one, for clearer messages.
        var label = what
        for (k, v) in mapping where k.scalar?.string == "name" {
            if case .scalar(let s) = v, !s.string.isEmpty { label = "\(what) '\(s.string)'" }
        }
        var fields = Fields(node: node, label: label)
        for (k, v) in mapping {
            guard case .scalar(let key) = k else {
                error(k, .wrongType, "keys in \(label) must be strings, found \(describe(k))")
                continue
            }
            if let known, !known.contains(key.string) {
                var message = "unknown key '\(key.string)' in \(label) (expected one of: \(known.joined(separator: ", ")))"
                if let guess = closest(key.string, in: known) { message += "; did you mean '\(guess)'?" }
                error(k, .unknownKey, message)
                continue
            }
            fields.add(key.string, keyNode: k, value: v)
        }
        return fields
    }

    /// The value of a key that must be present; reports its absence at the mapping.
    func required(_ f: Fields, _ key: String, hint: String? = nil) -> Node? {
        if let v = f[key] { return v }
        var message = "\(f.label) is missing required key '\(key)'"
        if let hint { message += " (\(hint))" }
        error(f.node, .missingKey, message)
        return nil
    }

    // MARK: Scalars

    /// The resolved YAML type of a scalar: str, int, float, bool or null.
    func tagName(_ node: Node) -> Tag.Name? {
        guard case .scalar = node else { return nil }
        return Tag.Name(rawValue: node.tag.rawValue)
    }

    /// A string: any scalar but null (numbers and booleans are taken as written).
    func string(_ node: Node, _ what: String) -> String? {
        guard case .scalar(let s) = node, tagName(node) != .null else {
            wrongType(node, what, expected: "a string")
            return nil
        }
        return s.string
    }

    /// A non-empty string.
    func name(_ node: Node, _ what: String) -> String? {
        guard let s = string(node, what) else { return nil }
        if s.isEmpty { error(node, .invalidValue, "\(what) must not be empty"); return nil }
        return s
    }

    /// A number (YAML int or float).
    func number(_ node: Node, _ what: String) -> Double? {
        guard case .scalar(let s) = node else { wrongType(node, what, expected: "a number"); return nil }
        switch tagName(node) {
        case .int?: if let i = Int.construct(from: s) { return Double(i) }
        case .float?: if let d = Double.construct(from: s), d.isFinite { return d }
        default: break
        }
        wrongType(node, what, expected: "a number")
        return nil
    }

    /// An integer (a float with no fraction is accepted).
    func integer(_ node: Node, _ what: String) -> Int? {
        guard case .scalar(let s) = node else { wrongType(node, what, expected: "an integer"); return nil }
        switch tagName(node) {
        case .int?: if let i = Int.construct(from: s) { return i }
        case .float?:
            if let d = Double.construct(from: s), d.isFinite, d == d.rounded(), abs(d) < 1e15 { return Int(d) }
        default: break
        }
        wrongType(node, what, expected: "an integer")
        return nil
    }

    /// A boolean (`true`/`false`; YAML 1.1's `yes`/`no`/`on`/`off` too).
    func bool(_ node: Node, _ what: String) -> Bool? {
        guard case .scalar(let s) = node, tagName(node) == .bool, let b = Bool.construct(from: s) else {
            wrongType(node, what, expected: "true or false")
            return nil
        }
        return b
    }

    /// A list; reports and returns nil when `node` is not one.
    func list(_ node: Node, _ what: String) -> [Node]? {
        guard case .sequence(let seq) = node else { wrongType(node, what, expected: "a list"); return nil }
        return Array(seq)
    }

    func isSequence(_ node: Node) -> Bool { if case .sequence = node { return true } else { return false } }
    func isMapping(_ node: Node) -> Bool { if case .mapping = node { return true } else { return false } }

    /// One value or a list of them (`on: tap` or `on: [tap, key]`).
    func oneOrMany(_ node: Node) -> [Node] {
        if case .sequence(let seq) = node { return Array(seq) }
        return [node]
    }

    /// A list of strings, or one string.
    func strings(_ node: Node, _ what: String) -> [String]? {
        var out: [String] = []
        var ok = true
        for item in oneOrMany(node) {
            if let s = name(item, "each of \(what)") { out.append(s) } else { ok = false }
        }
        return ok ? out : nil
    }

    /// A string that must be one of `allowed`.
    func choice<T>(_ node: Node, _ what: String, _ allowed: [(String, T)]) -> T? {
        guard let s = string(node, what) else { return nil }
        if let hit = allowed.first(where: { $0.0 == s }) { return hit.1 }
        let names = allowed.map(\.0)
        var message = "unknown \(what) '\(s)' (expected one of: \(names.joined(separator: ", ")))"
        if let guess = closest(s, in: names) { message += "; did you mean '\(guess)'?" }
        error(node, .invalidValue, message)
        return nil
    }

    /// Any YAML value as a plugin option.
    func configValue(_ node: Node) -> ConfigValue {
        switch node {
        case .scalar(let s):
            switch tagName(node) {
            case .null?: return .null
            case .bool?: if let b = Bool.construct(from: s) { return .bool(b) }
            case .int?: if let i = Int.construct(from: s) { return .number(Double(i)) }
            case .float?: if let d = Double.construct(from: s) { return .number(d) }
            default: break
            }
            return .string(s.string)
        case .sequence(let seq):
            return .list(seq.map(configValue))
        case .mapping(let m):
            var out: [String: ConfigValue] = [:]
            for (k, v) in m {
                guard case .scalar(let key) = k else {
                    error(k, .wrongType, "option keys must be strings, found \(describe(k))")
                    continue
                }
                out[key.string] = configValue(v)
            }
            return .map(out)
        case .alias:
            return .null
        }
    }

    // MARK: Describing nodes in messages

    /// `string 'abc'`, `number 3`, `true`, `null`, `a list [1, 2]`, `a mapping`.
    func describe(_ node: Node) -> String {
        switch node {
        case .scalar(let s):
            switch tagName(node) {
            case .null?: return "null"
            case .bool?: return s.string
            case .int?, .float?: return "number \(s.string)"
            default: return "string '\(s.string)'"
            }
        case .sequence: return "a list \(render(node))"
        case .mapping: return "a mapping \(render(node))"
        case .alias: return "an alias"
        }
    }

    /// A list as written (`[0, 0, 10]`), anything else described (`string 'abc'`).
    func found(_ node: Node) -> String {
        if case .sequence = node { return render(node) }
        return describe(node)
    }

    /// A compact flow rendering of a node, e.g. `[0, 0, 10]`, cut at about 60 characters.
    func render(_ node: Node) -> String {
        var out = ""
        func walk(_ n: Node) {
            if out.count > 60 { return }
            switch n {
            case .scalar(let s): out += tagName(n) == .str && s.style != .plain ? "'\(s.string)'" : s.string
            case .sequence(let seq):
                out += "["
                for (i, e) in seq.enumerated() { if i > 0 { out += ", " }; walk(e) }
                out += "]"
            case .mapping(let m):
                out += "{"
                for (i, (k, v)) in m.enumerated() { if i > 0 { out += ", " }; walk(k); out += ": "; walk(v) }
                out += "}"
            case .alias: out += "*alias"
            }
        }
        walk(node)
        if out.count > 64 { out = String(out.prefix(60)) + " …" }
        return out
    }
}

/// The allowed spelling closest to a misspelt one, when it is close enough to be a likely typo.
func closest(_ word: String, in candidates: [String]) -> String? {
    func distance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        // Optimal string alignment: insertions, deletions, substitutions and adjacent swaps.
        var d = Array(repeating: Array(repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { d[i][0] = i }
        for j in 0...b.count { d[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1) }
            }
        }
        return d[a.count][b.count]
    }
    let w = Array(word.lowercased())
    var best: (String, Int)?
    for c in candidates {
        let d = distance(w, Array(c))
        if d <= max(1, min(2, c.count / 3)), best == nil || d < best!.1 { best = (c, d) }
    }
    return best?.0
}
