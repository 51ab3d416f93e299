import Foundation
import EvrouteCore
import EvrouteInput

/// The `.events` recordings of a folder of ``recordingsDirectory``, sorted, as paths.
public func recordingFiles(_ folder: String) -> [String] {
    let dir = recordingsDirectory + "/" + folder
    return ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? [])
        .filter { $0.hasSuffix(".events") }.sorted().map { dir + "/" + $0 }
}

/// The synthesized device descriptions the tests share (a consumer-control interface, an IR
/// receiver, a DualShock 4's motion sensors, …).
public let deviceFixtures = packageRoot + "/Tests/EvrouteCLITests/Fixtures/devices"

/// Writes a recording of the device described at `descriptionPath` sending `events` into
/// `directory` as `name`; its path.
public func writeRecording(description descriptionPath: String, events: [InputEvent], name: String, in directory: URL) throws -> String {
    let description = try EvemuRecording.loadDescription(path: descriptionPath)
    let url = directory.appendingPathComponent(name)
    try EvemuWriter.write(description: description, events: events).write(to: url, atomically: true, encoding: .utf8)
    return url.path
}

/// Synthesized keyboard recordings: a real keyboard's description (from the real recordings)
/// with key presses written by ``EvemuWriter``, as a barcode scanner or a person types them.
public enum Typist {
    public static let keyboards = recordingsDirectory + "/keyboards"
    /// A real USB keyboard (1532:011b) whose description alone is recorded: the scanner.
    public static var razerDescription: String { keyboards + "/Razer Razer BlackWidow 2013.keyboard.desc" }

    /// A key name libevdev does not know.
    public struct UnknownKey: Error, CustomStringConvertible {
        public let name: String
        public var description: String { "unknown key name \(name)" }
    }

    /// Key events for `keys` from `start` (seconds), a press every `step` (down, up half a step
    /// later, the next one step after that): a name presses and releases that key; `+NAME` holds
    /// it until `-NAME`; `pause:S` waits S seconds.
    public static func events(_ keys: [String], start: Double, step: Double = 0.008) throws -> [InputEvent] {
        var out: [InputEvent] = []
        var t = Timestamp(microseconds: Int64(start * 1_000_000))
        func emit(_ code: UInt16, _ value: Int32) {
            out.append(InputEvent(time: t, type: EventType.key, code: code, value: value))
            out.append(InputEvent(time: t, type: EventType.syn, code: 0, value: 0))
        }
        for k in keys {
            if k.hasPrefix("pause:"), let s = Double(k.dropFirst(6)) {
                t = t + Timestamp.Duration(microseconds: Int64(s * 1_000_000))
                continue
            }
            let name = k.hasPrefix("+") || k.hasPrefix("-") ? String(k.dropFirst()) : k
            guard let code = EventCodeNames.code(named: name, type: EventType.key) else { throw UnknownKey(name: name) }
            switch k.first {
            case "+": emit(code, 1)
            case "-": emit(code, 0)
            default:
                emit(code, 1)
                t = t + Timestamp.Duration(microseconds: Int64(step * 500_000))
                emit(code, 0)
            }
            t = t + Timestamp.Duration(microseconds: Int64(step * 1_000_000))
        }
        return out
    }

    /// Digits as key names (`"40"` → KEY_4, KEY_0).
    public static func digits(_ s: String) -> [String] { s.map { "KEY_\($0)" } }

    /// Writes a recording of the Razer keyboard typing `keys` into `directory`; its path.
    public static func write(_ keys: [String], start: Double, step: Double = 0.008, name: String, in directory: URL,
                             description descriptionPath: String = razerDescription) throws -> String {
        try writeRecording(description: descriptionPath, events: try events(keys, start: start, step: step), name: name, in: directory)
    }

    public static func scratch() throws -> URL {
        let url = URL(fileURLWithPath: temporaryPath("evroute-text"))
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
