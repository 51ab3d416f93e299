import EvrouteCore
import EvrouteJSON

/// The encoder's fields as members of a JSON object (the caller opens and closes it):
/// docs/events.md's event object, as the JSON trace and the plugins' wire format write it.
/// Numbers to 1/1000, times in seconds (``TimestampText/seconds(_:to:)``'s text). Each member
/// (key and value) is one append (``JSONWriter/member(_:integer:)``, …).
extension JSONWriter: EventFieldWriter {
    @inlinable @inline(__always)
    public mutating func field(_ field: EventField, _ value: String?) {
        guard let value else { member(field.name, null: ()); return }
        member(field.name, string: value)
    }
    @inlinable @inline(__always)
    public mutating func field(_ field: EventField, literal value: StaticString) {
        member(field.name, literal: value)
    }
    @inlinable @inline(__always)
    public mutating func field(_ field: EventField, phase value: TouchPhase) {
        member(field.name, literal: value.name)
    }
    @inlinable @inline(__always)
    public mutating func field(_ field: EventField, integer value: Int) {
        member(field.name, integer: Int64(value))
    }
    @inlinable @inline(__always)
    public mutating func field(_ field: EventField, number value: Double?) {
        member(field.name, thousandths: value)
    }
    @inlinable @inline(__always)
    public mutating func field(_ field: EventField, bool value: Bool) {
        key(commaQuoted: field.commaQuotedKey)
        bool(value)
    }
    @inlinable @inline(__always)
    public mutating func field(_ field: EventField, time value: Timestamp) {
        member(field.name, time: value.microseconds)
    }
    @inlinable
    public mutating func field(_ field: EventField, point value: Point) {
        key(commaQuoted: field.commaQuotedKey)
        beginArray()
        number(value.x)
        number(value.y)
        endArray()
    }
    @inlinable
    public mutating func field(_ field: EventField, x: Double, y: Double, z: Double) {
        key(commaQuoted: field.commaQuotedKey)
        beginArray()
        number(x)
        number(y)
        number(z)
        endArray()
    }
    @inlinable
    public mutating func options(of handler: HandlerBinding) { HandlerOptions.writeJSON(of: handler, to: &self) }
}

/// Members encoded once and written again as they are (``EventFragments``: a layout's names).
extension JSONWriter: EventFragmentWriter {
    @inlinable @inline(__always)
    public mutating func write(_ fragment: [UInt8]) { write(fragment: fragment) }
}

extension EventField {
    /// The field's JSON key as ``JSONWriter/key(commaQuoted:)`` takes it, `,"name":`.
    @inlinable
    public var commaQuotedKey: [UInt8] { EventField.commaQuotedKeys[Int(rawValue)] }

    /// Every field's `,"name":`, by raw value, made once from ``name``.
    @usableFromInline
    static let commaQuotedKeys: [[UInt8]] = {
        var keys: [[UInt8]] = []
        while let field = EventField(rawValue: UInt8(keys.count)) { keys.append(JSONWriter.commaQuoted(field.name)) }
        return keys
    }()
}

/// A time's text as JSON and the log write it: seconds with the microseconds, trailing zeros of
/// the fraction left out, `.0` when there are none (`1508.125`: the JSON `time`, the log's
/// `t=`). (Its fixed form, `1508.125000`, is ``Timestamp/text(decimals:)``.)
public enum TimestampText {
    /// The most bytes a time's text takes.
    public static let maximumLength = JSONText.maximumFixedLength

    /// Appends `1508.125`, `100.0`, `-0.000001` (at most ``maximumLength`` bytes).
    @inlinable
    public static func seconds(_ t: Timestamp, to out: inout OutputSpan<UInt8>) {
        out.append(fixed: t.microseconds, decimals: 6)
    }
}

/// The options of a handler that travel with every event sent to it (docs/ui-control.md): the keys
/// besides `plugin` and `on` that its plugin does not read itself. `socket` and `process`
/// peers (and the trace) get them as `"options":{…}`, `exec` commands as `EVROUTE_OPT_*`.
/// Keys are written sorted (the config's mappings keep no order), nested mappings too.
public enum HandlerOptions {
    /// Whether the handler's plugin type reads `key` itself (``HandlerBinding/ownOptionKeys``:
    /// `command` and `shell` of `exec`, `action` of `action`, `region` and `resign` of `focus`,
    /// `screen` of `present`, `log-keys` of `log`). Those do not travel.
    public static func isPluginOwn(_ key: String, of handler: HandlerBinding) -> Bool {
        handler.ownOptionKeys.contains(key)
    }

