import EvrouteCore
import EvrouteInput
import EvrouteJSON

/// The one writer of the dry-run trace's and the monitor's lines (``TraceWriter`` and
/// ``MonitorWriter`` are its two configurations: they choose what each record says): lines of
/// text with times relative to the first one written, or one JSON object per line; the header
/// of aligned clocks; the summary (after the text, or beside the JSON lines on `errors`).
final class RecordLines {
    let format: TraceFormat
    let sink: OutputSink
    /// Where what is not a record's line goes with the JSON format (the summary): standard error.
    let errors: OutputSink
    private var json = JSONWriter()
    private var text = ""
    /// The time text lines are relative to: the first one's.
    private var firstTime: Timestamp?

    init(format: TraceFormat, sink: OutputSink, errors: OutputSink) {
        self.format = format
        self.sink = sink
        self.errors = errors
    }

    /// `t` after the first time asked for (the first is 0 after itself).
    func sinceFirst(_ t: Timestamp) -> Timestamp {
        let first = firstTime ?? t
        if firstTime == nil { firstTime = t }
        return Timestamp(microseconds: t.microseconds - first.microseconds)
    }

    /// One line of text: `body` appends it (no newline) to an emptied buffer.
    func line(_ body: (inout String) -> Void) {
        text.removeAll(keepingCapacity: true)
        body(&text)
        text.append("\n")
        sink.write(Array(text.utf8))
    }

    /// One JSON line: `fields` inside an object (`combining`: gathered in stack memory first,
    /// ``JSONWriter/combiningWrites(_:)``, for the lines written per event).
    func object(combining: Bool = false, _ fields: (inout JSONWriter) -> Void) {
        json.reset()
        if combining {
            json.combiningWrites { json in
                json.beginObject()
                fields(&json)
                json.endObject()
                json.endLine()
            }
        } else {
            json.beginObject()
            fields(&json)
            json.endObject()
            json.endLine()
        }
        sink.write(json.bytes)
    }

    /// The header: one line per recording aligned onto another's clock, before any record — in
    /// text a `#` comment, in JSON a `replay-clock` object.
    func clocksAligned(_ alignments: [ClockAlignment]) {
        for a in alignments {
            switch format {
            case .text:
                sink.write(Array("# \(a)\n".utf8))
            case .json:
                object { json in
                    json.field("type", "replay-clock")
                    json.field("recording", a.recording)
                    json.field("recorded-start", time: a.recordedStart.microseconds)
                    json.field("aligned-start", time: a.alignedStart.microseconds)
                }
            }
        }
    }

    /// The summary line at the end of a replay: the text's last line; beside the JSON lines, on
    /// ``errors`` (the JSON lines stay the docs/events.md contract, one event each).
    func summary(_ line: String) {
        switch format {
        case .text: sink.write(Array((line + "\n").utf8))
        case .json:
            sink.flush()
            errors.write(Array((line + "\n").utf8))
            errors.flush()
        }
    }

    func flush() { sink.flush() }
    var hasPendingOutput: Bool { sink.hasPending }
}

/// Prints each routing decision as a line of text or JSON (the dry-run trace).
public final class TraceWriter: RouteReport {
    public var format: TraceFormat { out.format }
    public var sink: OutputSink { out.sink }
    private let out: RecordLines

    /// Where what is not a trace line goes with the JSON format (the summary): standard error.
    public var errors: OutputSink { out.errors }

    /// `--verbose`: the text trace also has each gesture's `failed` (a recognizer giving up: one
    /// line for nearly every touch, so left out by default). The JSON trace always has it.
    public let verbose: Bool

    public init(format: TraceFormat, sink: OutputSink, errors: OutputSink = FileDescriptorSink(fd: 2), verbose: Bool = false) {
        self.verbose = verbose
        out = RecordLines(format: format, sink: sink, errors: errors)
    }

    public func record(_ record: RouteRecord) {
        switch format {
        case .json:
            out.object { Self.fields(of: record, into: &$0) }
        case .text:
            if !verbose, case .gestureState(_, .failed, _, _, _, _, _) = record { return }
            out.line { writeText(record, into: &$0) }
        }
    }

    /// A routed event, lent by the router: the JSON line written from it in place (the text
    /// format builds the record: it is for people, one screen at a time).
    public func routed(_ event: RoutedEvent, handledBy responder: ResponderID?, handler: HandlerIndex?) {
        let binding = handler.map { event.layout[handler: $0] }
        guard case .json = format else {
            record(.routed(event, handledBy: responder, handler: binding))
            return
        }
        // The JSON object (one line, with its newline), read in place.
        out.object(combining: true) { json in
            EventEncoder.encode(event, handledBy: responder, handler: binding, as: .json, into: &json)
        }
    }

    /// A device's input that could not be taken as sent: a warning on standard error (the
    /// trace itself stays the record of routing decisions).
    public func deviceWarning(name: String, message: String, time: Timestamp) {
        sink.flush()
        errors.write(Array("warning: device \"\(name)\": \(message)\n".utf8))
        errors.flush()
    }

