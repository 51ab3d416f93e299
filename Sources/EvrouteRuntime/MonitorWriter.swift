import EvrouteCore
import EvrouteInput
import EvrouteJSON

/// `evroute monitor`: what happens, for a person standing at the kiosk (libinput's
/// debug-events in evroute's terms). Devices as they come and go — the rule that takes each, or
/// why none does —, each touch's beginning and end with the region it is bound to and the
/// responder that takes it (its moves counted, not listed; a line when the region under the
/// finger changes), each key with the first responder and who took it, gestures (their
/// `changed` steps counted), actions, focus and presentations; it says so while no device is
/// there, and why. Runs no handler (as `--dry-run`); typed keys are shown (it is a debugger at
/// a terminal).
public final class MonitorWriter: RouteReport {
    public let sink: OutputSink
    private var text = ""
    private var firstTime: Timestamp?
    /// Each touch down, by device and touch id (an entry lives while its touch does).
    private var touches: [TouchKey: TouchState] = [:]
    /// Repeats of each key held, by device and key name (shown on its release, not one by one).
    private var repeats: [KeyHeld: Int] = [:]
    /// `changed` steps of each gesture in progress, by name and region (shown when it ends).
    private var gestureSteps: [GestureKey: Int] = [:]
    /// Live device nodes that are not routed, with their name and why (said once each; they
    /// are named again when they go, and counted when no device is routed).
    private var ignored: [String: (name: String, reason: DeviceIgnoreReason)] = [:]
    private weak var source: LiveInputSource?
    /// Each routed device's node or recording, kept from its arrival: a live source has let
    /// go of a device by the time its removal is reported.
    private var nodes: [DeviceID: String] = [:]

    private struct KeyHeld: Hashable {
        var device: DeviceID
        var key: String
    }

    private struct TouchKey: Hashable {
        var device: DeviceID
        var touch: Int
    }

    private struct TouchState {
        var moves = 0
        /// The region under the finger when last said (the bound one at first).
        var under: Int?
    }

    private struct GestureKey: Hashable {
        var name: String
        var region: Int?
    }

    public init(sink: OutputSink) { self.sink = sink }

    public var reportsIgnoredLiveDevices: Bool { true }
    public func attach(_ source: LiveInputSource) { self.source = source }
    public func attach(_ replay: ReplayDriver) {
        for device in replay.devices { nodes[device.id] = device.path }
    }

