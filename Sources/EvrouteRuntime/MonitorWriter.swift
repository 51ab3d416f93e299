import EvrouteCore
import EvrouteInput
import EvrouteJSON

/// `evroute monitor`: what happens, for a person standing at the kiosk (libinput's
/// debug-events in evroute's terms). Devices as they come and go — the rule that takes each, or
/// why none does —, each touch's beginning and end with the region it is bound to and the
/// responder that takes it (its moves counted, not listed), each key with the first responder
/// and who took it, gestures, actions, focus and presentations; it says so while no device is
/// there. Runs no handler (as `--dry-run`); typed keys are shown (it is a debugger at a terminal).
public final class MonitorWriter: RouteReport {
    public let sink: OutputSink
    private var text = ""
    private var firstTime: Timestamp?
    /// Moves of each touch down, by device and touch id (an entry lives while its touch does).
    private var moves: [TouchKey: Int] = [:]
    /// Repeats of each key held, by device and key name (shown on its release, not one by one).
    private var repeats: [KeyHeld: Int] = [:]
    private weak var source: LiveInputSource?
    private var recordings: [DeviceID: String] = [:]

    private struct KeyHeld: Hashable {
        var device: DeviceID
        var key: String
    }

    private struct TouchKey: Hashable {
        var device: DeviceID
        var touch: Int
    }

    public init(sink: OutputSink) { self.sink = sink }

    public var reportsIgnoredLiveDevices: Bool { true }
    public func attach(_ source: LiveInputSource) { self.source = source }
    public func attach(_ replay: ReplayDriver) {
        for device in replay.devices { recordings[device.id] = device.path }
    }

    public func record(_ record: RouteRecord) {
        switch record {
        case .deviceAdded(let info, let time):
            line(time, "device", "+ \"\(info.name)\" (\(info.kind.rawValue)) \(node(info.id)): rule \(info.ruleName) takes it, display \(info.display)")
        case .deviceRemoved(let info, let time):
            line(time, "device", "- \"\(info.name)\" \(node(info.id)) removed")
            moves = moves.filter { $0.key.device != info.id }
            repeats = repeats.filter { $0.key.device != info.id }
        case .routed(let e, let by, let handler):
            routed(e, by, handler)
        case .focus(let screen, let region, let layout, let time):
            line(time, "focus", "screen \(layout.screens[screen].name): first responder \(region.map { layout.regions[$0].path } ?? "none")")
        case .presentation(let screen, let over, let presented, let layout, let time):
            let name = layout.screens[screen].name
            line(time, "screen", presented ? "\(name) presented" + (over.map { " over \(layout.screens[$0].name)" } ?? "")
                 : "\(name) dismissed" + (over.map { ", \(layout.screens[$0].name) active again" } ?? ""))
        case .regionChanged(let path, let change, _, let time, let cancelled):
            line(time, "region", "\(path) \(change.rawValue)" + (cancelled > 0 ? " (\(cancelled) touch(es) cancelled)" : ""))
        case .layoutReplaced(let time, let cancelled):
            line(time, "layout", "replaced" + (cancelled > 0 ? " (\(cancelled) touch(es) cancelled)" : ""))
        case .gestureState:
            break   // the recognizers' bookkeeping; their routed states are shown
        }
    }

