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
/// a terminal). A routed event's line is rendered from ``EventEncoder``'s ``EventEncoding/line``
/// fields (``MonitorFields``); what is shown and what is counted follows from the phase written.
///
/// With the JSON format each of those lines is one JSON object instead, written by the JSON
/// trace's own code (``EventEncoder`` for events, ``TraceWriter/fields(of:into:)`` for the other
/// records) with what the monitor adds: a device's `node`, the steps counted on an event that
/// ends a life (`moves`, `repeats`, `changes`), the region under a finger (`over`).
public final class MonitorWriter: RouteReport {
    public var sink: OutputSink { out.sink }
    public var format: TraceFormat { out.format }
    /// Where the summary goes with the JSON format: standard error (every line on standard
    /// output is an object), as the JSON trace's.
    public var errors: OutputSink { out.errors }
    /// The trace's writer of lines, in the monitor's configuration (its own stamps and words).
    private let out: RecordLines
    /// What is in progress — a touch down, a key held, a gesture begun —, by ``Life``: its
    /// steps (moves, repeats, `changed` states) are counted and said when it ends.
    private var lives: [Life: LifeState] = [:]
    /// Live device nodes that are not routed, with their name and why (said once each; they
    /// are named again when they go, and counted when no device is routed).
    private var ignored: [String: (name: String, reason: DeviceIgnoreReason)] = [:]
    private weak var source: LiveInputSource?
    /// Each routed device's node or recording, kept from its arrival: a live source has let
    /// go of a device by the time its removal is reported.
    private var nodes: [DeviceID: String] = [:]

    /// One touch, key, gesture or shake through its life: the device, the recognizer's region
    /// (gestures) and the words that name it (``MonitorFields/subject``: `touch 3`, `key KEY_A`,
    /// `gesture admin-hold`).
    private struct Life: Hashable {
        var device: DeviceID
        var recognizer: Int?
        var subject: String
    }

    private struct LifeState {
        var steps = 0
        var unit = ""
        /// The JSON key of ``steps`` (`moves`).
        var key = ""
        /// The region under the finger when last said (the bound one at first).
        var under: Int?
    }

    /// The phases that are steps of a life, counted rather than shown, and what they are called
    /// (in text, and as the JSON key of their count).
    private static let steps: [String: (unit: String, key: String)] = [
        TouchPhase.moved.rawValue: ("move(s)", "moves"), TouchPhase.stationary.rawValue: ("move(s)", "moves"),
        KeyPhase.repeat.rawValue: ("repeat(s)", "repeats"), GestureState.changed.rawValue: ("change(s)", "changes"),
    ]
    /// The phases that begin a life — `began` (a touch, a gesture, a shake), `down` (a key) —:
    /// its steps are counted from there; any other shown phase ends it.
    private static let starts: Set<String> = [TouchPhase.began.rawValue, KeyPhase.down.rawValue]

    public init(sink: OutputSink, format: TraceFormat = .text, errors: OutputSink = FileDescriptorSink(fd: 2)) {
        out = RecordLines(format: format, sink: sink, errors: errors)
    }

    public var reportsIgnoredLiveDevices: Bool { true }
    public func attach(_ source: LiveInputSource) { self.source = source }
    /// Recordings aligned onto another's clock: said first, as the trace's header says it.
    public func clocksAligned(_ alignments: [ClockAlignment]) { out.clocksAligned(alignments) }
    public func attach(_ replay: ReplayDriver) {
        for device in replay.devices { nodes[device.id] = device.path }
    }

    public func record(_ record: RouteRecord) {
        if format == .json {
            switch record {
            case .focus, .presentation, .regionChanged, .layoutReplaced, .filtered: return object(record) { _ in }
            default: break
            }
        }
        switch record {
        case .deviceAdded(let info, let time):
            if let live = source?.device(info.id) { nodes[info.id] = live.path }
            if format == .json { return object(record) { $0.field("node", self.node(info.id)) } }
            line(time, "device", "+ \"\(info.name)\" (\(info.kind.rawValue)) \(node(info.id)): rule \(info.ruleName) takes it, display \(info.display)")
        case .deviceRemoved(let info, let time):
            if format == .json { object(record) { $0.field("node", self.node(info.id)) } }
            else { line(time, "device", "- \"\(info.name)\" \(node(info.id)) removed") }
            nodes[info.id] = nil
            lives = lives.filter { $0.key.device != info.id }
        case .routed(let e, let by, let handler):
            routed(e, by, handler)
        case .gestureState:
            break   // the recognizers' bookkeeping; their routed states are shown
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
        case .filtered(let c):
            var f = MonitorFields()
            EventEncoder.encode(c, as: .line, into: &f)
            line(c.time, "filtered", "\(c.device): \(f.what)" + (f.location.map { " at \($0)" } ?? "") + ", not routed")
        }
    }

