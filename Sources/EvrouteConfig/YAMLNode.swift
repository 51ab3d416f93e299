/// A place in the YAML text: 1-based line and column (columns count Unicode scalars), that is
/// libyaml's 0-based mark plus one.
struct YAMLMark: Hashable, Sendable {
    let line: Int
    let column: Int
}

/// One node of a composed YAML document.
///
/// A class, so that an alias is the anchored node itself (the same object, no copy); a file
/// full of aliases costs memory for what it spells out, not for what it stands for.
final class YAMLNode {
    /// What the node holds.
    enum Content {
        case scalar(YAMLScalar)
        case sequence([YAMLNode])
        /// Key/value pairs in file order.
        case mapping([(key: YAMLNode, value: YAMLNode)])
    }

    let content: Content
    /// Where the node starts (for an aliased node: where its anchor is, not where the alias is).
    let mark: YAMLMark
    /// How many nodes this one stands for, itself included, with every alias in it expanded.
    let expandedCount: Int
    /// How many levels of lists and mappings it holds, aliases expanded (0 for a scalar).
    let height: Int

    init(_ content: Content, mark: YAMLMark, expandedCount: Int, height: Int) {
        self.content = content
        self.mark = mark
        self.expandedCount = expandedCount
        self.height = height
    }

    /// The scalar, when this node is one.
    var scalar: YAMLScalar? {
        if case .scalar(let s) = content { return s }
        return nil
    }
}

/// A scalar: its text (quotes and escapes resolved), how it was written, and its YAML type.
struct YAMLScalar {
    /// How the scalar was written.
    enum Style {
        case plain, singleQuoted, doubleQuoted, literal, folded
    }

    /// The type a scalar resolves to. Untagged plain scalars are resolved by their text
    /// (`~` → null, `yes` → bool, `0x10` → int, `.inf` → float, …, see ``YAMLScalar/resolve(_:)``);
    /// quoted and block scalars are strings; an explicit tag (`!!str 1`) is taken as given.
    enum Tag: Hashable {
        case null, bool, int, float, str
        /// Any other tag (YAML 1.1's timestamp, merge `<<` and value `=`, or a tag of one's own),
        /// by its full name, e.g. `tag:yaml.org,2002:timestamp`.
        case other(String)
    }

    /// The text, as the document means it (quotes removed, escapes applied, lines folded).
    let string: String
    let style: Style
    let tag: Tag
}
