/// A plugin's answer to an event: `{"id": N, "handled": true|false}` (other fields ignored).
import EvrouteSystem
struct PluginAnswer: Equatable {
    var id: UInt64
    var handled: Bool

    /// Parses one answer line; nil when it is not a JSON object with an integer `id` and a
    /// boolean `handled`. Never traps, whatever the bytes.
    static func parse(_ line: ArraySlice<UInt8>) -> PluginAnswer? {
        var scanner = JSONScanner(bytes: line)
        var id: UInt64?
        var handled: Bool?
        guard scanner.consume(UInt8(ascii: "{")) else { return nil }
        if !scanner.consume(UInt8(ascii: "}")) {
            repeat {
                guard let key = scanner.string(), scanner.consume(UInt8(ascii: ":")) else { return nil }
                switch key {
                case "id":
                    guard let n = scanner.unsignedInteger() else { return nil }
                    id = n
                case "handled":
                    guard let b = scanner.boolean() else { return nil }
                    handled = b
                default:
                    guard scanner.skipValue(depth: 0) else { return nil }
                }
            } while scanner.consume(UInt8(ascii: ","))
            guard scanner.consume(UInt8(ascii: "}")) else { return nil }
        }
        guard scanner.atEnd, let id, let handled else { return nil }
        return PluginAnswer(id: id, handled: handled)
    }
}

extension PendingAnswers {
    /// Takes one answer line from a helper or client: blank lines are ignored, a line that is
    /// not an answer is counted (`garbage_lines`) and reported through `garbage` (its first 120
    /// bytes), an answer to no pending event is counted late (`late_answers`). A valid answer
    /// settles its event: counted handled, or declined — then the event walks on. Returns
    /// whether an event was settled.
    @discardableResult
    func settle(_ line: ArraySlice<UInt8>, accepting: Bool = true, statistics: inout PluginStatistics,
                context: PluginContext, garbage: (String) -> Void) -> Bool {
        if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return false }
        guard let a = PluginAnswer.parse(line) else {
            statistics.details["garbage_lines", default: 0] += 1
            garbage(String(decoding: line.prefix(120), as: UTF8.self))
            return false
        }
        guard accepting, let entry = resolve(a.id) else {
            statistics.details["late_answers", default: 0] += 1
            return false
        }
        if a.handled {
            statistics.handled += 1
        } else {
            statistics.declined += 1
            context.continueRouting(entry.event, entry.handler)
        }
        return true
    }
}

/// Just enough of a JSON reader for answer lines.
struct JSONScanner {
    let bytes: ArraySlice<UInt8>
    var i: Int

    init(bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        i = bytes.startIndex
    }

    mutating func skipSpace() {
        while i < bytes.endIndex, bytes[i] == 0x20 || bytes[i] == 0x09 || bytes[i] == 0x0a || bytes[i] == 0x0d { i += 1 }
    }

    var atEnd: Bool { mutating get { skipSpace(); return i == bytes.endIndex } }

    mutating func consume(_ c: UInt8) -> Bool {
        skipSpace()
        guard i < bytes.endIndex, bytes[i] == c else { return false }
        i += 1
        return true
    }

    mutating func consume(word: StaticString) -> Bool {
        skipSpace()
        let w = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        guard bytes.endIndex - i >= w.count, bytes[i..<(i + w.count)].elementsEqual(w) else { return false }
        i += w.count
        return true
    }

    /// A string (escapes kept simple: `\"` and `\\` unescaped, others kept as written).
    mutating func string() -> String? {
        guard consume(UInt8(ascii: "\"")) else { return nil }
        var out: [UInt8] = []
        while i < bytes.endIndex {
            let c = bytes[i]
            i += 1
            if c == UInt8(ascii: "\"") { return String(decoding: out, as: UTF8.self) }
            if c == UInt8(ascii: "\\") {
                guard i < bytes.endIndex else { return nil }
                out.append(bytes[i])
                i += 1
            } else {
                out.append(c)
            }
        }
        return nil
    }

    mutating func unsignedInteger() -> UInt64? {
        skipSpace()
        var n: UInt64 = 0
        let start = i
        while i < bytes.endIndex, bytes[i] >= 0x30, bytes[i] <= 0x39 {
            let (m, o1) = n.multipliedReportingOverflow(by: 10)
            let (a, o2) = m.addingReportingOverflow(UInt64(bytes[i] - 0x30))
            guard !o1, !o2 else { return nil }
            n = a
            i += 1
        }
        guard i > start else { return nil }
        // Tolerate `7.0`.
        if i < bytes.endIndex, bytes[i] == UInt8(ascii: ".") {
            i += 1
            while i < bytes.endIndex, bytes[i] == 0x30 { i += 1 }
        }
        return n
    }

    mutating func boolean() -> Bool? {
        if consume(word: "true") { return true }
        if consume(word: "false") { return false }
        return nil
    }

    /// Skips any JSON value; false on malformed input or nesting deeper than 32.
    mutating func skipValue(depth: Int) -> Bool {
        guard depth < 32 else { return false }
        skipSpace()
        guard i < bytes.endIndex else { return false }
        switch bytes[i] {
        case UInt8(ascii: "\""): return string() != nil
        case UInt8(ascii: "{"):
            i += 1
            if consume(UInt8(ascii: "}")) { return true }
            repeat {
                guard string() != nil, consume(UInt8(ascii: ":")), skipValue(depth: depth + 1) else { return false }
            } while consume(UInt8(ascii: ","))
            return consume(UInt8(ascii: "}"))
        case UInt8(ascii: "["):
            i += 1
            if consume(UInt8(ascii: "]")) { return true }
            repeat {
                guard skipValue(depth: depth + 1) else { return false }
            } while consume(UInt8(ascii: ","))
            return consume(UInt8(ascii: "]"))
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return boolean() != nil
        case UInt8(ascii: "n"): return consume(word: "null")
        default:
            let start = i
            while i < bytes.endIndex, (bytes[i] >= 0x30 && bytes[i] <= 0x39) || bytes[i] == UInt8(ascii: "-")
                    || bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: ".") || bytes[i] == UInt8(ascii: "e")
                    || bytes[i] == UInt8(ascii: "E") { i += 1 }
            return i > start
        }
    }
}