    private func routed(_ e: RoutedEvent, _ by: ResponderID?, _ handler: HandlerBinding?) {
        var f = MonitorFields()
        EventEncoder.encode(e, handledBy: by, handler: handler, as: .line, into: &f)
        if f.isSample { return }   // a stream (motion.rate a second): the monitor shows orientation and shakes
        let life = Life(device: e.device?.id ?? DeviceID(0), recognizer: e.gestureRegion, subject: f.subject)
        if let phase = f.phase, let unit = Self.steps[phase] {
            var state = lives[life] ?? LifeState(under: e.region)
            state.steps += 1
            (state.unit, state.key) = unit
            // A touch is bound for life to where it began; say where the finger is only when that changes.
            if let t = e.touch, let screen = t.screen, let at = f.location {
                let under = t.layout.hitTest(t.location, inScreen: screen)
                if under != state.under {
                    state.under = under
                    if format == .json {
                        let over = under.map { t.layout.regions[$0].path }
                        routedObject(e, by, handler) { $0.field("over", over) }
                    } else if under != nil, under == t.region {
                        line(e.time, f.type, "\(f.name) back over \(f.region) at \(at)")
                    } else {
                        let over = under.map { t.layout.regions[$0].path } ?? "no region"
                        line(e.time, f.type, "\(f.name) over \(over) at \(at), bound to \(f.region)")
                    }
                }
            }
            lives[life] = state
            return
        }
        var counted: LifeState?
        if f.phase.map(Self.starts.contains) == true {
            lives[life] = LifeState(under: e.region)
        } else if let state = lives.removeValue(forKey: life), state.steps > 0 {
            counted = state
        }
        if format == .json {
            return routedObject(e, by, handler) { json in
                if let counted {
                    json.key(counted.key)
                    json.integer(Int64(counted.steps))
                }
            }
        }
        var message = f.what
        if let location = f.location { message += " " + location }
        if f.region != "-" { message += f.region.hasPrefix("(") ? " " + f.region : " in " + f.region }
        if let counted { message += ", \(counted.steps) \(counted.unit)" }
        if let taps = f.tapCount { message += ", tap ×\(taps)" }
        let taker = by.map { "taken by \(e.layout.describe($0))" + (handler.map { " [\($0.plugin)]" + ($0.forwards ? " forwarded" : "") } ?? "") } ?? "unhandled"
        line(e.time, f.type, message + " → " + (f.blocked.map { "blocked (\($0))" } ?? taker))
    }

    public func deviceIgnored(node: String?, name: String, kind: DeviceKind?, reason: DeviceIgnoreReason, time: Timestamp) {
        if let node {
            // udev says `change` for a device it already announced: say it once.
            if let known = ignored[node], known.name == name, known.reason == reason { return }
            if source != nil { ignored[node] = (name, reason) }
        }
        if format == .json {
            let code = switch reason {
            case .noRules: "no device rules"
            case .noRuleTakesIt: "no device rule matches"
            case .cannotOpen: "cannot be opened"
            }
            return write { json in
                TraceWriter.deviceIgnoredFields(name: name, kind: kind, reason: code, time: time, into: &json)
                json.field("node", node)
                json.field("detail", reason.description)
            }
        }
        let where_ = node.map { " \($0)" } ?? ""
        line(time, "device", "  \"\(name)\"\(kind.map { " (\($0.rawValue))" } ?? "")\(where_) not routed: \(reason)")
    }

    public func deviceGone(node: String, time: Timestamp) {
        guard let known = ignored.removeValue(forKey: node) else { return }
        if format == .json {
            return write { json in
                json.field("type", "device-removed")
                json.field("time", time: time.microseconds)
                json.field("device", String?.none)
                json.field("name", known.name)
                json.field("node", node)
            }
        }
        line(time, "device", "- \"\(known.name)\" \(node) removed (was not routed)")
    }

    /// Says that no device is routed, and the likeliest why: nodes that cannot be opened
    /// (permissions), devices no rule takes, or none at all.

