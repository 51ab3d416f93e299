// How scalars resolve to a type and how numbers and booleans are read: YAML 1.1's rules as
// evroute has always applied them (the same answers the YAML library used before libyaml gave).

extension YAMLScalar.Tag {
    /// The tag an explicit tag name stands for (`tag:yaml.org,2002:int` → `.int`). `!`, the
    /// non-specific tag, makes a scalar a string.
    init(explicit name: String) {
        switch name {
        case "!", "tag:yaml.org,2002:str": self = .str
        case "tag:yaml.org,2002:null": self = .null
        case "tag:yaml.org,2002:bool": self = .bool
        case "tag:yaml.org,2002:int": self = .int
        case "tag:yaml.org,2002:float": self = .float
        default: self = .other(name)
        }
    }
}

extension YAMLScalar {
    /// The type of an untagged plain scalar, from its text. The first rule that matches the
    /// whole text wins, in this order:
    /// - bool: `yes`/`no`/`true`/`false`/`on`/`off` (lower case, Capitalised or UPPER CASE);
    /// - int: `0b1010`, `017` or `0o17`, `42`, `0x1F`, `1:30` (base 60), with an optional sign
    ///   and `_` separators;
    /// - float: `1.5`, `1e3`, `.5`, `1:30.5`, `.inf`, `-.inf`, `.nan`;
    /// - merge `<<`; null: empty, `~`, `null`; timestamp `2024-01-31` (…`T10:00:00Z`); value `=`;
    /// - anything else is a string.
    static func resolve(_ text: String) -> Tag {
        if boolWords.contains(text) { return .bool }
        // The common case first: a decimal integer without a leading zero (int rule 3).
        if let first = text.utf8.first, first != UInt8(ascii: "0") || text.utf8.count == 1,
           text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) { return .int }
        // Numbers and timestamps start with a sign, a dot or a digit; most names do not.
        let numeric = text.utf8.first.map { "+-.0123456789".utf8.contains($0) } ?? false
        let bytes = numeric ? Array(text.utf8) : []
        if numeric && Pattern.int.matches(bytes) { return .int }
        if numeric && Pattern.float.matches(bytes) { return .float }
        if text == "<<" { return .other("tag:yaml.org,2002:merge") }
        if nullWords.contains(text) { return .null }
        if numeric && Pattern.timestamp.matches(bytes) { return .other("tag:yaml.org,2002:timestamp") }
        if text == "=" { return .other("tag:yaml.org,2002:value") }
        return .str
    }

    private static let boolWords: Set<String> = [
        "yes", "Yes", "YES", "no", "No", "NO", "true", "True", "TRUE",
        "false", "False", "FALSE", "on", "On", "ON", "off", "Off", "OFF",
    ]
    private static let nullWords: Set<String> = ["", "~", "null", "Null", "NULL"]

    /// The boolean the text spells (`true`/`yes`/`on`, `false`/`no`/`off`, any case), or nil.
    var bool: Bool? {
        switch string.lowercased() {
        case "true", "yes", "on": return true
        case "false", "no", "off": return false
        default: return nil
        }
    }

    /// The integer the text spells, read as an int-typed scalar: `_` separators dropped; `0x`
    /// hex, `0b` binary, `0o` or a leading `0` octal; `a:b:c` base 60; else decimal. nil for a
    /// quoted or block scalar, or when the value does not fit an `Int`.
    var int: Int? {
        guard style == .plain else { return nil }
        let text = string.filter { $0 != "_" }
        let negative = text.hasPrefix("-")
        let digits = text.dropFirst(negative || text.hasPrefix("+") ? 1 : 0)
        if digits == "0" { return 0 }
        for (prefix, radix) in [("0x", 16), ("0b", 2), ("0o", 8), ("0", 8)] where digits.hasPrefix(prefix) {
            return Int((negative ? "-" : "") + digits.dropFirst(prefix.count), radix: radix)
        }
        if digits.contains(":") { return Self.base60Int(text) }
        return Int(text)
    }

    /// The number the text spells, read as a float-typed scalar: `.inf`, `-.inf`, `.nan` (any
    /// case), `a:b.c` base 60, else Swift's reading of a decimal (`_` separators dropped). nil
    /// for a quoted or block scalar.
    var double: Double? {
        guard style == .plain else { return nil }
        switch string.lowercased() {
        case ".inf", "+.inf": return .infinity
        case "-.inf": return -.infinity
        case ".nan": return .nan
        default:
            let text = string.filter { $0 != "_" }
            if text.contains(":") { return Self.base60Double(text) }
            return Double(text)
        }
    }

    /// The sign and the parts of `[-+]a:b:c`, a number in base 60 (`1:30` is 90).
    private static func base60Parts(_ text: String) -> (negative: Bool, parts: [Substring]) {
        var body = Substring(text)
        let negative = body.hasPrefix("-")
        if negative || body.hasPrefix("+") { body = body.dropFirst() }
        return (negative, body.split(separator: ":", omittingEmptySubsequences: false))
    }

    /// `[-+]a:b:c` in base 60 as an integer; nil when a part is not a decimal integer or the
    /// value overflows.
    private static func base60Int(_ text: String) -> Int? {
        let (negative, parts) = base60Parts(text)
        var value = 0
        for part in parts {
            guard let digit = Int(part, radix: 10) else { return nil }
            let (shifted, o1) = value.multipliedReportingOverflow(by: 60)
            let (sum, o2) = shifted.addingReportingOverflow(digit)
            if o1 || o2 { return nil }
            value = sum
        }
        return negative ? -value : value
    }

    /// `[-+]a:b:c.d` in base 60 as a number; nil when a part is not a number.
    private static func base60Double(_ text: String) -> Double? {
        let (negative, parts) = base60Parts(text)
        var value = 0.0
        for part in parts {
            guard let digit = Double(part) else { return nil }
            value = value * 60 + digit
        }
        return negative ? -value : value
    }
}

