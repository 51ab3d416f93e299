import EvrouteCore

/// The byte-level evemu reader behind `EvemuRecording`: one pass over the bytes, no regular
/// expressions, no Foundation. `E:` lines, the bulk of any recording, take a handful of
/// integer scans each.
struct EvemuParser {
    let path: String
    let external: DeviceDescription?
    /// Stop at the first `E:` line (reading a `.desc` or borrowing a recording's description).
    var descriptionOnly = false
    /// Whether the bytes held any description line (`N: I: P: B: A:`).
    private(set) var sawDescription = false
    /// Lines whose timestamp is earlier than the line before (at most ``maxWarnings`` kept).
    private(set) var warnings: [Diagnostic] = []
    private var backwardsNotKept = 0
    /// The most warnings one file keeps; the rest are counted in one last warning.
    static let maxWarnings = 10

    private var name: String?
    private var identity: (bus: UInt16, vendor: UInt16, product: UInt16, version: UInt16) = (0, 0, 0, 0)
    private var propertyBytes: [UInt8] = []
    private var bitmaskBytes: [UInt16: [UInt8]] = [:]
    private var absinfo: [UInt16: AbsInfo] = [:]
    private var formatVersion: String?
    private var line = 0

    init(path: String, external: DeviceDescription?) {
        self.path = path
        self.external = external
    }

    mutating func parse(_ bytes: [UInt8], fallback: () throws(Diagnostic) -> DeviceDescription?) throws(Diagnostic) -> EvemuRecording {
        var events: [InputEvent] = []
        if !descriptionOnly { events.reserveCapacity(bytes.count / 48) }
        var borrowed: DeviceDescription? = nil
        var askedFallback = false
        var sawEvents = false
        let count = bytes.count
        var start = 0
        let failure: Diagnostic? = bytes.withUnsafeBufferPointer { buffer -> Diagnostic? in
            while start < count {
                var end = start
                while end < count && buffer[end] != 0x0a { end += 1 }
                let next = end + 1
                line += 1
                var stop = end
                if stop > start && buffer[stop - 1] == 0x0d { stop -= 1 }
                defer { start = next }
                var cursor = Cursor(buffer: buffer, position: start, end: stop)
                cursor.skipSpaces()
                guard let first = cursor.peek() else { continue }
                if first == UInt8(ascii: "#") {
                    readVersionComment(&cursor)
                    continue
                }
                guard cursor.position + 1 < stop, buffer[cursor.position + 1] == UInt8(ascii: ":") else {
                    return error("not an evemu line (expected `X:` with X one of N I P B A E, or a # comment)")
                }
                cursor.position += 2
                if first == UInt8(ascii: "E") {
                    if descriptionOnly { return nil }
                    if !sawDescription && external == nil && borrowed == nil {
                        if !askedFallback {
                            askedFallback = true
                            do throws(Diagnostic) { borrowed = try fallback() } catch { return error }
                        }
                        if borrowed == nil {
                            return error("E: line before any device description (no N: line), and no description file was found or given")
                        }
                    }
                    sawEvents = true
                    guard let event = Self.readEvent(&cursor) else {
                        return error("E: expects `sec.usec type code value` (decimal time, hex type and code, decimal value)")
                    }
                    if let previous = events.last, event.time < previous.time {
                        warnBackwards(event.time, after: previous.time)
                    }
                    events.append(event)
                    continue
                }
                if sawEvents {
                    return error("description line after E: lines")
                }
                sawDescription = true
                let problem: String?
                switch first {
                case UInt8(ascii: "N"): problem = readName(&cursor)
                case UInt8(ascii: "I"): problem = readIdentity(&cursor)
                case UInt8(ascii: "P"): problem = readBytes(&cursor, into: &propertyBytes, what: "P:")
                case UInt8(ascii: "B"): problem = readBitmask(&cursor)
                case UInt8(ascii: "A"): problem = readAbs(&cursor)
                default: problem = "unknown line type `\(Character(Unicode.Scalar(first))):`"
                }
                if let problem { return error(problem) }
            }
            return nil
        }
        if let failure { throw failure }
        if sawDescription && name == nil && external == nil {
            throw Diagnostic(recording: path, line: line, message: "device description has no N: (name) line")
        }
        let description = external ?? (sawDescription ? makeDescription() : borrowed) ?? DeviceDescription(name: "")
        if backwardsNotKept > 0 {
            warnings.append(Diagnostic(recording: path, line: 0, message: "\(backwardsNotKept) more timestamp(s) going backwards after line \(warnings.last?.line ?? 0)", severity: .warning))
        }
        var recording = EvemuRecording(description: description, events: events, path: path, formatVersion: formatVersion)
        recording.warnings = warnings
        return recording
    }

    /// A timestamp earlier than the previous event's: kept in file order (evemu-play does the
    /// same: it does not sleep), and reported, since the recording was likely edited or merged.
    private mutating func warnBackwards(_ time: Timestamp, after previous: Timestamp) {
        guard warnings.count < Self.maxWarnings else { backwardsNotKept += 1; return }
        warnings.append(Diagnostic(recording: path, line: line,
                                   message: "timestamp \(time) goes backwards (the event before is at \(previous)); events are replayed in file order",
                                   severity: .warning))
    }