    public func deviceWarning(name: String, message: String, time: Timestamp) {
        if format == .json {
            return write { json in
                json.field("type", "device-warning")
                json.field("time", time: time.microseconds)
                json.field("name", name)
                json.field("message", message)
            }
        }
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
        if format == .json {
            return write { json in
                json.field("type", "no-device")
                json.field("time", time: time.microseconds)
                json.field("message", message)
            }
        }
        line(time, "device", message)
    }

    public func summary(_ line: String) { out.summary(line) }

    public func flush() { out.flush() }
    public var hasPendingOutput: Bool { out.hasPendingOutput }

    private func node(_ id: DeviceID) -> String {
        nodes[id] ?? source?.device(id)?.path ?? "device \(id.rawValue)"
    }

    /// One JSON line: `fields` inside an object.
    private func write(_ fields: (inout JSONWriter) -> Void) { out.object(fields) }

    /// A record as the JSON trace writes it, then what the monitor adds.
    private func object(_ record: RouteRecord, _ more: (inout JSONWriter) -> Void) {
        write { json in
            TraceWriter.fields(of: record, into: &json)
            more(&json)
        }
    }

    /// A routed event as the JSON trace writes it (``EventEncoder``), then what the monitor adds.
    private func routedObject(_ e: RoutedEvent, _ by: ResponderID?, _ handler: HandlerBinding?, _ more: (inout JSONWriter) -> Void) {
        write { json in
            EventEncoder.encode(e, handledBy: by, handler: handler, as: .json, into: &json)
            more(&json)
        }
    }

    /// A line of text: the time since the first line to 1/1000 (never before it), what it is
    /// about in a column, the message.
    private func line(_ time: Timestamp, _ what: String, _ message: String) {
        let stamp = Timestamp(microseconds: max(0, out.sinceFirst(time).microseconds)).text(decimals: 3)
        out.line { text in
            text += String(repeating: " ", count: max(0, 9 - stamp.count)) + stamp + "  "
            text += what + String(repeating: " ", count: max(1, 8 - what.count)) + message
        }
    }

}

/// A routed event's monitor line, from its ``EventEncoding/line`` fields (the log line's
/// words): its type (the line's column), the words naming it and what happened, the location,
/// the region (or what stands for none), how a touch was blocked, a tap's count. Text is shown
/// whole, quoted (the monitor is a debugger at a terminal).
private struct MonitorFields: EventFieldWriter {
    var type = ""
    /// The words after the type that name what happened, before its phase: a touch's number,
    /// a key's or a gesture's name, an action's, a text.
    var name = ""
    /// What follows the type: ``name`` and the phase.
    var what = ""
    var phase: String?
    var location: String?
    var region = "-"
    var blocked: String?
    var tapCount: Int?
    /// An accelerometer's sample: not shown.
    var isSample = false

    /// The words that name it, its type first: `touch 3`, `key KEY_A`, `gesture admin-hold`.
    var subject: String { type + " " + name }

    /// Coordinates to 1/10 (people read them), without a fraction when whole.
    private static func number(_ v: Double) -> String { JSONText.number((v * 10).rounded() / 10, style: .shortest) }

    private mutating func word(_ s: String) {
        if phase == nil { name += name.isEmpty ? s : " " + s }
        what += what.isEmpty ? s : " " + s
    }

    mutating func field(_ field: EventField, _ value: String?) {
        switch field {
        case .device: break   // the device line names it; the monitor tells devices apart by id
        case .type: type = value ?? "-"
        case .region: region = value ?? "-"
        case .blocked: blocked = value
        case .phase, .state:
            phase = value ?? "-"
            word(value ?? "-")
        case .text:
            word(JSONText.quoted(value ?? ""))
        default: word(value ?? "-")
        }
    }
    mutating func field(_ field: EventField, integer value: Int) {
        if field == .tapCount { tapCount = value } else { word(String(value)) }
    }
    mutating func field(_ field: EventField, number value: Double?) { word(value.map(Self.number) ?? "-") }
    mutating func field(_ field: EventField, bool value: Bool) {}
    mutating func field(_ field: EventField, time value: Timestamp) {}
    mutating func field(_ field: EventField, point value: Point) { location = "(\(Self.number(value.x)), \(Self.number(value.y)))" }
    mutating func field(_ field: EventField, x: Double, y: Double, z: Double) { isSample = true }
    mutating func options(of handler: HandlerBinding) {}
}
