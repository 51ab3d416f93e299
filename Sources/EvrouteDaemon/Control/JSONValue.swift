/// A JSON value for the control protocol: parsed from a request line, built for a response.
import EvrouteSystem
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

    /// The member `key` of an object (nil for other values or a missing key).
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.0 == key }?.1
    }

    /// The string, if this is one.
    public var stringValue: String? { if case .string(let s) = self { s } else { nil } }
    /// The number as an integer, if this is a whole number.
    public var intValue: Int? {
        if case .number(let d) = self, d.rounded() == d, abs(d) < 9e15 { Int(d) } else { nil }
    }
    /// The number, if this is one.
    public var doubleValue: Double? { if case .number(let d) = self { d } else { nil } }
    /// The boolean, if this is one.
    public var boolValue: Bool? { if case .bool(let b) = self { b } else { nil } }
    /// The elements, if this is an array.
    public var arrayValue: [JSONValue]? { if case .array(let a) = self { a } else { nil } }

    // MARK: Writing

    /// Compact JSON text (one line: strings escape control characters).
    public var serialized: String {
        var out = ""
        write(to: &out)
        return out
    }

    func write(to out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(let d):
            if !d.isFinite { out += "null" }
            else if d.rounded() == d, abs(d) < 9e15 { out += String(Int64(d)) }
            else { out += String(d) }
        case .string(let s): JSONValue.writeString(s, to: &out)
        case .array(let a):
            out += "["
            for (i, v) in a.enumerated() {
                if i > 0 { out += "," }
                v.write(to: &out)
            }
            out += "]"
        case .object(let members):
            out += "{"
            for (i, (k, v)) in members.enumerated() {
                if i > 0 { out += "," }
                JSONValue.writeString(k, to: &out)
                out += ":"
                v.write(to: &out)
            }
            out += "}"
        }
    }

    static func writeString(_ s: String, to out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }

    // MARK: Parsing

    /// A parse failure with the byte offset where it happened.
    public struct ParseError: Error, CustomStringConvertible {
        public var offset: Int
        public var message: String
        public var description: String { "invalid JSON at byte \(offset): \(message)" }
    }

    /// Parses one JSON text (surrounding whitespace allowed).
    public static func parse(_ text: String) throws(ParseError) -> JSONValue {
        var parser = Parser(bytes: Array(text.utf8))
        let value = try parser.value(depth: 0)
        parser.skipSpace()
        guard parser.at == parser.bytes.count else { throw parser.fail("unexpected text after the value") }
        return value
    }

    struct Parser {
        let bytes: [UInt8]
        var at = 0

        func fail(_ message: String) -> ParseError { ParseError(offset: at, message: message) }

        mutating func skipSpace() {
            while at < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[at]) { at += 1 }
        }

        mutating func literal(_ word: String, _ value: JSONValue) throws(ParseError) -> JSONValue {
            let w = Array(word.utf8)
            guard at + w.count <= bytes.count, Array(bytes[at..<at + w.count]) == w else { throw fail("expected \(word)") }
            at += w.count
            return value
        }

        mutating func value(depth: Int) throws(ParseError) -> JSONValue {
            guard depth < 64 else { throw fail("nested too deeply") }
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

        mutating func number() throws(ParseError) -> JSONValue {
            let start = at
            while at < bytes.count, "+-0123456789.eE".utf8.contains(bytes[at]) { at += 1 }
            guard at > start, let d = Double(String(decoding: bytes[start..<at], as: UTF8.self)) else {
                at = start
                throw fail("expected a value")
            }
            return .number(d)
        }

        mutating func hex4() throws(ParseError) -> UInt32 {
            guard at + 4 <= bytes.count, let v = UInt32(String(decoding: bytes[at..<at + 4], as: UTF8.self), radix: 16) else {
                throw fail("bad \\u escape")
            }
            at += 4
            return v
        }

        mutating func string() throws(ParseError) -> String {
            at += 1   // opening quote
            var scalars = String.UnicodeScalarView()
            var run: [UInt8] = []
            func flush() {
                if !run.isEmpty { scalars.append(contentsOf: String(decoding: run, as: UTF8.self).unicodeScalars); run.removeAll() }
            }
            while at < bytes.count {
                let c = bytes[at]
                if c == UInt8(ascii: "\"") {
                    at += 1
                    flush()
                    return String(scalars)
                }
                if c == UInt8(ascii: "\\") {
                    flush()
                    at += 1
                    guard at < bytes.count else { break }
                    let e = bytes[at]
                    at += 1
                    switch e {
                    case UInt8(ascii: "n"): scalars.append("\n")
                    case UInt8(ascii: "t"): scalars.append("\t")
                    case UInt8(ascii: "r"): scalars.append("\r")
                    case UInt8(ascii: "b"): scalars.append("\u{08}")
                    case UInt8(ascii: "f"): scalars.append("\u{0C}")
                    case UInt8(ascii: "u"):
                        var v = try hex4()
                        if (0xD800..<0xDC00).contains(v), at + 6 <= bytes.count, bytes[at] == UInt8(ascii: "\\"), bytes[at + 1] == UInt8(ascii: "u") {
                            at += 2
                            let low = try hex4()
                            v = 0x10000 + ((v - 0xD800) << 10) + (low &- 0xDC00)
                        }
                        scalars.append(Unicode.Scalar(v) ?? "\u{FFFD}")
                    default: scalars.append(Unicode.Scalar(e))
                    }
                    continue
                }
                guard c >= 0x20 else { throw fail("control character in a string") }
                run.append(c)
                at += 1
            }
            throw fail("unterminated string")
        }
    }
}