/// A small regular pattern over ASCII bytes, matched the way a regular expression anchored
/// with `^…$` is: ``matches(_:)`` is true when the whole text is one match.
private indirect enum Pattern: Sendable {
    /// One byte out of these characters.
    case oneOf(String)
    /// Exactly this text.
    case text(String)
    case sequence([Pattern])
    case either([Pattern])
    case optional(Pattern)
    /// Zero or more.
    case many(Pattern)

    /// One or more.
    static func some(_ p: Pattern) -> Pattern { .sequence([p, .many(p)]) }

    func matches(_ bytes: [UInt8]) -> Bool { ends(in: bytes, from: 0).contains(bytes.count) }

    /// Every offset at which a match that starts at `start` can end (sorted, each once).
    func ends(in bytes: [UInt8], from start: Int) -> [Int] {
        switch self {
        case .oneOf(let chars):
            return start < bytes.count && chars.utf8.contains(bytes[start]) ? [start + 1] : []
        case .text(let t):
            let end = start + t.utf8.count
            return end <= bytes.count && bytes[start..<end].elementsEqual(t.utf8) ? [end] : []
        case .sequence(let parts):
            var positions = [start]
            for part in parts where !positions.isEmpty {
                positions = Self.unique(positions.flatMap { part.ends(in: bytes, from: $0) })
            }
            return positions
        case .either(let options):
            return Self.unique(options.flatMap { $0.ends(in: bytes, from: start) })
        case .optional(let p):
            return Self.unique(p.ends(in: bytes, from: start) + [start])
        case .many(let p):
            // Breadth first; every pattern repeated here consumes at least one byte, so each
            // round ends further on and the loop ends.
            var all = [start]
            var frontier = [start]
            while !frontier.isEmpty {
                frontier = Self.unique(frontier.flatMap { p.ends(in: bytes, from: $0) })
                all += frontier
            }
            return Self.unique(all)
        }
    }

    /// Sorted, each value once (the lists are short: usually one or two offsets).
    private static func unique(_ positions: [Int]) -> [Int] {
        if positions.count < 2 { return positions }
        var out: [Int] = []
        for p in positions.sorted() where out.last != p { out.append(p) }
        return out
    }

    private static let sign = Pattern.optional(.oneOf("-+"))
    private static let digit = Pattern.oneOf("0123456789")
    private static let digitOr_ = Pattern.oneOf("0123456789_")
    /// `(?::[0-5]?[0-9])+`, the base-60 part of `1:30:00`.
    private static let base60 = Pattern.some(.sequence([.text(":"), .optional(.oneOf("012345")), digit]))

    /// YAML 1.1 int.
    static let int = Pattern.either([
        .sequence([sign, .text("0b"), .some(.oneOf("01_"))]),
        .sequence([sign, .text("0"), .optional(.text("o")), .some(.oneOf("01234567_"))]),
        .sequence([sign, .either([.text("0"), .sequence([.oneOf("123456789"), .many(digitOr_)])])]),
        .sequence([sign, .text("0x"), .some(.oneOf("0123456789abcdefABCDEF_"))]),
        .sequence([sign, .oneOf("123456789"), .many(digitOr_), base60]),
    ])

    /// YAML 1.1 float.
    static let float = Pattern.either([
        .sequence([sign, digit, .many(digitOr_), .optional(.sequence([.text("."), .many(digitOr_)])),
                   .optional(.sequence([.oneOf("eE"), sign, .some(digit)]))]),
        .sequence([.text("."), .some(digitOr_), .optional(.sequence([.oneOf("eE"), .oneOf("-+"), .some(digit)]))]),
        .sequence([sign, digit, .many(digitOr_), base60, .text("."), .many(digitOr_)]),
        .sequence([sign, .text("."), .either([.text("inf"), .text("Inf"), .text("INF")])]),
        .sequence([.text("."), .either([.text("nan"), .text("NaN"), .text("NAN")])]),
    ])

    /// YAML 1.1 timestamp: `2024-01-31`, or with a time `2024-1-31T10:00:00.5 +01:00`.
    static let timestamp: Pattern = {
        let blanks = Pattern.oneOf(" \t")
        let oneOrTwo = Pattern.sequence([digit, .optional(digit)])
        let zone = Pattern.either([.text("Z"), .sequence([.oneOf("-+"), oneOrTwo, .optional(.sequence([.text(":"), digit, digit]))])])
        return .either([
            .sequence([digit, digit, digit, digit, .text("-"), digit, digit, .text("-"), digit, digit]),
            .sequence([digit, digit, digit, digit, .text("-"), oneOrTwo, .text("-"), oneOrTwo,
                       .either([.oneOf("Tt"), .some(blanks)]),
                       oneOrTwo, .text(":"), digit, digit, .text(":"), digit, digit,
                       .optional(.sequence([.text("."), .many(digit)])),
                       .optional(.sequence([.many(blanks), zone]))]),
        ])
    }()
}
