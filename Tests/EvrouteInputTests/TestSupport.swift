import EvrouteCore
@testable import EvrouteInput
import Glibc
import EvrouteTestSupport
import Testing

/// The real evemu recordings of the test fixtures, `Tests/Fixtures/recordings` in the repository
/// (their README.md and LICENSE say where they come from). The tests that read them require
/// them: a missing file fails the test (`RecordingCorpusTests` counts them).
enum Recordings {
    static let directory = recordingsDirectory

    /// File names in a subdirectory, sorted.
    static func files(in subdirectory: String) -> [String] {
        guard let dir = opendir(directory + "/" + subdirectory) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.baseAddress!.assumingMemoryBound(to: CChar.self))
            }
            if !name.hasPrefix(".") { names.append(name) }
        }
        return names.sorted()
    }

    static func path(_ subdirectory: String, _ name: String) -> String { directory + "/" + subdirectory + "/" + name }

    /// Recordings that hold events (by extension), with their paths.
    static func eventFiles(in subdirectory: String) -> [String] {
        files(in: subdirectory).filter { $0.hasSuffix(".events") }.map { path(subdirectory, $0) }
    }
}

/// Builds synthetic events.
struct EventScript {
    var time: Int64 = 1_000_000
    var events: [InputEvent] = []

    mutating func abs(_ code: UInt16, _ value: Int32) { events.append(InputEvent(time: Timestamp(microseconds: time), type: EventType.abs, code: code, value: value)) }
    mutating func key(_ code: UInt16, _ value: Int32) { events.append(InputEvent(time: Timestamp(microseconds: time), type: EventType.key, code: code, value: value)) }
    mutating func syn(_ code: UInt16 = SynCode.report) {
        events.append(InputEvent(time: Timestamp(microseconds: time), type: EventType.syn, code: code, value: 0))
        if code == SynCode.report { time += 10_000 }
    }
    mutating func slot(_ slot: Int32) { abs(AbsCode.mtSlot, slot) }
    mutating func id(_ id: Int32) { abs(AbsCode.mtTrackingID, id) }
    mutating func position(_ x: Int32, _ y: Int32, mt: Bool = true) {
        abs(mt ? AbsCode.mtPositionX : AbsCode.x, x)
        abs(mt ? AbsCode.mtPositionY : AbsCode.y, y)
    }
}

/// Descriptions of typical devices, for synthetic tests.
enum Devices {
    static func protocolB(slots: Int32 = 10, maxX: Int32 = 999, maxY: Int32 = 999, pressure: Bool = false, major: Bool = false, tool: Bool = false) -> DeviceDescription {
        var abs: Set<UInt16> = [AbsCode.x, AbsCode.y, AbsCode.mtSlot, AbsCode.mtPositionX, AbsCode.mtPositionY, AbsCode.mtTrackingID]
        var info: [UInt16: AbsInfo] = [
            AbsCode.x: AbsInfo(minimum: 0, maximum: maxX), AbsCode.y: AbsInfo(minimum: 0, maximum: maxY),
            AbsCode.mtSlot: AbsInfo(minimum: 0, maximum: slots - 1),
            AbsCode.mtPositionX: AbsInfo(minimum: 0, maximum: maxX), AbsCode.mtPositionY: AbsInfo(minimum: 0, maximum: maxY),
            AbsCode.mtTrackingID: AbsInfo(minimum: 0, maximum: 65535),
        ]
        if pressure { abs.insert(AbsCode.mtPressure); info[AbsCode.mtPressure] = AbsInfo(minimum: 0, maximum: 255) }
        if major { abs.insert(AbsCode.mtTouchMajor); info[AbsCode.mtTouchMajor] = AbsInfo(minimum: 0, maximum: maxX) }
        if tool { abs.insert(AbsCode.mtToolType); info[AbsCode.mtToolType] = AbsInfo(minimum: 0, maximum: 2) }
        return DeviceDescription(name: "synthetic B", bus: BusType.usb, properties: [InputProperty.direct],
                                 events: [EventType.syn: [0, 1, 2, 3], EventType.key: [KeyCode.btnTouch], EventType.abs: abs],
                                 absinfo: info)
    }

    static func protocolA(maxX: Int32 = 999, maxY: Int32 = 999) -> DeviceDescription {
        DeviceDescription(name: "synthetic A", bus: BusType.usb,
                          events: [EventType.syn: [0, 1, 2, 3], EventType.key: [KeyCode.btnTouch],
                                   EventType.abs: [AbsCode.x, AbsCode.y, AbsCode.mtPositionX, AbsCode.mtPositionY]],
                          absinfo: [AbsCode.x: AbsInfo(minimum: 0, maximum: maxX), AbsCode.y: AbsInfo(minimum: 0, maximum: maxY),
                                    AbsCode.mtPositionX: AbsInfo(minimum: 0, maximum: maxX), AbsCode.mtPositionY: AbsInfo(minimum: 0, maximum: maxY)])
    }

    static func singleTouch(maxX: Int32 = 999, maxY: Int32 = 999) -> DeviceDescription {
        DeviceDescription(name: "synthetic ST", bus: BusType.usb,
                          events: [EventType.syn: [0, 1, 2, 3], EventType.key: [KeyCode.btnTouch], EventType.abs: [AbsCode.x, AbsCode.y]],
                          absinfo: [AbsCode.x: AbsInfo(minimum: 0, maximum: maxX), AbsCode.y: AbsInfo(minimum: 0, maximum: maxY)])
    }
}

/// Feeds events to a decoder and collects every frame.
func decode(_ decoder: TouchDecoder, _ events: [InputEvent]) -> [TouchFrameInput] {
    events.compactMap { decoder.feed($0) }
}

/// Checks every contact begins once and ends once (ended or cancelled), nothing in between
/// after its end; returns (touches, problems).
func lifecycle(_ frames: [TouchFrameInput]) -> (touches: Int, open: Int, problems: [String]) {
    var state: [Int: ContactChange] = [:]
    var problems: [String] = []
    var began = 0
    for frame in frames {
        for sample in frame.contacts {
            let previous = state[sample.contact]
            switch sample.change {
            case .began:
                if previous != nil { problems.append("contact \(sample.contact) began twice") }
                began += 1
            case .moved:
                if previous != .began && previous != .moved { problems.append("contact \(sample.contact) moved while not down") }
            case .ended, .cancelled:
                if previous != .began && previous != .moved { problems.append("contact \(sample.contact) ended while not down") }
            }
            state[sample.contact] = sample.change
        }
    }
    let open = state.values.filter { $0 == .began || $0 == .moved }.count
    return (began, open, problems)
}
