import EvrouteCore

/// Writes the evemu format (`# EVEMU 1.3`) that `EvemuRecording` reads and `evemu-play` replays:
/// used by `evroute record`.
public enum EvemuWriter {
    /// Event types written as `B:` lines and the size of each one's bitmask in bytes, as evemu does.
    private static let bitmaskSizes: [(type: UInt16, bytes: Int)] = [
        (EventType.syn, 8), (EventType.key, 96), (EventType.rel, 8), (EventType.abs, 8),
        (EventType.msc, 8), (EventType.sw, 8), (EventType.led, 8), (EventType.snd, 8),
        (EventType.rep, 8), (EventType.ff, 16),
    ]

    /// The header: `# EVEMU 1.3`, a comment naming the device, then `N: I: P: B: A:` lines.
    /// `B: 00` is the bitmap of the description's event types (the keys of `events`).
    public static func header(for description: DeviceDescription) -> String {
        var out = "# EVEMU 1.3\n"
        out += "# Input device name: \"\(description.name)\"\n"
        out += "N: \(description.name)\n"
        out += "I: \(hex4(description.bus)) \(hex4(description.vendor)) \(hex4(description.product)) \(hex4(description.version))\n"
        out += "P:" + byteList(bitmask(description.properties, bytes: 8)) + "\n"
        for (type, size) in bitmaskSizes {
            let codes = type == EventType.syn ? Set(description.events.keys) : (description.events[type] ?? [])
            let bytes = bitmask(codes, bytes: size)
            var offset = 0
            while offset < size {
                out += "B: \(hex2(UInt8(type)))" + byteList(bytes[offset..<min(offset + 8, size)]) + "\n"
                offset += 8
            }
        }
        for code in description.absinfo.keys.sorted() {
            let info = description.absinfo[code]!
            out += "A: \(hex2(UInt8(truncatingIfNeeded: code))) \(info.minimum) \(info.maximum) \(info.fuzz) \(info.flat) \(info.resolution)\n"
        }
        return out
    }

    /// One `E: sec.usec type code value` line (with its newline), as evemu-record writes it.
    public static func eventLine(_ event: InputEvent) -> String {
        let micros = event.time.microseconds
        let seconds = micros / 1_000_000, fraction = micros % 1_000_000
        let fractionText = String(fraction)
        let value = event.value < 0 ? "-" + pad(String(-Int64(event.value)), 3) : pad(String(event.value), 4)
        return "E: \(seconds).\(pad(fractionText, 6)) \(hex4(event.type)) \(hex4(event.code)) \(value)\n"
    }

    /// A complete recording: header then every event.
    public static func write(description: DeviceDescription, events: [InputEvent]) -> String {
        var out = header(for: description)
        out.reserveCapacity(out.utf8.count + events.count * 32)
        for event in events { out += eventLine(event) }
        return out
    }

    private static func bitmask(_ bits: Set<UInt16>, bytes: Int) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: bytes)
        for bit in bits where Int(bit) < bytes * 8 { result[Int(bit) / 8] |= 1 << (bit % 8) }
        return result
    }

    private static func byteList(_ bytes: some Sequence<UInt8>) -> String {
        var out = ""
        for byte in bytes { out += " " + hex2(byte) }
        return out
    }

    private static func hex2(_ value: UInt8) -> String { pad(String(value, radix: 16), 2) }
    private static func hex4(_ value: UInt16) -> String { pad(String(value, radix: 16), 4) }
    private static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }
}
