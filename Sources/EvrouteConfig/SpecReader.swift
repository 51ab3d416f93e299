import EvrouteCore

/// The keys of one YAML mapping, read once and checked against the keys allowed there.
struct Fields {
    /// The mapping node itself.
    let node: YAMLNode
    /// How messages name this mapping: `region 'header'`, `display`, ….
    let label: String
    /// Key → (key node, value node), in file order in `order`.
    private(set) var entries: [String: (key: YAMLNode, value: YAMLNode)] = [:]
    private(set) var order: [String] = []

    init(node: YAMLNode, label: String) {
        self.node = node
        self.label = label
    }

    mutating func add(_ key: String, keyNode: YAMLNode, value: YAMLNode) {
        if entries[key] == nil { order.append(key) }
        entries[key] = (keyNode, value)
    }

    subscript(key: String) -> YAMLNode? { entries[key]?.value }
    func keyNode(_ key: String) -> YAMLNode? { entries[key]?.key }
    func has(_ key: String) -> Bool { entries[key] != nil }
}

/// Turns a composed YAML tree into a ``LayoutSpec``, collecting every error on the way.
/// Nothing here throws: a bad value is reported and skipped (or replaced by a placeholder
/// so that the rest can still be checked), and the caller throws if `errors` is not empty.
final class SpecReader {
    let file: String
    private(set) var errors: [Diagnostic] = []

    /// The plugin types a `type:` may name (the hosted ones are the caller's registry).
    let pluginTypes: PluginCatalog
    init(file: String, pluginTypes: PluginCatalog = .routingOnly) {
        self.file = file
        self.pluginTypes = pluginTypes
    }

    // MARK: xkb-data, for keymaps

    /// xkb-data's catalog, read the first time a keymap is checked (nil: not installed here).
    private var xkbCatalog: XkbCatalog??

    func catalog() -> XkbCatalog? {
        if xkbCatalog == nil { xkbCatalog = .some(XkbCatalog.installed()) }
        return xkbCatalog!
    }

    /// Runs `body` on the catalog (which caches the layout files it reads). Only after
    /// ``catalog()`` said there is one.
    func withCatalog<T>(_ body: (inout XkbCatalog) -> T) -> T {
        var c = catalog()!
        defer { xkbCatalog = .some(c) }
        return body(&c)
    }

    var catalogRoot: String { catalog()?.root ?? "/usr/share/X11/xkb" }

    // MARK: Errors and locations

    func location(_ node: YAMLNode?) -> SourceLocation? {
        guard let mark = node?.mark else { return nil }
        return SourceLocation(file: file, line: mark.line, column: mark.column)
    }

    func error(_ node: YAMLNode?, _ kind: Diagnostic.Kind, _ message: String) {
        errors.append(Diagnostic(message, at: location(node), file: file, kind: kind))
    }

    /// An error at a place kept from the reading (a check made once the whole layout is read).
    func error(at place: SourceLocation?, _ kind: Diagnostic.Kind, _ message: String) {
        errors.append(Diagnostic(message, at: place, file: file, kind: kind))
    }

    func wrongType(_ node: YAMLNode, _ what: String, expected: String) {
        error(node, .wrongType, "\(what) must be \(expected), found \(describe(node))")
    }

    // MARK: Mappings

    /// Reads a mapping's keys. `known` lists the keys allowed (nil: any key is allowed,
    /// e.g. plugin options); unknown keys are reported at the key. Returns nil, after
    /// reporting, when `node` is not a mapping.
    ///
    /// An unknown key gets a did-you-mean (``suggestion(for:in:synonyms:)``): a near miss of a
    /// known key, the same key spelt in camelCase or snake_case, or what `synonyms` says another
    /// toolkit calls it (`fingers` for a gesture's `touches`).
    func fields(_ node: YAMLNode, _ what: String, known: [String]?, synonyms: [String: String] = [:],
                misplaced: [String: String] = [:]) -> Fields? {
        guard case .mapping(let mapping) = node.content else {
            // A mapping of a few known keys says which: `idle: 120` is answered with the keys idle takes.
            if let known, known.count <= 6, !(node.scalar.map { $0.string.isEmpty } ?? false) {
                wrongType(node, what, expected: "a mapping with the keys \(known.joined(separator: ", "))")
            } else {
                wrongType(node, what, expected: "a mapping")
            }
            return nil
        }
        // Name the mapping after its `name` when it has a plain one, for clearer messages.
        var label = what
        for (k, v) in mapping where k.scalar?.string == "name" {
            if let s = v.scalar, !s.string.isEmpty { label = "\(what) '\(s.string)'" }
        }
        var fields = Fields(node: node, label: label)
        for (k, v) in mapping {
            guard let key = k.scalar else {
                error(k, .wrongType, "keys in \(label) must be strings, found \(describe(k))")
                continue
            }
            if let known, !known.contains(key.string) {
                var message = "unknown key '\(key.string)' in \(label) (expected one of: \(known.joined(separator: ", ")))"
                if let guess = suggestion(for: key.string, in: known, synonyms: synonyms) { message += "; did you mean '\(guess)'?" }
                else if let hint = misplaced[key.string] { message += "; \(hint)" }
                error(k, .unknownKey, message)
                continue
            }
            fields.add(key.string, keyNode: k, value: v)
        }
        return fields
    }