    /// The travelling options of `handler`, sorted by key (allocates: for `exec`, not the trace).
    public static func sorted(of handler: HandlerBinding) -> [(key: String, value: ConfigValue)] {
        handler.options.filter { !isPluginOwn($0.key, of: handler) }
            .sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// Writes `"options":{…}` into the open object when `handler` has travelling options;
    /// nothing otherwise. No heap allocation for up to 20 keys per mapping.
    public static func writeJSON(of handler: HandlerBinding, to json: inout JSONWriter) {
        let options = handler.options
        guard !options.isEmpty else { return }
        let own = handler.ownOptionKeys
        withSortedKeys(options, { !own.contains($0) }) { keys in
            guard !keys.isEmpty else { return }
            json.key("options")
            writeMembers(options, keys, to: &json)
        }
    }

    /// A value as JSON: numbers in the control protocol's ``JSONNumberStyle/shortest`` style,
    /// mappings with sorted keys.
    public static func write(_ value: ConfigValue, to json: inout JSONWriter) {
        switch value {
        case .string(let s): json.string(s)
        case .number(let n): json.number(n, style: .shortest)
        case .bool(let b): json.bool(b)
        case .null: json.null()
        case .list(let items):
            json.beginArray()
            for item in items { write(item, to: &json) }
            json.endArray()
        case .map(let m):
            withSortedKeys(m, { _ in true }) { keys in writeMembers(m, keys, to: &json) }
        }
    }

    private static func writeMembers(_ map: [String: ConfigValue], _ keys: Span<String>, to json: inout JSONWriter) {
        json.beginObject()
        for i in keys.indices {
            json.key(keys[i])
            write(map[keys[i]]!, to: &json)
        }
        json.endObject()
    }

    /// Calls `body` with the keys of `map` that pass `include`, sorted: up to 20 in inline
    /// (stack) storage, sorted in place; more in an array.
    private static func withSortedKeys(_ map: [String: ConfigValue], _ include: (String) -> Bool,
                                       _ body: (Span<String>) -> Void) {
        guard map.count <= 20 else {
            body(map.keys.filter(include).sorted().span)
            return
        }
        var keys = InlineArray<20, String>(repeating: "")
        var n = 0
        for key in map.keys where include(key) {
            // Insertion sort: a handler's options are a few keys.
            var i = n
            while i > 0 && keys[i - 1] > key {
                keys[i] = keys[i - 1]
                i -= 1
            }
            keys[i] = key
            n += 1
        }
        body(keys.span.extracting(0..<n))
    }

    /// The travelling options for people: `{button: settings, page: 2}`; nil when there are
    /// none. Strings are quoted (as JSON) only when empty or holding spaces, punctuation of
    /// this notation or control characters.
    public static func text(of handler: HandlerBinding) -> String? {
        guard !handler.options.isEmpty else { return nil }
        let options = sorted(of: handler)
        guard !options.isEmpty else { return nil }
        return "{" + options.map { "\(text($0.key)): \(text($0.value))" }.joined(separator: ", ") + "}"
    }

    /// One value in the notation of ``text(of:)``.
    public static func text(_ value: ConfigValue) -> String {
        switch value {
        case .string(let s): text(s)
        case .number(let n): JSONText.number(n, style: .shortest)
        case .bool(let b): b ? "true" : "false"
        case .null: "null"
        case .list(let items): "[" + items.map(text).joined(separator: ", ") + "]"
        case .map(let m): "{" + m.sorted { $0.key < $1.key }.map { "\(text($0.key)): \(text($0.value))" }.joined(separator: ", ") + "}"
        }
    }

    private static func text(_ s: String) -> String {
        let plain = !s.isEmpty && s.unicodeScalars.allSatisfy { c in
            c.value > 0x20 && c.value != 0x7F && !"{}[],:\"'#".unicodeScalars.contains(c)
        }
        if plain { return s }
        var out: [UInt8] = []
        JSONText.appendString(s, to: &out)
        return String(decoding: out, as: UTF8.self)
    }
}
