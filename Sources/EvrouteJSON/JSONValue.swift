/// A JSON value: parsed from a control request or a plugin's answer, built for a response.
/// Objects keep their keys in insertion order, so responses read the same every time.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    public static func == (a: JSONValue, b: JSONValue) -> Bool {
        switch (a, b) {
        case (.null, .null): true
        case (.bool(let x), .bool(let y)): x == y
        case (.number(let x), .number(let y)): x == y
        case (.string(let x), .string(let y)): x == y
        case (.array(let x), .array(let y)): x == y
        case (.object(let x), .object(let y)): x.count == y.count && zip(x, y).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: false
        }
    }

    /// An integer number.
    public static func int(_ v: Int) -> JSONValue { .number(Double(v)) }

    /// A string, or null.
    public static func string(_ s: String?) -> JSONValue { s.map { .string($0) } ?? .null }

    /// The member `key` of an object (nil for other values or a missing key; the first one
    /// when a key repeats).
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.0 == key }?.1
    }

    /// The string, if this is one.
    public var stringValue: String? { if case .string(let s) = self { s } else { nil } }
    /// The number as an integer, if this is a whole number of magnitude below 9e15.
    public var intValue: Int? {
        if case .number(let d) = self, d.rounded() == d, abs(d) < JSONText.integralLimit { Int(d) } else { nil }
    }
    /// The number, if this is one.
    public var doubleValue: Double? { if case .number(let d) = self { d } else { nil } }
    /// The boolean, if this is one.
    public var boolValue: Bool? { if case .bool(let b) = self { b } else { nil } }
    /// The elements, if this is an array.
    public var arrayValue: [JSONValue]? { if case .array(let a) = self { a } else { nil } }

    // MARK: Writing

    /// Compact JSON text on one line: strings escaped by ``JSONText/appendString(_:to:)``,
    /// numbers in ``JSONNumberStyle/shortest`` (`1280`, `3.004`; non-finite as `null`).
    public var serialized: String {
        var w = JSONWriter(capacity: 64)
        w.value(self)
        return String(decoding: w.bytes, as: UTF8.self)
    }

    // MARK: Parsing

    /// A parse failure with the byte offset (from 0, in the UTF-8 text) where it happened.
    public struct ParseError: Error, CustomStringConvertible {
        public var offset: Int
        public var message: String
        public var description: String { "invalid JSON at byte \(offset): \(message)" }
    }

    /// Objects and arrays nested deeper than this are refused.
    public static let maximumDepth = 64

    /// Parses one JSON text (surrounding whitespace allowed).
    public static func parse(_ text: String) throws(ParseError) -> JSONValue {
        try parse(utf8: Array(text.utf8))
    }

    /// Parses one JSON text given as UTF-8 bytes (surrounding whitespace allowed). Invalid
    /// UTF-8 inside strings reads as U+FFFD.
    public static func parse(utf8 bytes: some Collection<UInt8>) throws(ParseError) -> JSONValue {
        var parser = Parser(bytes: Array(bytes))
        let value = try parser.value(depth: 0)
        parser.skipSpace()
        guard parser.at == parser.bytes.count else { throw parser.fail("unexpected text after the value") }
        return value
    }

    /// The value of the top-level member `key` of an object whose text is cut off (the first
    /// part of a line too long to take), when that member is complete in `prefix`: members are
    /// read in order up to the cut, so only one written before it is found. nil when the text
    /// is not an object, the member is not there, or a member before it does not parse.
    public static func member(_ key: String, ofCutObject prefix: some Collection<UInt8>) -> JSONValue? {
        var parser = Parser(bytes: Array(prefix))
        parser.skipSpace()
        guard parser.at < parser.bytes.count, parser.bytes[parser.at] == UInt8(ascii: "{") else { return nil }
        parser.at += 1
        while true {
            parser.skipSpace()
            guard parser.at < parser.bytes.count, parser.bytes[parser.at] == UInt8(ascii: "\""),
                  let name = try? parser.string() else { return nil }
            parser.skipSpace()
            guard parser.at < parser.bytes.count, parser.bytes[parser.at] == UInt8(ascii: ":") else { return nil }
            parser.at += 1
            guard let value = try? parser.value(depth: 1) else { return nil }
            parser.skipSpace()
            // A value at the cut may itself be cut (a number's digits): only one followed by
            // `,` or `}` is whole.
            guard parser.at < parser.bytes.count else { return nil }
            if name == key { return value }
            guard parser.bytes[parser.at] == UInt8(ascii: ",") else { return nil }
            parser.at += 1
        }
    }

    /// RFC 8259, strictly, except that a `\u` escape of a lone surrogate reads as U+FFFD.
    struct Parser {
        let bytes: [UInt8]
        var at = 0

        func fail(_ message: String) -> ParseError { ParseError(offset: at, message: message) }

        mutating func skipSpace() {
            while at < bytes.count {
                switch bytes[at] {
                case 0x20, 0x09, 0x0A, 0x0D: at += 1
                default: return
                }
            }
        }

        mutating func literal(_ word: StaticString, _ value: JSONValue) throws(ParseError) -> JSONValue {
            let n = word.utf8CodeUnitCount
            let matches = word.withUTF8Buffer { w in at + n <= bytes.count && bytes[at..<at + n].elementsEqual(w) }
            guard matches else { throw fail("expected \(word)") }
            at += n
            return value
        }

        mutating func value(depth: Int) throws(ParseError) -> JSONValue {
            guard depth < JSONValue.maximumDepth else { throw fail("nested too deeply") }
            skipSpace()
            guard at < bytes.count else { throw fail("expected a value") }
            switch bytes[at] {
            case UInt8(ascii: "n"): return try literal("null", .null)
            case UInt8(ascii: "t"): return try literal("true", .bool(true))
            case UInt8(ascii: "f"): return try literal("false", .bool(false))
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "["):
                at += 1
                var items: [JSONValue] = []
                skipSpace()
                if at < bytes.count, bytes[at] == UInt8(ascii: "]") { at += 1; return .array(items) }
                while true {
                    items.append(try value(depth: depth + 1))
                    skipSpace()
                    guard at < bytes.count else { throw fail("unterminated array") }
                    if bytes[at] == UInt8(ascii: ",") { at += 1; continue }
                    if bytes[at] == UInt8(ascii: "]") { at += 1; return .array(items) }
                    throw fail("expected , or ]")
                }
            case UInt8(ascii: "{"):
                at += 1
                var members: [(String, JSONValue)] = []
                skipSpace()
                if at < bytes.count, bytes[at] == UInt8(ascii: "}") { at += 1; return .object(members) }
                while true {
                    skipSpace()
                    guard at < bytes.count, bytes[at] == UInt8(ascii: "\"") else { throw fail("expected a key string") }
                    let key = try string()
                    skipSpace()
                    guard at < bytes.count, bytes[at] == UInt8(ascii: ":") else { throw fail("expected :") }
                    at += 1
                    members.append((key, try value(depth: depth + 1)))
                    skipSpace()
                    guard at < bytes.count else { throw fail("unterminated object") }
                    if bytes[at] == UInt8(ascii: ",") { at += 1; continue }
                    if bytes[at] == UInt8(ascii: "}") { at += 1; return .object(members) }
                    throw fail("expected , or }")
                }
            default:
                return try number()
            }
        }

        func isDigit(_ i: Int) -> Bool { i < bytes.count && bytes[i] >= 0x30 && bytes[i] <= 0x39 }

        /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`; a failure points at the number's start.
        mutating func number() throws(ParseError) -> JSONValue {
            let start = at
            var i = at
            if i < bytes.count, bytes[i] == UInt8(ascii: "-") { i += 1 }
            guard isDigit(i) else { throw fail("expected a value") }
            if bytes[i] == UInt8(ascii: "0") { i += 1 } else { while isDigit(i) { i += 1 } }
            if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
                i += 1
                guard isDigit(i) else { throw fail("invalid number: expected a digit after '.'") }
                while isDigit(i) { i += 1 }
            }
            if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
                i += 1
                if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
                guard isDigit(i) else { throw fail("invalid number: expected a digit in the exponent") }
                while isDigit(i) { i += 1 }
            }
            // Beyond the range of a Double, a number reads as ±infinity (and serializes as null).
            guard let d = Double(String(decoding: bytes[start..<i], as: UTF8.self)) else {
                throw fail("invalid number")
            }
            at = i
            return .number(d)
        }

        /// Four hex digits after `\u`; `at` is on the first.
        mutating func hex4() throws(ParseError) -> UInt32 {
            guard at + 4 <= bytes.count else { throw fail("bad \\u escape") }
            var v: UInt32 = 0
            for k in 0..<4 {
                let c = bytes[at + k]
                let digit: UInt8
                switch c {
                case 0x30...0x39: digit = c - 0x30
                case 0x41...0x46: digit = c - 0x41 + 10
                case 0x61...0x66: digit = c - 0x61 + 10
                default: throw fail("bad \\u escape")
                }
                v = v << 4 | UInt32(digit)
            }
            at += 4
            return v
        }

        /// A string; `at` is on its opening quote. Runs without escapes are decoded in one piece.
        mutating func string() throws(ParseError) -> String {
            at += 1
            let runStart = at
            while at < bytes.count {
                let c = bytes[at]
                if c == UInt8(ascii: "\"") {
                    let s = String(decoding: bytes[runStart..<at], as: UTF8.self)
                    at += 1
                    return s
                }
                if c == UInt8(ascii: "\\") { break }
                guard c >= 0x20 else { throw fail("control character in a string") }
                at += 1
            }
            guard at < bytes.count else { throw fail("unterminated string") }
            // Escapes: build the UTF-8 bytes.
            var out = Array(bytes[runStart..<at])
            while at < bytes.count {
                let c = bytes[at]
                if c == UInt8(ascii: "\"") {
                    at += 1
                    return String(decoding: out, as: UTF8.self)
                }
                guard c >= 0x20 else { throw fail("control character in a string") }
                guard c == UInt8(ascii: "\\") else { out.append(c); at += 1; continue }
                at += 1
                guard at < bytes.count else { break }
                let e = bytes[at]
                switch e {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "u"):
                    at += 1
                    appendScalar(try unicodeEscape(), to: &out)
                    continue
                default:
                    throw fail("bad escape")
                }
                at += 1
            }
            throw fail("unterminated string")
        }

        /// The scalar of a `\u` escape (`at` just after the `u`), joining a surrogate pair. A
        /// lone surrogate reads as U+FFFD; an escape that follows a lone high surrogate is
        /// read on its own.
        mutating func unicodeEscape() throws(ParseError) -> Unicode.Scalar {
            let v = try hex4()
            if (0xD800..<0xDC00).contains(v), at + 6 <= bytes.count,
               bytes[at] == UInt8(ascii: "\\"), bytes[at + 1] == UInt8(ascii: "u") {
                let mark = at
                at += 2
                let low = try hex4()
                if (0xDC00..<0xE000).contains(low) {
                    return Unicode.Scalar(0x10000 + ((v - 0xD800) << 10) + (low - 0xDC00)) ?? "\u{FFFD}"
                }
                at = mark   // not a low surrogate: read it as its own escape next
            }
            return Unicode.Scalar(v) ?? "\u{FFFD}"
        }

        func appendScalar(_ s: Unicode.Scalar, to out: inout [UInt8]) {
            UTF8.encode(s) { out.append($0) }
        }
    }
}