    /// The value of a key that must be present; reports its absence at the mapping.
    func required(_ f: Fields, _ key: String, hint: String? = nil) -> YAMLNode? {
        if let v = f[key] { return v }
        var message = "\(f.label) is missing required key '\(key)'"
        if let hint { message += " (\(hint))" }
        error(f.node, .missingKey, message)
        return nil
    }

    // MARK: Scalars

    /// The resolved YAML type of a scalar: str, int, float, bool, null or another tag.
    func tagName(_ node: YAMLNode) -> YAMLScalar.Tag? {
        node.scalar?.tag
    }

    /// A string: any scalar but null (numbers and booleans are taken as written).
    func string(_ node: YAMLNode, _ what: String) -> String? {
        guard let s = node.scalar, tagName(node) != .null else {
            wrongType(node, what, expected: "a string")
            return nil
        }
        return s.string
    }

    /// A non-empty string.
    func name(_ node: YAMLNode, _ what: String) -> String? {
        guard let s = string(node, what) else { return nil }
        if s.isEmpty { error(node, .invalidValue, "\(what) must not be empty"); return nil }
        return s
    }

    /// A number (YAML int or float).
    func number(_ node: YAMLNode, _ what: String) -> Double? {
        guard let s = node.scalar else { wrongType(node, what, expected: "a number"); return nil }
        switch tagName(node) {
        case .int?: if let i = s.int { return Double(i) }
        case .float?: if let d = s.double, d.isFinite { return d }
        default: break
        }
        wrongType(node, what, expected: "a number")
        return nil
    }

    /// A number in `range` (``LayoutLimits``); out of range is an error at the value.
    func bounded(_ node: YAMLNode, _ what: String, _ range: ClosedRange<Double>) -> Double? {
        guard let n = number(node, what) else { return nil }
        guard range.contains(n) else { outOfRange(node, what, range); return nil }
        return n
    }

    /// `WHAT must be between LOW and HIGH, found VALUE`, at the value.
    func outOfRange(_ node: YAMLNode, _ what: String, _ range: ClosedRange<Double>) {
        error(node, .invalidValue, "\(what) must be between \(LayoutLimits.text(range.lowerBound)) and \(LayoutLimits.text(range.upperBound)), found \(render(node))")
    }

    /// An integer (a float with no fraction is accepted).
    func integer(_ node: YAMLNode, _ what: String) -> Int? {
        guard let s = node.scalar else { wrongType(node, what, expected: "an integer"); return nil }
        switch tagName(node) {
        case .int?: if let i = s.int { return i }
        case .float?:
            if let d = s.double, d.isFinite, d == d.rounded(), abs(d) < 1e15 { return Int(d) }
        default: break
        }
        wrongType(node, what, expected: "an integer")
        return nil
    }

    /// A boolean (`true`/`false`; YAML 1.1's `yes`/`no`/`on`/`off` too).
    func bool(_ node: YAMLNode, _ what: String) -> Bool? {
        guard let s = node.scalar, tagName(node) == .bool, let b = s.bool else {
            wrongType(node, what, expected: "true or false")
            return nil
        }
        return b
    }

    /// A list; reports and returns nil when `node` is not one.
    func list(_ node: YAMLNode, _ what: String) -> [YAMLNode]? {
        guard case .sequence(let seq) = node.content else { wrongType(node, what, expected: "a list"); return nil }
        return seq
    }

    func isSequence(_ node: YAMLNode) -> Bool { if case .sequence = node.content { return true } else { return false } }
    func isMapping(_ node: YAMLNode) -> Bool { if case .mapping = node.content { return true } else { return false } }

    /// One value or a list of them (`on: tap` or `on: [tap, key]`).
    func oneOrMany(_ node: YAMLNode) -> [YAMLNode] {
        if case .sequence(let seq) = node.content { return seq }
        return [node]
    }

