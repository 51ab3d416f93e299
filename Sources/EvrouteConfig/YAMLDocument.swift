import EvrouteCore
import CYaml

/// Reads YAML text into a tree of ``YAMLNode``s: libyaml's event parser (`yaml_parser_parse`)
/// does the scanning and parsing; the tree, anchors and aliases, tag resolution, duplicate keys
/// and the limits are done here.
///
/// Limits (docs/config.md, "Limits"), each a clear error at its place instead of unbounded
/// work or memory:
/// - ``maximumAliasExpansion``: all aliases of a document together may stand for at most this
///   many nodes (an alias counts the nodes of what it refers to, aliases in that expanded too),
///   so a "billion laughs" file stops at the alias that crosses the line;
/// - ``maximumDepth``: lists and mappings nest at most this deep, aliases expanded.
enum YAMLDocument {
    /// How many nodes the aliases of one document may stand for, together.
    static let maximumAliasExpansion = 100_000
    /// How deep lists and mappings may nest (the top-level mapping is level 1).
    static let maximumDepth = 256

    /// Composes the one document of `text`; nil when there is none (an empty text, or only
    /// comments). `file` names the text in errors.
    static func compose(_ text: String, file: String) throws(Diagnostic) -> YAMLNode? {
        var bytes = text   // withUTF8 makes the storage contiguous UTF-8, so it needs a var
        let result = bytes.withUTF8 { bytes -> Result<YAMLNode?, Diagnostic> in
            do throws(Diagnostic) {
                return .success(try Composer(bytes: bytes, text: text, file: file).document())
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }
}

/// One libyaml event, copied out of libyaml's memory.
private enum Event {
    case streamStart, streamEnd, documentStart, documentEnd
    case alias(anchor: String)
    case scalar(YAMLScalar, anchor: String?)
    case sequenceStart(anchor: String?)
    case sequenceEnd
    case mappingStart(anchor: String?)
    case mappingEnd
}

/// Drives a libyaml parser over one text and builds the tree. Lives only while the text's
/// bytes are pinned (inside `withUTF8`).
private final class Composer {
    let parser: UnsafeMutablePointer<yaml_parser_t>
    let text: String
    let file: String
    /// Anchored nodes by anchor name; a later anchor of the same name replaces an earlier one.
    var anchors: [String: YAMLNode] = [:]
    /// The nodes all aliases so far stand for (see ``YAMLDocument/maximumAliasExpansion``).
    var aliasExpansion = 0

    /// False when libyaml could not set its parser up (out of memory).
    let ready: Bool

    init(bytes: UnsafeBufferPointer<UInt8>, text: String, file: String) {
        self.text = text
        self.file = file
        // libyaml keeps a pointer to the parser in the parser (its input handler), so it
        // lives at a fixed address.
        parser = .allocate(capacity: 1)
        ready = yaml_parser_initialize(parser) == 1
        if ready {
            yaml_parser_set_encoding(parser, YAML_UTF8_ENCODING)
            yaml_parser_set_input_string(parser, bytes.baseAddress, bytes.count)
        }
    }

    deinit {
        if ready { yaml_parser_delete(parser) }
        parser.deallocate()
    }

    /// The stream's single document, nil when the stream has none.
    func document() throws(Diagnostic) -> YAMLNode? {
        guard ready else {
            throw Diagnostic(file: file, line: 0, column: 0, message: "cannot read YAML: out of memory", kind: .syntax)
        }
        _ = try next()                                    // stream start
        var (event, mark) = try next()
        if case .streamEnd = event { return nil }         // document start, or the end of an empty stream
        (event, mark) = try next()
        let root = try node(event, at: mark, level: 0)
        _ = try next()                                    // document end
        (event, mark) = try next()
        guard case .streamEnd = event else {
            throw syntaxError("but found another document (expected a single document in the stream at line 1, column 1)", at: mark)
        }
        return root
    }

    // MARK: Nodes

    /// The node that starts with `event`, inside a list or mapping at `level` (0: the top).
    func node(_ event: Event, at mark: YAMLMark, level: Int) throws(Diagnostic) -> YAMLNode {
        switch event {
        case .alias(let name):
            guard let target = anchors[name] else {
                throw syntaxError("found undefined alias '*\(name)' (an alias must come after its anchor '&\(name)')", at: mark)
            }
            aliasExpansion += target.expandedCount
            if aliasExpansion > YAMLDocument.maximumAliasExpansion {
                let limit = YAMLDocument.maximumAliasExpansion
                throw limitError("alias expansion exceeds \(limit) nodes at alias '*\(name)' (all aliases of a file together may stand for at most \(limit) nodes)", at: mark)
            }
            if level + target.height > YAMLDocument.maximumDepth {
                throw depthError(at: mark, alias: name)
            }
            return target
        case .scalar(let scalar, let anchor):
            return register(YAMLNode(.scalar(scalar), mark: mark, expandedCount: 1, height: 0), anchor)
        case .sequenceStart(let anchor):
            guard level < YAMLDocument.maximumDepth else { throw depthError(at: mark, alias: nil) }
            var items: [YAMLNode] = []
            var count = 1, height = 0
            while true {
                let (event, itemMark) = try next()
                if case .sequenceEnd = event { break }
                let item = try node(event, at: itemMark, level: level + 1)
                items.append(item)
                count += item.expandedCount
                height = max(height, item.height)
            }
            return register(YAMLNode(.sequence(items), mark: mark, expandedCount: count, height: height + 1), anchor)
        case .mappingStart(let anchor):
            guard level < YAMLDocument.maximumDepth else { throw depthError(at: mark, alias: nil) }
            var pairs: [(key: YAMLNode, value: YAMLNode)] = []
            var keyMarks: [YAMLMark] = []   // where each key is written (an alias's own place)
            var count = 1, height = 0
            while true {
                let (event, keyMark) = try next()
                if case .mappingEnd = event { break }
                let key = try node(event, at: keyMark, level: level + 1)
                let (valueEvent, valueMark) = try next()
                let value = try node(valueEvent, at: valueMark, level: level + 1)
                pairs.append((key, value))
                keyMarks.append(keyMark)
                count += key.expandedCount + value.expandedCount
                height = max(height, key.height, value.height)
            }
            try checkDuplicateKeys(pairs.map(\.key), at: keyMarks)
            return register(YAMLNode(.mapping(pairs), mark: mark, expandedCount: count, height: height + 1), anchor)
        case .streamStart, .streamEnd, .documentStart, .documentEnd, .sequenceEnd, .mappingEnd:
            // libyaml only gives these where the code above expects them.
            throw syntaxError("unexpected YAML event", at: mark)
        }
    }

    /// Records `node` under its anchor, once the node is complete (so an alias inside the
    /// node it names is undefined, not a cycle).
    func register(_ node: YAMLNode, _ anchor: String?) -> YAMLNode {
        if let anchor { anchors[anchor] = node }
        return node
    }

    /// Throws when a key appears twice in one mapping (two keys are the same when they have
    /// the same text and type: `a` and `"a"` are, `1` and `"1"` are not), at the second one.
    /// When several keys repeat, the one whose text sorts first is reported.
    func checkDuplicateKeys(_ keys: [YAMLNode], at marks: [YAMLMark]) throws(Diagnostic) {
        var firstIndex: [KeyIdentity: Int] = [:]
        var repeated: [(first: Int, second: Int)] = []
        var reported: Set<KeyIdentity> = []
        for (i, key) in keys.enumerated() {
            let id = KeyIdentity(key)
            guard let first = firstIndex[id] else { firstIndex[id] = i; continue }
            if reported.insert(id).inserted { repeated.append((first, i)) }
        }
        func sortKey(_ i: Int) -> String? { keys[i].scalar?.string }
        let pick = repeated.min { a, b in
            switch (sortKey(a.first), sortKey(b.first)) {
            case let (x?, y?): return x < y
            case (_?, nil): return true
            default: return false
            }
        }
        guard let (first, second) = pick else { return }
        let name = keys[first].scalar?.string ?? "<a list or mapping>"
        let at = marks[first]
        throw Diagnostic(file: file, line: marks[second].line, column: marks[second].column,
                          message: "duplicate key '\(name)' in a mapping (each key may appear once); first given at line \(at.line), column \(at.column)",
                          kind: .duplicateKey)
    }

    // MARK: Events

    /// The next event and where it starts.
    func next() throws(Diagnostic) -> (Event, YAMLMark) {
        var event = yaml_event_t()
        guard yaml_parser_parse(parser, &event) == 1 else { throw libyamlError() }
        defer { yaml_event_delete(&event) }
        let mark = YAMLMark(line: Int(event.start_mark.line) + 1, column: Int(event.start_mark.column) + 1)
        switch event.type {
        case YAML_STREAM_START_EVENT: return (.streamStart, mark)
        case YAML_STREAM_END_EVENT: return (.streamEnd, mark)
        case YAML_DOCUMENT_START_EVENT: return (.documentStart, mark)
        case YAML_DOCUMENT_END_EVENT: return (.documentEnd, mark)
        case YAML_ALIAS_EVENT: return (.alias(anchor: string(event.data.alias.anchor) ?? ""), mark)
        case YAML_SEQUENCE_START_EVENT: return (.sequenceStart(anchor: string(event.data.sequence_start.anchor)), mark)
        case YAML_SEQUENCE_END_EVENT: return (.sequenceEnd, mark)
        case YAML_MAPPING_START_EVENT: return (.mappingStart(anchor: string(event.data.mapping_start.anchor)), mark)
        case YAML_MAPPING_END_EVENT: return (.mappingEnd, mark)
        case YAML_SCALAR_EVENT:
            let s = event.data.scalar
            // The value may hold NUL characters: read it by length. A byte order mark at its
            // start is dropped, as evroute always has.
            var bytes = UnsafeBufferPointer(start: s.value, count: Int(s.length))[...]
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
            let value = String(decoding: bytes, as: UTF8.self)
            let style: YAMLScalar.Style
            switch s.style {
            case YAML_SINGLE_QUOTED_SCALAR_STYLE: style = .singleQuoted
            case YAML_DOUBLE_QUOTED_SCALAR_STYLE: style = .doubleQuoted
            case YAML_LITERAL_SCALAR_STYLE: style = .literal
            case YAML_FOLDED_SCALAR_STYLE: style = .folded
            default: style = .plain
            }
            // Untagged: quoted and block scalars are strings, plain ones resolve by their text.
            let tag: YAMLScalar.Tag
            if s.quoted_implicit != 0 { tag = .str }
            else if let name = string(s.tag) { tag = YAMLScalar.Tag(explicit: name) }
            else { tag = YAMLScalar.resolve(value) }
            return (.scalar(YAMLScalar(string: value, style: style, tag: tag), anchor: string(s.anchor)), mark)
        default:
            throw syntaxError("unexpected YAML event", at: mark)
        }
    }

    /// A NUL-terminated libyaml string (anchor, tag), nil for a null pointer.
    func string(_ pointer: UnsafeMutablePointer<yaml_char_t>?) -> String? {
        pointer.map { String(decodingCString: $0, as: UTF8.self) }
    }

    // MARK: Errors

    func syntaxError(_ message: String, at mark: YAMLMark) -> Diagnostic {
        Diagnostic(file: file, line: mark.line, column: mark.column, message: "invalid YAML: \(message)", kind: .syntax)
    }

    /// A document past one of evroute's limits (valid YAML, but too much of it).
    func limitError(_ message: String, at mark: YAMLMark) -> Diagnostic {
        Diagnostic(file: file, line: mark.line, column: mark.column, message: message, kind: .syntax)
    }

    func depthError(at mark: YAMLMark, alias: String?) -> Diagnostic {
        let limit = YAMLDocument.maximumDepth
        return limitError(alias.map { "nesting exceeds \(limit) levels at alias '*\($0)' (lists and mappings may nest at most \(limit) deep, aliases expanded)" }
            ?? "nesting exceeds \(limit) levels (lists and mappings may nest at most \(limit) deep)", at: mark)
    }

    /// The error libyaml's parser stopped with.
    func libyamlError() -> Diagnostic {
        Diagnostic.fromLibYAML(parser.pointee, file: file, yaml: text)
    }
}

/// What makes two mapping keys the same: scalars by text and type, lists and mappings by
/// their contents.
private indirect enum KeyIdentity: Hashable {
    case scalar(String, YAMLScalar.Tag)
    case sequence([KeyIdentity])
    /// Keys and values, alternating.
    case mapping([KeyIdentity])

    init(_ node: YAMLNode) {
        switch node.content {
        case .scalar(let s): self = .scalar(s.string, s.tag)
        case .sequence(let items): self = .sequence(items.map(KeyIdentity.init))
        case .mapping(let pairs): self = .mapping(pairs.flatMap { [KeyIdentity($0.key), KeyIdentity($0.value)] })
        }
    }
}
