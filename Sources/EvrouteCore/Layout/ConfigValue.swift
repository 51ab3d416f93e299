/// A plugin option as written in the config: plugins interpret their own options.
public indirect enum ConfigValue: Hashable, Sendable {
    case string(String)
    case number(Double)
    case bool(Bool)
    case list([ConfigValue])
    case map([String: ConfigValue])
    case null

    public var string: String? { if case .string(let s) = self { return s } else { return nil } }
    public var number: Double? { if case .number(let n) = self { return n } else { return nil } }
    public var bool: Bool? { if case .bool(let b) = self { return b } else { return nil } }
    public var list: [ConfigValue]? { if case .list(let l) = self { return l } else { return nil } }
    /// A list of strings (e.g. an argv), or nil when any element is not a string.
    public var stringList: [String]? {
        guard case .list(let l) = self else { return nil }
        var out: [String] = []
        for v in l { guard let s = v.string else { return nil }; out.append(s) }
        return out
    }
}