    private func error(_ message: String) -> Diagnostic {
        Diagnostic(recording: path, line: line, message: message)
    }

    // MARK: Lines

    private mutating func readVersionComment(_ cursor: inout Cursor) {
        guard formatVersion == nil else { return }
        cursor.position += 1
        cursor.skipSpaces()
        guard cursor.consume("EVEMU") else { return }
        cursor.skipSpaces()
        let versionStart = cursor.position
        while let byte = cursor.peek(), byte != 0x20, byte != 0x09 { cursor.position += 1 }
        if cursor.position > versionStart {
            formatVersion = cursor.string(from: versionStart, to: cursor.position)
        }
    }

    private mutating func readName(_ cursor: inout Cursor) -> String? {
        if name != nil { return "second N: line" }
        cursor.skipSpaces()
        var stop = cursor.end
        while stop > cursor.position, cursor.buffer[stop - 1] == 0x20 || cursor.buffer[stop - 1] == 0x09 { stop -= 1 }
        guard stop > cursor.position else { return "N: has no device name" }
        name = cursor.string(from: cursor.position, to: stop)
        return nil
    }

    private mutating func readIdentity(_ cursor: inout Cursor) -> String? {
        var fields: [UInt16] = []
        for _ in 0..<4 {
            cursor.skipSpaces()
            guard let value = cursor.hex(maxDigits: 8), value <= 0xffff else {
                return "I: expects 4 hex numbers: bus vendor product version"
            }
            fields.append(UInt16(value))
        }
        cursor.skipSpaces()   // trailing blanks are not a fifth field
        guard cursor.atEndOrComment() else { return "I: has more than 4 fields" }
        identity = (fields[0], fields[1], fields[2], fields[3])
        return nil
    }

    private func readBytes(_ cursor: inout Cursor, into bytes: inout [UInt8], what: String) -> String? {
        var read = 0
        while true {
            cursor.skipSpaces()
            if cursor.atEndOrComment() { break }
            guard let value = cursor.hex(maxDigits: 2) else { return "\(what) expects hex bytes (bad hex at column \(cursor.column))" }
            guard cursor.atSeparator() else { return "\(what) expects hex bytes of two digits (column \(cursor.column))" }
            bytes.append(UInt8(value))
            read += 1
        }
        return read == 0 ? "\(what) has no bytes" : nil
    }

    private mutating func readBitmask(_ cursor: inout Cursor) -> String? {
        cursor.skipSpaces()
        guard let type = cursor.hex(maxDigits: 2), cursor.atSeparator() else {
            return "B: expects an event type (hex) then hex bytes"
        }
        guard type <= UInt32(EventType.max) else { return "B: event type 0x\(String(type, radix: 16)) is beyond EV_MAX" }
        var bytes = bitmaskBytes[UInt16(type)] ?? []
        if let problem = readBytes(&cursor, into: &bytes, what: "B:") { return problem }
        bitmaskBytes[UInt16(type)] = bytes
        return nil
    }

    private mutating func readAbs(_ cursor: inout Cursor) -> String? {
        let usage = "A: expects `code min max fuzz flat [resolution]` (hex code, decimal numbers)"
        cursor.skipSpaces()
        guard let code = cursor.hex(maxDigits: 4), cursor.atSeparator(), code <= 0x3f else { return usage }
        var numbers: [Int32] = []
        while numbers.count < 5 {
            cursor.skipSpaces()
            if cursor.atEndOrComment() { break }
            guard let value = cursor.decimal(), cursor.atSeparator(), let narrow = Int32(exactly: value) else { return usage }
            numbers.append(narrow)
        }
        cursor.skipSpaces()
        guard numbers.count >= 4, cursor.atEndOrComment() else { return usage }
        absinfo[UInt16(code)] = AbsInfo(minimum: numbers[0], maximum: numbers[1], fuzz: numbers[2], flat: numbers[3],
                                       resolution: numbers.count > 4 ? numbers[4] : 0)
        return nil
    }

    private static func readEvent(_ cursor: inout Cursor) -> InputEvent? {
        cursor.skipSpaces()
        guard let seconds = cursor.unsignedDecimal(), cursor.consume(UInt8(ascii: ".")) else { return nil }
        let fractionStart = cursor.position
        guard var micros = cursor.unsignedDecimal() else { return nil }
        let digits = cursor.position - fractionStart
        guard digits <= 6 else { return nil }
        for _ in digits..<6 { micros &*= 10 }
        cursor.skipSpaces()
        guard let type = cursor.hex(maxDigits: 4), cursor.atSeparator() else { return nil }
        cursor.skipSpaces()
        guard let code = cursor.hex(maxDigits: 4), cursor.atSeparator() else { return nil }
        cursor.skipSpaces()
        guard let value = cursor.decimal(), let narrow = Int32(exactly: value) else { return nil }
        cursor.skipSpaces()
        guard cursor.atEndOrComment() else { return nil }
        return InputEvent(time: Timestamp(seconds: seconds, microseconds: micros),
                          type: UInt16(type), code: UInt16(code), value: narrow)
    }