    private func routed(_ e: RoutedEvent, _ by: ResponderID?, _ handler: HandlerBinding?) {
        let taker = by.map { "taken by \(e.layout.describe($0))" + (handler.map { " [\($0.plugin)]" } ?? "") } ?? "unhandled"
        switch e.kind {
        case .touch(let phase, let isTap):
            guard let t = e.touch else { return }
            let key = TouchKey(device: e.device?.id ?? DeviceID(0), touch: t.id)
            let at = "(\(number(t.location.x)), \(number(t.location.y)))"
            let region = e.regionPath ?? "no region"
            switch phase {
            case .began:
                moves[key] = 0
                line(e.time, "touch", "\(t.id) down at \(at) in \(region) → \(taker)")
            case .moved:
                moves[key, default: 0] += 1
            case .ended, .cancelled:
                let count = moves.removeValue(forKey: key) ?? 0
                let what = phase == .ended ? "up" : "cancelled"
                line(e.time, "touch", "\(t.id) \(what) at \(at) in \(region), \(count) move(s)\(isTap ? ", tap ×\(t.tapCount)" : "") → \(taker)")
            default:
                line(e.time, "touch", "\(t.id) \(phase.rawValue) at \(at) in \(region) → \(taker)")
            }
        case .key(let name, let phase):
            let held = KeyHeld(device: e.device?.id ?? DeviceID(0), key: name)
            var what = phase.rawValue
            switch phase {
            case .repeat:
                repeats[held, default: 0] += 1
                return
            case .down:
                repeats[held] = nil
            default:
                if let n = repeats.removeValue(forKey: held) { what += " (after \(n) repeat(s))" }
            }
            let first = e.start.map { e.layout.describe($0) } ?? "none"
            line(e.time, "key", "\(name) \(what), first responder \(first) → \(taker)")
        case .action(let name):
            line(e.time, "action", "\(name) from \(e.start.map { e.layout.describe($0) } ?? "the first responder") → \(taker)")
        case .gesture(let name, let state):
            line(e.time, "gesture", "\(name) \(state) in \(e.gestureRegion.map { e.layout.regions[$0].path } ?? "-") → \(taker)")
        case .text:
            var quoted: [UInt8] = []
            JSONText.appendString(e.text ?? "", to: &quoted)
            let first = e.start.map { e.layout.describe($0) } ?? "none"
            line(e.time, "text", "\(String(decoding: quoted, as: UTF8.self)), first responder \(first) → \(taker)")
        case .motion(let values):
            switch values {
            case .sample:
                break   // a stream (motion.rate a second): the monitor shows orientation and shakes
            case .orientation(let o):
                line(e.time, "motion", "orientation \(o.rawValue) → \(taker)")
            case .shake(let phase):
                let first = e.start.map { e.layout.describe($0) } ?? "none"
                line(e.time, "motion", "shake \(phase.rawValue), first responder \(first) → \(taker)")
            }
        }
    }

    public func deviceIgnored(node: String?, name: String, kind: DeviceKind?, reason: String, time: Timestamp) {
        let where_ = node.map { " \($0)" } ?? ""
        line(time, "device", "  \"\(name)\"\(kind.map { " (\($0.rawValue))" } ?? "")\(where_) not routed: \(reason)")
    }

    public func noDevice(time: Timestamp) {
        line(time, "device", "no input device yet — waiting for one (plug one in; evroute reads /dev/input/event*: "
             + "run as root or as a member of group input)")
    }

    public func summary(_ line: String) {
        sink.write(Array((line + "\n").utf8))
    }

    public func flush() { sink.flush() }
    public var hasPendingOutput: Bool { sink.hasPending }

    private func node(_ id: DeviceID) -> String {
        source?.device(id)?.path ?? recordings[id] ?? "device \(id.rawValue)"
    }

    private func line(_ time: Timestamp, _ what: String, _ message: String) {
        let first = firstTime ?? time
        if firstTime == nil { firstTime = time }
        let d = max(0, time.microseconds - first.microseconds)
        let ms = String(d % 1_000_000 / 1000)
        text.removeAll(keepingCapacity: true)
        let stamp = "\(d / 1_000_000).\(String(repeating: "0", count: 3 - ms.count))\(ms)"
        text += String(repeating: " ", count: max(0, 9 - stamp.count)) + stamp + "  "
        text += what + String(repeating: " ", count: max(1, 8 - what.count)) + message + "\n"
        sink.write(Array(text.utf8))
    }

    private func number(_ v: Double) -> String { JSONText.number((v * 10).rounded() / 10, style: .shortest) }
}