    /// A list of strings, or one string.
    func strings(_ node: YAMLNode, _ what: String) -> [String]? {
        var out: [String] = []
        var ok = true
        for item in oneOrMany(node) {
            if let s = name(item, "each of \(what)") { out.append(s) } else { ok = false }
        }
        return ok ? out : nil
    }

    /// A string that must be one of `allowed`.
    func choice<T>(_ node: YAMLNode, _ what: String, _ allowed: [(String, T)]) -> T? {
        guard let s = string(node, what) else { return nil }
        if let hit = allowed.first(where: { $0.0 == s }) { return hit.1 }
        let names = allowed.map(\.0)
        var message = "unknown \(what) '\(s)' (expected one of: \(names.joined(separator: ", ")))"
        if let guess = closest(s, in: names) { message += "; did you mean '\(guess)'?" }
        error(node, .invalidValue, message)
        return nil
    }

    /// Any YAML value as a plugin option.
    func configValue(_ node: YAMLNode) -> ConfigValue {
        switch node.content {
        case .scalar(let s):
            switch tagName(node) {
            case .null?: return .null
            case .bool?: if let b = s.bool { return .bool(b) }
            case .int?: if let i = s.int { return .number(Double(i)) }
            case .float?: if let d = s.double { return .number(d) }
            default: break
            }
            return .string(s.string)
        case .sequence(let seq):
            return .list(seq.map(configValue))
        case .mapping(let m):
            var out: [String: ConfigValue] = [:]
            for (k, v) in m {
                guard let key = k.scalar else {
                    error(k, .wrongType, "option keys must be strings, found \(describe(k))")
                    continue
                }
                out[key.string] = configValue(v)
            }
            return .map(out)
        }
    }

    // MARK: Describing nodes in messages

    /// `string 'abc'`, `number 3`, `true`, `null`, `a list [1, 2]`, `a mapping`.
    func describe(_ node: YAMLNode) -> String {
        switch node.content {
        case .scalar(let s):
            switch tagName(node) {
            case .null?: return "null"
            case .bool?: return s.string
            case .int?, .float?: return "number \(s.string)"
            default: return "string '\(s.string)'"
            }
        case .sequence: return "a list \(render(node))"
        case .mapping: return "a mapping \(render(node))"
        }
    }

    /// A list as written (`[0, 0, 10]`), anything else described (`string 'abc'`).
    func found(_ node: YAMLNode) -> String {
        if case .sequence = node.content { return render(node) }
        return describe(node)
    }

    /// A compact flow rendering of a node, e.g. `[0, 0, 10]`, cut at about 60 characters.
    func render(_ node: YAMLNode) -> String {
        var out = ""
        func walk(_ n: YAMLNode) {
            if out.count > 60 { return }
            switch n.content {
            case .scalar(let s): out += tagName(n) == .str && s.style != .plain ? "'\(s.string)'" : s.string
            case .sequence(let seq):
                out += "["
                for (i, e) in seq.enumerated() { if i > 0 { out += ", " }; walk(e) }
                out += "]"
            case .mapping(let m):
                out += "{"
                for (i, (k, v)) in m.enumerated() { if i > 0 { out += ", " }; walk(k); out += ": "; walk(v) }
                out += "}"
            }
        }
        walk(node)
        if out.count > 64 { out = String(out.prefix(60)) + " …" }
        return out
    }
}

/// The key meant by an unknown `key` of a mapping whose keys are `known`: a near miss
/// (``closest(_:in:)``), else the same words in camelCase or snake_case (`minimumDuration`,
/// `minimum_duration`: `minimum-duration`), else what `synonyms` maps the key (so respelt) to.
func suggestion(for key: String, in known: [String], synonyms: [String: String] = [:]) -> String? {
    if let guess = closest(key, in: known) { return guess }
    var kebab = ""
    for c in key {
        if c.isUppercase, !kebab.isEmpty, kebab.last != "-" { kebab.append("-") }
        kebab += c == "_" || c == " " ? "-" : c.lowercased()
    }
    if kebab != key, let guess = closest(kebab, in: known) { return guess }
    if let meant = synonyms[kebab], known.contains(meant) { return meant }
    return nil
}

/// The allowed spelling closest to a misspelt one, when it is close enough to be a likely typo
/// (the one rule of ``Spelling/closest(to:in:)``, shared with the run-time control).
func closest(_ word: String, in candidates: [String]) -> String? {
    Spelling.closest(to: word, in: candidates)
}