    // MARK: Description

    private func makeDescription() -> DeviceDescription {
        var properties = Set<UInt16>()
        for (index, byte) in propertyBytes.enumerated() where byte != 0 {
            for bit in 0..<8 where byte & (1 << bit) != 0 { properties.insert(UInt16(index * 8 + bit)) }
        }
        var events: [UInt16: Set<UInt16>] = [:]
        for (type, bytes) in bitmaskBytes where type != EventType.syn {
            events[type] = Self.bits(bytes)
        }
        if let typeBits = bitmaskBytes[EventType.syn] {
            for type in Self.bits(typeBits) where events[type] == nil { events[type] = [] }
        }
        if events[EventType.syn] != nil {
            // Every device reports the SYN codes; evemu's `B: 00` line is the type bitmap instead.
            events[EventType.syn] = [SynCode.report, SynCode.config, SynCode.mtReport, SynCode.dropped]
        }
        // A type whose bitmask is all zero and is absent from the type bitmap is not supported.
        if let typeBits = bitmaskBytes[EventType.syn] {
            let supported = Self.bits(typeBits)
            for (type, codes) in events where codes.isEmpty && !supported.contains(type) { events[type] = nil }
        } else {
            for (type, codes) in events where codes.isEmpty { events[type] = nil }
        }
        return DeviceDescription(name: name ?? "", bus: identity.bus, vendor: identity.vendor, product: identity.product,
                                 version: identity.version, properties: properties, events: events, absinfo: absinfo,
                                 path: path)
    }

    private static func bits(_ bytes: [UInt8]) -> Set<UInt16> {
        var result = Set<UInt16>()
        for (index, byte) in bytes.enumerated() where byte != 0 {
            for bit in 0..<8 where byte & (1 << bit) != 0 { result.insert(UInt16(index * 8 + bit)) }
        }
        return result
    }
}

/// A read position within one line.
private struct Cursor {
    let buffer: UnsafeBufferPointer<UInt8>
    var position: Int
    let end: Int
    private let lineStart: Int

    init(buffer: UnsafeBufferPointer<UInt8>, position: Int, end: Int) {
        self.buffer = buffer
        self.position = position
        self.end = end
        self.lineStart = position
    }

    /// 1-based column of the position, for messages.
    var column: Int { position - lineStart + 1 }

    func peek() -> UInt8? { position < end ? buffer[position] : nil }

    mutating func skipSpaces() {
        while position < end, buffer[position] == 0x20 || buffer[position] == 0x09 { position += 1 }
    }

    /// At the end of the line or of the data part (a `#` comment follows).
    /// Only spaces or tabs remain, then the end of the line or a `#` comment.
    func atEndOrComment() -> Bool {
        var i = position
        while i < end, buffer[i] == 0x20 || buffer[i] == 0x09 { i += 1 }
        return i >= end || buffer[i] == UInt8(ascii: "#")
    }

    /// After a token: a space, a tab or the end of the line.
    func atSeparator() -> Bool { position >= end || buffer[position] == 0x20 || buffer[position] == 0x09 }

    mutating func consume(_ byte: UInt8) -> Bool {
        guard position < end, buffer[position] == byte else { return false }
        position += 1
        return true
    }

    mutating func consume(_ word: StaticString) -> Bool {
        let length = word.utf8CodeUnitCount
        guard end - position >= length else { return false }
        let pointer = word.utf8Start
        for offset in 0..<length where buffer[position + offset] != pointer[offset] { return false }
        position += length
        return true
    }

    mutating func hex(maxDigits: Int) -> UInt32? {
        var value: UInt32 = 0
        var digits = 0
        while position < end {
            let byte = buffer[position]
            let digit: UInt32
            switch byte {
            case 0x30...0x39: digit = UInt32(byte - 0x30)
            case 0x61...0x66: digit = UInt32(byte - 0x61 + 10)
            case 0x41...0x46: digit = UInt32(byte - 0x41 + 10)
            default:
                return digits == 0 ? nil : value
            }
            digits += 1
            if digits > maxDigits { return nil }
            value = value << 4 | digit
            position += 1
        }
        return digits == 0 ? nil : value
    }

    mutating func unsignedDecimal() -> Int64? {
        var value: Int64 = 0
        var digits = 0
        while position < end {
            let byte = buffer[position]
            guard byte >= 0x30 && byte <= 0x39 else { break }
            digits += 1
            if digits > 18 { return nil }
            value = value * 10 + Int64(byte - 0x30)
            position += 1
        }
        return digits == 0 ? nil : value
    }

    mutating func decimal() -> Int64? {
        let negative = consume(UInt8(ascii: "-"))
        if !negative { _ = consume(UInt8(ascii: "+")) }
        guard let magnitude = unsignedDecimal() else { return nil }
        return negative ? -magnitude : magnitude
    }

    func string(from start: Int, to stop: Int) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: buffer[start..<stop]), as: UTF8.self)
    }
}