    /// The trace's header: one line per recording aligned onto another's clock, before any
    /// record — in text a `#` comment, in JSON a `replay-clock` object.
    public func clocksAligned(_ alignments: [ClockAlignment]) { out.clocksAligned(alignments) }

    /// The summary line at the end of a replay: the text trace's last line; beside the JSON
    /// trace, on standard error (the JSON lines stay the docs/events.md contract, one event each).
    public func summary(_ line: String) { out.summary(line) }

    /// A replayed device that matched no rule (printed so an integrator sees why it is silent):
    /// the text says which rule wants what; the JSON line keeps its fixed `reason`.
    public func deviceIgnored(node: String?, name: String, kind: DeviceKind?, reason: DeviceIgnoreReason, time: Timestamp) {
        let kind = kind ?? .other
        switch format {
        case .json:
            out.object { Self.deviceIgnoredFields(name: name, kind: kind, reason: "no device rule matches", time: time, into: &$0) }
        case .text:
            out.line { $0 += "\(stamp(time))  device ignored: \"\(name)\" (\(kind.rawValue)): \(reason)" }
        }
    }

    public func flush() { out.flush() }
    public var hasPendingOutput: Bool { out.hasPendingOutput }

    // MARK: JSON

    /// A `device-ignored` object's fields (inside an object the caller opens): the trace's, and
    /// the JSON monitor's before the fields it adds.
    static func deviceIgnoredFields(name: String, kind: DeviceKind?, reason: String, time: Timestamp, into json: inout JSONWriter) {
        json.field("type", "device-ignored")
        json.field("time", time: time.microseconds)
        json.field("name", name)
        json.field("kind", kind?.rawValue)
        json.field("reason", reason)
    }

    /// A record's fields as the JSON trace writes them (inside an object the caller opens): the
    /// one rendering of records the trace and the JSON monitor (``MonitorWriter``) share.
    static func fields(of record: RouteRecord, into json: inout JSONWriter) {
        switch record {
        case .deviceAdded(let info, let time), .deviceRemoved(let info, let time):
            if case .deviceAdded = record { json.field("type", "device-added") } else { json.field("type", "device-removed") }
            json.field("time", time: time.microseconds)
            json.field("device", info.ruleName)
            json.field("name", info.name)
            json.field("kind", info.kind.rawValue)
            json.field("display", info.display)
        case .routed(let e, let by, let handler):
            // A routed event's fields, its handler's options last, as ``EventEncoder`` encodes them.
            EventEncoder.encode(e, handledBy: by, handler: handler, as: .json, into: &json)
        case .focus(let screen, let region, let layout, let time):
            json.field("type", "focus")
            json.field("time", time: time.microseconds)
            json.field("screen", layout.screens[screen].name)
            json.field("region", region.map { layout.regions[$0].path })
        case .presentation(let screen, let over, let presented, let layout, let time):
            json.field("type", presented ? "present" : "dismiss")
            json.field("time", time: time.microseconds)
            json.field("screen", layout.screens[screen].name)
            json.field("over", over.map { layout.screens[$0].name })
            json.field("display", layout.displays[layout.screens[screen].display].name)
        case .gestureState(let name, let state, let waitingFor, let layout, let region, let time, let values):
            json.field("type", "gesture")
            json.field("time", time: time.microseconds)
            json.field("gesture", name)
            json.field("state", state.rawValue)
            json.field("region", layout.regions[region].path)
            json.field("routed", false)
            if let waitingFor { json.field("waiting_for", waitingFor) }
            EventEncoder.encode(values, into: &json)
        case .layoutReplaced(let time, let cancelled):
            json.field("type", "layout-replaced")
            json.field("time", time: time.microseconds)
            json.field("cancelled_touches", cancelled)
        case .regionChanged(let path, let change, _, let time, let cancelled):
            json.field("type", "region")
            json.field("time", time: time.microseconds)
            json.field("region", path)
            json.field("change", change.rawValue)
            if cancelled > 0 { json.field("cancelled_touches", cancelled) }
        case .filtered(let c):
            EventEncoder.encode(c, as: .json, into: &json)
        }
    }

    // MARK: Text

    private func stamp(_ t: Timestamp) -> String { pad(left: "+" + out.sinceFirst(t).text(), 12) }

    /// The region column fits the layout's longest region path, so arrows line up.
    private var regionWidth = (layout: ObjectIdentifier?.none, width: 28)

    private func regionColumn(_ layout: Layout) -> Int {
        let id = ObjectIdentifier(layout)
        if regionWidth.layout != id {
            let longest = layout.regions.reduce(0) { max($0, $1.path.count) }
            regionWidth = (id, max(28, longest + 1))
        }
        return regionWidth.width
    }