    public func record(_ record: RouteRecord) {
        switch record {
        case .deviceAdded(let info, let time):
            if let live = source?.device(info.id) { nodes[info.id] = live.path }
            line(time, "device", "+ \"\(info.name)\" (\(info.kind.rawValue)) \(node(info.id)): rule \(info.ruleName) takes it, display \(info.display)")
        case .deviceRemoved(let info, let time):
            line(time, "device", "- \"\(info.name)\" \(node(info.id)) removed")
            nodes[info.id] = nil
            touches = touches.filter { $0.key.device != info.id }
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
            let outcome = t.blocked.map { "blocked (\($0.rawValue))" } ?? taker
            switch phase {
            case .began:
                touches[key] = TouchState(under: t.region)
                line(e.time, "touch", "\(t.id) down at \(at) in \(region) → \(outcome)")
            case .moved, .stationary:
                var state = touches[key] ?? TouchState(under: t.region)
                state.moves += 1
                // Bound for life to where it began; say where the finger is only when that changes.
                if let screen = t.screen {
                    let under = t.layout.hitTest(t.location, inScreen: screen)
                    if under != state.under {
                        state.under = under
                        if under != nil, under == t.region {
                            line(e.time, "touch", "\(t.id) back over \(region) at \(at)")
                        } else {
                            let over = under.map { t.layout.regions[$0].path } ?? "no region"
                            line(e.time, "touch", "\(t.id) over \(over) at \(at), bound to \(region)")
                        }
                    }
                }
                touches[key] = state
            case .ended, .cancelled:
                let count = touches.removeValue(forKey: key)?.moves ?? 0
                let what = phase == .ended ? "up" : "cancelled"
                line(e.time, "touch", "\(t.id) \(what) at \(at) in \(region), \(count) move(s)\(isTap ? ", tap ×\(t.tapCount)" : "") → \(outcome)")
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
            let key = GestureKey(name: name, region: e.gestureRegion)
            var what = state
            switch GestureState(rawValue: state) {
            case .changed:
                gestureSteps[key, default: 0] += 1
                return
            case .began:
                gestureSteps[key] = 0
            default:
                if let n = gestureSteps.removeValue(forKey: key) { what += " (after \(n) change(s))" }
            }
            line(e.time, "gesture", "\(name) \(what) in \(e.gestureRegion.map { e.layout.regions[$0].path } ?? "-") → \(taker)")
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

    public func deviceIgnored(node: String?, name: String, kind: DeviceKind?, reason: DeviceIgnoreReason, time: Timestamp) {
        if let node {
            // udev says `change` for a device it already announced: say it once.
            if let known = ignored[node], known.name == name, known.reason == reason { return }
            if source != nil { ignored[node] = (name, reason) }
        }
        let where_ = node.map { " \($0)" } ?? ""
        line(time, "device", "  \"\(name)\"\(kind.map { " (\($0.rawValue))" } ?? "")\(where_) not routed: \(reason)")
    }

    public func deviceGone(node: String, time: Timestamp) {
        guard let known = ignored.removeValue(forKey: node) else { return }
        line(time, "device", "- \"\(known.name)\" \(node) removed (was not routed)")
    }

    /// Says that no device is routed, and the likeliest why: nodes that cannot be opened
    /// (permissions), devices no rule takes, or none at all.

    public func deviceWarning(name: String, message: String, time: Timestamp) {
        line(time, "device", "  \"\(name)\": warning: \(message)")
    }

    public func noDevice(time: Timestamp) {
        let unopenable = ignored.values.filter { if case .cannotOpen = $0.reason { true } else { false } }.count
        let dir = LiveInputSource.inputDirectory
        let message: String
        if unopenable > 0 {
            message = "no input device yet — waiting for one (plug one in, or check permissions on \(dir): "
                + "\(unopenable) device node(s) cannot be opened; run as root or as a member of group input)"
        } else if !ignored.isEmpty {
            message = "no device to route yet — waiting for one (plug one in: no device rule takes the "
                + "\(ignored.count) device(s) above)"
        } else if !LiveInputSource.inputDirectoryExists {
            message = "no input device yet — waiting for one (plug one in: this machine has no \(dir))"
        } else {
            message = "no input device yet — waiting for one (plug one in, or check permissions on \(dir): "
                + "udev lists no event node)"
        }
        line(time, "device", message)
    }

    public func summary(_ line: String) {
        sink.write(Array((line + "\n").utf8))
    }

    public func flush() { sink.flush() }
    public var hasPendingOutput: Bool { sink.hasPending }

    private func node(_ id: DeviceID) -> String {
        nodes[id] ?? source?.device(id)?.path ?? "device \(id.rawValue)"
    }

    private func line(_ time: Timestamp, _ what: String, _ message: String) {
        let first = firstTime ?? time
        if firstTime == nil { firstTime = time }
        let d = max(0, time.microseconds - first.microseconds)
        text.removeAll(keepingCapacity: true)
        let stamp = Timestamp(microseconds: d).text(decimals: 3)
        text += String(repeating: " ", count: max(0, 9 - stamp.count)) + stamp + "  "
        text += what + String(repeating: " ", count: max(1, 8 - what.count)) + message + "\n"
        sink.write(Array(text.utf8))
    }

    private func number(_ v: Double) -> String { JSONText.number((v * 10).rounded() / 10, style: .shortest) }
}
