/// One key of the layout file, as `check` accepts it and as the manual (`evroute.yaml(5)`)
/// describes it: its name, the type of its value, the values it takes, its default, what it
/// means, and (for a mapping, or a list of mappings) the keys inside it.
///
/// Every key the reader accepts is declared once as a `ConfigKey` — the layout's own keys in
/// ``LayoutSchema``, a filter's and a plugin type's by the type itself — and the reader takes its
/// list of known keys and its numeric ranges from these declarations, so the manual cannot
/// describe a key `check` refuses, or leave out one it takes.
public struct ConfigKey: Sendable {
    /// The shape of a key's value.
    public enum ValueType: Sendable, Equatable {
        case string
        case boolean
        /// A whole number; `range` bounds it when given.
        case integer(ClosedRange<Int>?)
        /// A number; `range` bounds it when given.
        case number(ClosedRange<Double>?)
        /// One of these words.
        case choice([String])
        /// A mapping whose keys are ``ConfigKey/keys``.
        case mapping
        /// A list; `of` names its elements' type as the manual says it ("[x, y, width, height]"),
        /// and a list of mappings has ``ConfigKey/keys`` for each element's keys.
        case list(of: String)
        /// A value with its own written form, described in words (`[width, height]`, a matrix).
        case other(String)
    }

    /// The key as written in the file.
    public let name: String
    public let type: ValueType
    /// The value when the key is absent, as written in the file (nil: none — see `required`).
    public let defaultValue: String?
    /// Whether the key must be given.
    public let required: Bool
    /// What the key means, in one or a few plain sentences.
    public let summary: String
    /// A mapping's keys, or the keys of each mapping in a list.
    public let keys: [ConfigKey]
    /// Whether the mapping takes keys besides `keys` (a plugin's or a handler's options, udev
    /// properties): the reader does not refuse them.
    public let takesOtherKeys: Bool

    public init(_ name: String, _ type: ValueType, default defaultValue: String? = nil, required: Bool = false,
                _ summary: String, keys: [ConfigKey] = [], takesOtherKeys: Bool = false) {
        self.name = name
        self.type = type
        self.defaultValue = defaultValue
        self.required = required
        self.summary = summary
        self.keys = keys
        self.takesOtherKeys = takesOtherKeys
    }

    /// The names of `keys`, in declaration order (the reader's list of known keys).
    public var keyNames: [String] { keys.map(\.name) }

    /// The key named `name` among `keys`.
    public subscript(name: String) -> ConfigKey? { keys.first { $0.name == name } }

    /// An integer key's range (nil: unbounded or not an integer).
    public var integerRange: ClosedRange<Int>? {
        if case .integer(let r) = type { return r }
        return nil
    }

    /// A number key's range (nil: unbounded or not a number).
    public var numberRange: ClosedRange<Double>? {
        if case .number(let r) = type { return r }
        return nil
    }

    /// The type as the manual names it: `integer, 1 to 3600`, `palm | lift`, `mapping`.
    public var typeDescription: String {
        switch type {
        case .string: return "string"
        case .boolean: return "boolean"
        case .integer(let r?): return "integer, \(r.lowerBound) to \(r.upperBound)"
        case .integer(nil): return "integer"
        case .number(let r?): return "number, \(Self.format(r.lowerBound)) to \(Self.format(r.upperBound))"
        case .number(nil): return "number"
        case .choice(let words): return words.joined(separator: " | ")
        case .mapping: return "mapping"
        case .list(let of): return "list of \(of)"
        case .other(let text): return text
        }
    }

    static func format(_ x: Double) -> String {
        x == x.rounded() && abs(x) < 1e15 ? String(Int(x)) : String(x)
    }
}
