import Testing
import EvrouteChecks
import EvrouteJSON

private func parseError(_ text: String) -> JSONValue.ParseError? {
    do {
        _ = try JSONValue.parse(text)
        return nil
    } catch {
        return error
    }
}

@Suite("JSON values: parse and serialize")
struct JSONValueTests {
    // MARK: API

    @Test("a member of a cut-off object (a request line too long): found only when whole before the cut")
    func memberOfCutObject() {
        func tag(_ text: String) -> JSONValue? { JSONValue.member("tag", ofCutObject: Array(text.utf8)) }
        expectEqual(tag(#"{"command":"regions","tag":[1,"a"],"yaml":"- name: a\n- na"#), .array([.int(1), .string("a")]))
        expectEqual(tag(#" { "tag" : 12 , "command":"x""#), .int(12))
        expectEqual(tag(#"{"command":"regions","yaml":"long","tag":7}"#), .int(7), "a whole object too")
        expect(tag(#"{"command":"regions","tag":12"#) == nil, "a number at the cut may be cut itself")
        expect(tag(#"{"command":"regions","tag":"ab"#) == nil)
        expect(tag(#"{"command":"regions","yaml":"- name: a\n- na"#) == nil, "the tag came after the cut")
        expect(tag(#"[{"tag":1},"#) == nil, "not an object")
        expect(tag(#"{"command" "tag":1,"#) == nil, "a broken member before it")
        expect(tag(#"{"x":{"tag":1},"y":"#) == nil, "only top-level members count")
        expect(tag("") == nil)
    }

    @Test func accessors() throws {
        let v = try JSONValue.parse(#" {"command": "status", "n": 7.0, "big": 1e16, "ok": true, "list": [1, "a"], "n": 8} "#)
        expectEqual(v["command"]?.stringValue, "status")
        expectEqual(v["n"]?.intValue, 7)   // the first of a repeated key
        expectEqual(v["n"]?.doubleValue, 7)
        expect(v["big"]?.intValue == nil)
        expectEqual(v["big"]?.doubleValue, 1e16)
        expectEqual(v["ok"]?.boolValue, true)
        expectEqual(v["list"]?.arrayValue, [.int(1), .string("a")])
        expect(v["missing"] == nil)
        expect(v["command"]?["x"] == nil)
        expect(JSONValue.number(2.5).intValue == nil)
        expectEqual(JSONValue.string(nil as String?), .null)
        expectEqual(JSONValue.string("x" as String?), .string("x"))
        expectEqual(JSONValue.int(-3), .number(-3))
    }

    @Test func equalityKeepsMemberOrder() {
        expectEqual(JSONValue.object([("a", .null), ("b", .bool(true))]), .object([("a", .null), ("b", .bool(true))]))
        expect(JSONValue.object([("a", .null), ("b", .bool(true))]) != .object([("b", .bool(true)), ("a", .null)]))
        expect(JSONValue.array([.int(1)]) != .array([.int(1), .int(1)]))
        expect(JSONValue.null != .bool(false))
    }

    // MARK: Serializing (the control protocol's format)

    @Test func serializedIsCompactWithNumbersInTheShortestForm() {
        let status: JSONValue = .object([
            ("ok", .bool(true)), ("pid", .int(28787)), ("uptime", .number(3.004)), ("startup_seconds", .number(0.0059)),
            ("last_error", .string(nil as String?)), ("width", .number(1280)), ("x", .number(-0.0)),
            ("errors", .array([.string("a.yaml:1:2: error: \"x\"\n")])), ("details", .object([])),
            ("nan", .number(.nan)), ("huge", .number(1e16)),
        ])
        expectEqual(status.serialized, #"{"ok":true,"pid":28787,"uptime":3.004,"startup_seconds":0.0059,"last_error":null,"width":1280,"x":0,"errors":["a.yaml:1:2: error: \"x\"\n"],"details":{},"nan":null,"huge":1e+16}"#)
    }

    @Test func keysAreEscapedLikeStrings() {
        expectEqual(JSONValue.object([("a\u{1}\"", .int(1))]).serialized, #"{"a\u0001\"":1}"#)
    }

    // MARK: Parsing

    @Test func stringEscapes() throws {
        try expectEqual(try JSONValue.parse(#""\"\\\/\b\f\n\r\t""#), .string("\"\\/\u{8}\u{c}\n\r\t"))
        try expectEqual(try JSONValue.parse(#""\u0041\u00e9\u20ac""#), .string("Aé€"))
        try expectEqual(try JSONValue.parse(#""\u00E9""#), .string("é"))
        try expectEqual(try JSONValue.parse(#""\ud83d\ude00""#), .string("😀"))
        try expectEqual(try JSONValue.parse("\"raw ü 😀\""), .string("raw ü 😀"))
        try expectEqual(try JSONValue.parse(#""a\u0000b""#), .string("a\u{0}b"))
    }

    @Test func invalidSurrogatesReadAsReplacementCharacters() throws {
        try expectEqual(try JSONValue.parse(#""\ud800""#), .string("\u{FFFD}"))
        try expectEqual(try JSONValue.parse(#""\udc00""#), .string("\u{FFFD}"))
        try expectEqual(try JSONValue.parse(#""x\ud800y""#), .string("x\u{FFFD}y"))
        // A high surrogate followed by an escape that is not a low one: both read on their
        // own (this trapped, on an arithmetic overflow, before the JSON module).
        try expectEqual(try JSONValue.parse(#""\ud800\u0041""#), .string("\u{FFFD}A"))
        try expectEqual(try JSONValue.parse(#""\ud800\ud800""#), .string("\u{FFFD}\u{FFFD}"))
        try expectEqual(try JSONValue.parse(#""\ud800\ud83d\ude00""#), .string("\u{FFFD}😀"))
        try expectEqual(try JSONValue.parse(#""\ude00\ud83d""#), .string("\u{FFFD}\u{FFFD}"))
    }

    @Test func numbers() throws {
        try expectEqual(try JSONValue.parse("0"), .number(0))
        try expectEqual(try JSONValue.parse("-0").doubleValue?.sign, .minus)
        try expectEqual(try JSONValue.parse("42"), .number(42))
        try expectEqual(try JSONValue.parse("-12.5e-1"), .number(-1.25))
        try expectEqual(try JSONValue.parse("1E3"), .number(1000))
        try expectEqual(try JSONValue.parse("1e+2"), .number(100))
        try expectEqual(try JSONValue.parse("0.1"), .number(0.1))
        try expectEqual(try JSONValue.parse("123456789012345678901234567890"), .number(1.2345678901234568e29))
        // Beyond a Double's range: infinity (which serializes as null).
        try expectEqual(try JSONValue.parse("1e400"), .number(.infinity))
        try expectEqual(try JSONValue.parse("1e400").serialized, "null")
        try expectEqual(try JSONValue.parse("1e-400"), .number(0))
    }

    @Test func literalsWhitespaceAndNesting() throws {
        try expectEqual(try JSONValue.parse(" \t\r\nnull\n"), .null)
        try expectEqual(try JSONValue.parse("[true,false, null ]"), .array([.bool(true), .bool(false), .null]))
        try expectEqual(try JSONValue.parse("[]"), .array([]))
        try expectEqual(try JSONValue.parse("{ }"), .object([]))
        let deep = String(repeating: "[", count: 63) + String(repeating: "]", count: 63)
        #expect(throws: Never.self) { try JSONValue.parse(deep) }
    }

    @Test func parseErrorsNameTheByteOffset() {
        let cases: [(String, Int, String)] = [
            ("", 0, "expected a value"),
            ("   ", 3, "expected a value"),
            ("{", 1, "expected a key string"),
            (#"{"a":1,}"#, 7, "expected a key string"),
            (#"{"a" 1}"#, 5, "expected :"),
            (#"{"a":1"#, 6, "unterminated object"),
            (#"{"a":1 "b":2}"#, 7, "expected , or }"),
            ("[1 2]", 3, "expected , or ]"),
            ("[1,", 3, "expected a value"),
            ("[1", 2, "unterminated array"),
            (#""abc"#, 4, "unterminated string"),
            (#""ab\"#, 4, "unterminated string"),
            ("\"a\nb\"", 2, "control character in a string"),
            (#""\x""#, 2, "bad escape"),
            (#""\u12""#, 3, #"bad \u escape"#),
            (#""\u+041""#, 3, #"bad \u escape"#),
            ("tru", 0, "expected true"),
            ("nul", 0, "expected null"),
            ("falsy", 0, "expected false"),
            ("1 2", 2, "unexpected text after the value"),
            ("01", 1, "unexpected text after the value"),
            ("-", 0, "expected a value"),
            ("+1", 0, "expected a value"),
            (".5", 0, "expected a value"),
            ("1.", 0, "invalid number: expected a digit after '.'"),
            ("1e", 0, "invalid number: expected a digit in the exponent"),
            ("-x", 0, "expected a value"),
            ("NaN", 0, "expected a value"),
            ("é", 0, "expected a value"),
            ("[\"é\" x]", 6, "expected , or ]"),
            (String(repeating: "[", count: 100), 64, "nested too deeply"),
        ]
        for (text, offset, message) in cases {
            let e = parseError(text)
            expectEqual(e?.offset, offset, "\(text)")
            expectEqual(e?.message, message, "\(text)")
        }
        expectEqual(parseError("{")?.description, "invalid JSON at byte 1: expected a key string")
    }

    @Test func bytesParseLikeText() throws {
        let line = Array(#"{"id":7,"handled":false}"#.utf8)
        try expectEqual(try JSONValue.parse(utf8: line[...]), .object([("id", .int(7)), ("handled", .bool(false))]))
        // Invalid UTF-8 inside a string reads as U+FFFD.
        try expectEqual(try JSONValue.parse(utf8: [0x22, 0xFF, 0x22]), .string("\u{FFFD}"))
    }

    // MARK: Round trips

    @Test func roundTrips() throws {
        let values: [JSONValue] = [
            .null, .bool(true), .number(0), .number(-1), .number(0.1), .number(1e-300), .number(1.7976931348623157e308),
            .number(9_007_199_254_740_992), .string(""), .string("\u{0}\u{1f}\"\\/\u{7f}é😀\u{2028}"),
            .array([]), .object([]),
            .object([("ok", .bool(false)), ("errors", .array([.string("a"), .number(2.5)])),
                     ("nested", .object([("deeper", .array([.array([.null])]))])), ("", .string("empty key"))]),
        ]
        for v in values {
            try expectEqual(try JSONValue.parse(v.serialized), v, "\(v.serialized)")
            try expectEqual(try JSONValue.parse(v.serialized).serialized, v.serialized)
        }
        let text = #"{"ok":true,"pid":28787,"uptime":3.004,"touches":[{"x":412.3333333333333,"region":null}],"e":"\u001b\n"}"#
        try expectEqual(try JSONValue.parse(text).serialized, text)
    }
}