    private func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s : s + String(repeating: " ", count: n - s.count) }
    private func pad(left s: String, _ n: Int) -> String { s.count >= n ? s : String(repeating: " ", count: n - s.count) + s }

    private func outcome(_ e: RoutedEvent, _ by: ResponderID?, _ handler: HandlerBinding?) -> String {
        guard let by, let handler else { return "unhandled" }
        return "→ \(e.layout.describe(by)) [\(handler.plugin)]" + (handler.forwards ? " forwarded" : "") + (HandlerOptions.text(of: handler).map { " " + $0 } ?? "")
    }

    private func writeText(_ record: RouteRecord, into text: inout String) {
        switch record {
        case .deviceAdded(let info, let time):
            text += "\(stamp(time))  \(pad(info.ruleName, 10)) device added    \"\(info.name)\" (\(info.kind.rawValue)) on display \(info.display)"
        case .deviceRemoved(let info, let time):
            text += "\(stamp(time))  \(pad(info.ruleName, 10)) device removed  \"\(info.name)\""
        case .routed(let e, let by, let handler):
            var line = TraceTextFields()
            EventEncoder.encode(e, handledBy: by, handler: handler, as: .line, into: &line)
            text += "\(stamp(e.time))  \(pad(line.device ?? "-", 10)) \(pad(line.what, 41)) \(pad(line.region, regionColumn(e.layout))) "
            if let b = line.blocked { text += "blocked (\(b))" } else { text += outcome(e, by, handler) }
            if let taps = line.tapCount { text += "  tap ×\(taps)" }
        case .focus(let screen, let region, let layout, let time):
            text += "\(stamp(time))  \(pad("-", 10)) focus: screen \(layout.screens[screen].name) first responder \(region.map { layout.regions[$0].path } ?? "none")"
        case .presentation(let screen, let over, let presented, let layout, let time):
            let s = layout.screens[screen].name
            text += "\(stamp(time))  \(pad("-", 10)) " + (presented
                ? "screen \(s) presented" + (over.map { " over \(layout.screens[$0].name)" } ?? "")
                : "screen \(s) dismissed" + (over.map { ", \(layout.screens[$0].name) active again" } ?? ""))
        case .gestureState(let name, let state, let waitingFor, let layout, let region, let time, _):
            let what = "gesture \(name) \(state.rawValue)" + (waitingFor.map { " (waiting for \($0) to fail)" } ?? "")
            text += "\(stamp(time))  \(pad("-", 10)) \(pad(what, 41)) \(pad(layout.regions[region].path, regionColumn(layout))) not routed"
        case .layoutReplaced(let time, let cancelled):
            text += "\(stamp(time))  \(pad("-", 10)) layout replaced (\(cancelled) touches cancelled)"
        case .regionChanged(let path, let change, _, let time, let cancelled):
            text += "\(stamp(time))  \(pad("-", 10)) region \(path) \(change.rawValue)"
                + (cancelled > 0 ? " (\(cancelled) touches cancelled)" : "")
        case .filtered(let c):
            var line = TraceTextFields()
            EventEncoder.encode(c, as: .line, into: &line)
            text += "\(stamp(c.time))  \(pad(line.device ?? "-", 10)) \(pad(line.what, 41)) not routed"
        }
    }
}

/// A routed event's line in the text trace, from its ``EventEncoding/line`` fields: the
/// device column, what happened (a touch's location in a column of its own), the region column,
/// how a touch was blocked, a tap's count.
private struct TraceTextFields: EventFieldWriter {
    var device: String?
    var what = ""
    var region = ""
    var blocked: String?
    var tapCount: Int?

    private mutating func word(_ s: String) {
        if !what.isEmpty { what += " " }
        what += s
    }

    private static func coordinate(_ v: Double) -> String { JSONText.number(v, style: .thousandths) }
    private static func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s : s + String(repeating: " ", count: n - s.count) }

    mutating func field(_ field: EventField, _ value: String?) {
        switch field {
        case .device: device = value
        case .region: region = value ?? "-"
        case .blocked: blocked = value
        case .text:
            // The whole text, quoted as JSON quotes it (the trace is complete; the log obfuscates).
            word(JSONText.quoted(value ?? ""))
        default: word(value ?? "-")
        }
    }
    mutating func field(_ field: EventField, integer value: Int) {
        if field == .tapCount { tapCount = value } else { word(String(value)) }
    }
    mutating func field(_ field: EventField, number value: Double?) { word(value.map(Self.coordinate) ?? "-") }
    mutating func field(_ field: EventField, bool value: Bool) {}
    mutating func field(_ field: EventField, time value: Timestamp) {}
    /// A touch's location: a column of its own, after what happened to it.
    mutating func field(_ field: EventField, point value: Point) {
        what = Self.pad(what, 20) + " " + Self.pad("(\(Self.coordinate(value.x)), \(Self.coordinate(value.y)))", 20)
    }
    mutating func field(_ field: EventField, x: Double, y: Double, z: Double) {
        word("(\(Self.coordinate(x)), \(Self.coordinate(y)), \(Self.coordinate(z))) g")
    }
    mutating func options(of handler: HandlerBinding) {}
}
