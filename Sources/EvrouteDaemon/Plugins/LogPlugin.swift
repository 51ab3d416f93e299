import EvrouteConfig
import EvrouteCore
import EvrouteInput
import EvrouteJSON
import EvrouteRuntime
import EvrouteSystem

extension PluginKind {
    /// Hosted: one info line per event in the daemon's log; always handles. Built-in instance `log`.
    public static let log: PluginKind = "log"
}

/// The `log` type: no plugin options; a handler's `log-keys` names typing keys.
struct LogPluginType: PluginType {
    var name: PluginKind { .log }
    var hasBuiltInInstance: Bool { true }
    var handlerKeys: [ConfigKey] {
        [ConfigKey("log-keys", .boolean, default: "false", "Name typing keys and text in this handler's lines.")]
    }

    func checkHandler(_ check: inout HandlerOptionCheck) {
        if let v = check.handler.options["log-keys"], v.bool == nil {
            check.error("'log-keys' of a 'log' handler must be true or false", at: "log-keys")
        }
    }

    func makePlugin(spec: PluginSpec, options: (any Sendable)?, context: PluginContext) -> (any Plugin)? {
        LogPlugin(spec: spec, context: context)
    }
}

/// `log`: one info line per event in the daemon's log (journald), with the fields of the
/// dry-run trace (the handler's options too, as the text trace shows them). Always handles.
/// Typing keys (``KeyNames/isTyping(_:)``: what a PIN or a scanned code is typed with) are
/// written `KEY_***`, and text `text "***" (N chars)`, unless the run (`--show-keycodes`), the device's rule or the handler
/// (`log-keys: true`) lets them be named.
final class LogPlugin: Plugin {
    let spec: PluginSpec
    private let context: PluginContext
    var statistics: PluginStatistics { perLine.statistics }
    /// What each line updates: the statistics and the time's whole seconds kept written (see
    /// ``SecondsText``). One value, read and written per line on the loop's thread only: no
    /// dynamic exclusivity checks.
    private struct PerLine {
        var statistics: PluginStatistics
        var seconds = SecondsText()
    }
    @exclusivity(unchecked) private var perLine: PerLine

    /// The daemon's log (the context's, kept here: read per line).
    private let log: Log

    init(spec: PluginSpec, context: PluginContext) {
        self.spec = spec
        self.context = context
        log = context.log
        perLine = PerLine(statistics: PluginStatistics(name: spec.name, type: spec.type))
    }

    func start() {}
    func stop(_ reason: PluginStopReason) {}
    var liveChildren: [ChildProcess] { [] }

    /// Each line's tail (` REGION → RESPONDER [PLUGIN] OPTIONS device RULE`), made once per
    /// place: it depends only on the layout, the bound region, the responder, the handler and
    /// the device, and writing its names anew for every event was most of a line's cost.
    private let tails = LogLineTails()

    func deliver(_ d: PluginDelivery) -> HandlerVerdict {
        deliverInPlace(d.event, handler: d.handlerIndex, responder: d.responder)
    }

    /// Writes the event's line. `handler` indexes `event.layout.handlers`. (A touch phase's line
    /// is written here; other events' lines out of line.) Not a ``Plugin`` requirement: the
    /// host's table calls it on the concrete type, during the router's walk, with no delivery
    /// record (the log line is most of what the daemon does per event; see `PluginHost.dispatch`).
    func deliverInPlace(_ event: RoutedEvent, handler: Int, responder: ResponderID) -> HandlerVerdict {
        perLine.statistics.handled += 1
        let values = event.touchLineValues
        let tail = tails.tail(of: event, device: values.device, responder: responder, handler: handler)
        if case .touch(let phase, false) = event.kind {
            // Most lines: a touch phase, its head from the encoder, written in one reservation
            // (its room checked once).
            let words = tails.entries[tail].words.count &* 8
            let maximum = LogPlugin.touchHeadMaximum + words + 3 + SecondsText.maximumLength
            log.writeLine(.info, maximum: maximum) { text in
                text.withBytes(maximum: maximum) { out in
                    var head = TouchLineHead(out)
                    EventEncoder.encodeTouchLine(touch: values.id, phase: phase, location: values.location, into: &head)
                    out = head.out
                    tails.copy(tail, to: &out)
                    out.append(" t=")
                    perLine.seconds.write(event.time, to: &out)
                }
            }
            return .handled
        }
        return deliverOther(event, handler: handler, tail: tail)
    }

    /// ``deliver(_:handler:responder:)`` for events other than a touch phase (and taps).
    /// `tail`: the line's tail in ``tails``.
    @inline(never)
    private func deliverOther(_ event: borrowing RoutedEvent, handler: Int, tail: Int) -> HandlerVerdict {
        let showKeycodes = context.showKeycodes
        log.log(.info) { line in
            var head = showKeycodes ? LogLineHead(line: line, showKeys: true)
                : LogLineHead(line: line, askingFor: event.layout.handlers[handler], layout: event.layout, rule: event.device?.ruleName)
            EventEncoder.encode(event, handledBy: nil, handler: nil, as: .line, into: &head)
            line = head.line
            line.append(prepared: tails.entries[tail].bytes)
            LogPlugin.describeTime(event.time, seconds: &perLine.seconds, into: &line)
        }
        return .handled
    }

    /// The most bytes ``TouchLineHead`` writes (a touch phase's head, `touch 3 began (412.5, 96)`).
    static let touchHeadMaximum = 6 + JSONText.maximumIntegerLength + 1 + 10 + 2 + 2 * coordinateMaximum + 2 + 1
    /// The room ``writeCoordinate(_:to:)`` needs: a sign, 16 digits, `.` and 3 decimals, or the
    /// shortest form of a double beyond those (at most 24 bytes, in room for any number).
    static let coordinateMaximum = JSONText.maximumNumberLength


    /// `touch 3 began (412.5, 96) home/root/header/back → home/root/header/back [shell] device touch t=1508.125`.
    static func describe(_ e: RoutedEvent, responder: ResponderID, handler: HandlerBinding, showKeys: Bool = false) -> String {
        var line = LogLine()
        describe(e, responder: responder, handler: handler, showKeys: showKeys, into: &line)
        return String(decoding: line.bytes, as: UTF8.self)
    }

    /// Writes the line in place: one per event, so no `String` is built (the log's cost per
    /// event is what the live path spent most on).
    static func describe(_ e: RoutedEvent, responder: ResponderID, handler: HandlerBinding, showKeys: Bool, into line: inout LogLine) {
        describeHead(e, showKeys: showKeys, into: &line)
        describeTail(e, responder: responder, handler: handler, into: &line)
        var seconds = SecondsText()
        describeTime(e.time, seconds: &seconds, into: &line)
    }

    /// What happened: `touch 3 began (412.5, 96)`, `key KEY_ENTER down`, … (the encoder's
    /// ``EventEncoding/line`` fields, as ``LogLineHead`` writes them).
    static func describeHead(_ e: borrowing RoutedEvent, showKeys: Bool, into line: inout LogLine) {
        var head = LogLineHead(line: line, showKeys: showKeys)
        EventEncoder.encode(e, handledBy: nil, handler: nil, as: .line, into: &head)
        line = head.line
    }

    /// Where it went: ` home/root/header/back → home/root/header/back [shell] device touch`.
    static func describeTail(_ e: RoutedEvent, responder: ResponderID, handler: HandlerBinding, into line: inout LogLine) {
        // Region names may come from a peer (a run-time `children` change): escaped.
        line.append(" ")
        line.append(peer: e.regionPath ?? "(no region)")
        line.append(" → ")
        line.append(peer: e.layout.describe(responder))
        line.append(" [")
        line.append(handler.plugin)
        line.append("]")
        if let options = HandlerOptions.text(of: handler) {
            line.append(" ")
            line.append(options)
        }
        if let device = e.device {
            line.append(" device ")
            line.append(device.ruleName)
        }
    }

    /// When: ` t=1508.125` (`seconds` keeps the whole seconds written, for the next line).
    static func describeTime(_ t: Timestamp, seconds: inout SecondsText, into line: inout LogLine) {
        line.append(" t=")
        line.write(maximum: SecondsText.maximumLength) { text in
            text.withBytes(maximum: SecondsText.maximumLength) { seconds.write(t, to: &$0) }
        }
    }

    /// Whether the handler or the device rule `rule` (of `layout`) says `log-keys: true` (asked
    /// for keys and text).
    static func mayName(handler: HandlerBinding, layout: Layout, rule: String?) -> Bool {
        if handler.options["log-keys"]?.bool == true { return true }
        guard let rule else { return false }
        return layout.deviceRules.first { $0.name == rule }?.logKeys == true
    }

    /// A coordinate to 1/1000, without a fraction when whole: `412.5`, `96`, `389.589`.
    static func coordinate(_ v: Double, into line: inout LogLine) {
        line.write(maximum: coordinateMaximum) { text in
            text.withBytes(maximum: coordinateMaximum) { writeCoordinate(v, to: &$0) }
        }
    }

    /// Appends a coordinate as ``coordinate(_:into:)`` describes it (room: ``coordinateMaximum``).
    /// Not finite, or too large for 1/1000: JSON's shortest form.
    @inline(__always)
    static func writeCoordinate(_ v: Double, to out: inout ByteWriter) {
        guard v.isFinite, abs(v) < JSONText.integralLimit else { return writeShortest(v, to: &out) }
        // Rounded half away from zero, as `rounded()` does, without its libm call: the
        // truncation and the remainder are exact below 2^52 (above, `x` is whole).
        let x = v * 1000
        var units = Int64(x)
        let rest = x - Double(units)
        if rest >= 0.5 { units += 1 } else if rest <= -0.5 { units -= 1 }
        if units < 0 { out.append(UInt8(ascii: "-")) }
        let magnitude = units.magnitude
        let whole = magnitude / 1000, fraction = magnitude % 1000
        if whole < 10_000 { writeSmall(Int(whole), to: &out) } else { out.append(integer: whole) }
        guard fraction != 0 else { return }
        // `.5`, `.25`, `.589`, `.05`: the trailing zeros left out, a digit at a time.
        out.append(UInt8(ascii: "."))
        let tenths = fraction / 100, after = fraction % 100
        out.append(UInt8(ascii: "0") | UInt8(truncatingIfNeeded: tenths))
        guard after != 0 else { return }
        out.append(UInt8(ascii: "0") | UInt8(truncatingIfNeeded: after / 10))
        if after % 10 != 0 { out.append(UInt8(ascii: "0") | UInt8(truncatingIfNeeded: after % 10)) }
    }

    /// Appends `v` (0 ..< 10,000: a display coordinate's whole part, a touch's number) in
    /// decimal, a digit at a time: no loop to count its digits first.
    @inline(__always)
    static func writeSmall(_ v: Int, to out: inout ByteWriter) {
        if v >= 1000 { out.append(UInt8(ascii: "0") | UInt8(truncatingIfNeeded: v / 1000)) }
        if v >= 100 { out.append(UInt8(ascii: "0") | UInt8(truncatingIfNeeded: v / 100 % 10)) }
        if v >= 10 { out.append(UInt8(ascii: "0") | UInt8(truncatingIfNeeded: v / 10 % 10)) }
        out.append(UInt8(ascii: "0") | UInt8(truncatingIfNeeded: v % 10))
    }

    /// The rare coordinate that is not finite or not below ``JSONText/integralLimit``, in JSON's
    /// shortest form (`null`, `1e+16`: at most 24 bytes).
    @inline(never)
    static func writeShortest(_ v: Double, to out: inout ByteWriter) {
        out.append(number: v, style: .shortest)
    }

    /// The phase's name (its raw value) as a literal: no `String` per line.
    static func phaseName(_ phase: TouchPhase) -> StaticString {
        switch phase {
        case .began: "began"
        case .moved: "moved"
        case .stationary: "stationary"
        case .ended: "ended"
        case .cancelled: "cancelled"
        }
    }

    /// A space and the phase's name (``phaseName(_:)``) as words in memory order, the spare
    /// bytes zero, and its length: stored a word at a time in a touch line's head (its room
    /// holds the three words). Tests hold them to ``phaseName(_:)``.
    @inline(__always)
    static func phaseWords(_ phase: TouchPhase) -> (words: (UInt64, UInt64, UInt64), count: Int) {
        switch phase {
        case .began: ((UInt64(littleEndian: 0x6e61_6765_6220), 0, 0), 6)
        case .moved: ((UInt64(littleEndian: 0x6465_766f_6d20), 0, 0), 6)
        case .stationary: ((UInt64(littleEndian: 0x6e6f_6974_6174_7320), UInt64(littleEndian: 0x79_7261), 0), 11)
        case .ended: ((UInt64(littleEndian: 0x6465_646e_6520), 0, 0), 6)
        case .cancelled: ((UInt64(littleEndian: 0x6c6c_6563_6e61_6320), UInt64(littleEndian: 0x6465), 0), 10)
        }
    }

    static func integer(_ v: Int64, into line: inout LogLine) {
        line.write(maximum: JSONText.maximumIntegerLength) { $0.append(integer: v) }
    }
}

/// The head of a log line, what happened (`touch 3 began (412.5, 96)`, `touch 3 ended (10, 20)
/// tap ×2`, `key KEY_ENTER down`, `text "***" (12 chars)`, `motion (0, 1, -0.25) g`), from the
/// encoder's ``EventEncoding/line`` fields: words separated by spaces, coordinates to 1/1000
/// without a fraction when whole. The device, the region and the responder are the line's tail
/// (``LogLineTails``). Typed text is what typing keys make (a PIN, a scanned code): typing keys
/// are written `KEY_***`, text `"***" (N chars)`, unless they may be named (`showKeys`, or the
/// handler's or the device rule's `log-keys: true`).
struct LogLineHead: EventFieldWriter {
    var line: LogLine
    /// Whether typing keys and text may be named; nil: not asked yet (``asked``).
    private var named: Bool?
    /// What says so, asked when a key or a text is written (``LogPlugin/mayName(handler:layout:rule:)``).
    private let asked: (handler: HandlerBinding, layout: Layout, rule: String?)?
    private var started = false

    init(line: LogLine, showKeys: Bool) {
        self.line = line
        named = showKeys
        asked = nil
    }

    /// Names typing keys and text when `handler` or the device rule `rule` says `log-keys: true`.
    init(line: LogLine, askingFor handler: HandlerBinding, layout: Layout, rule: String?) {
        self.line = line
        named = nil
        asked = (handler, layout, rule)
    }

    private mutating func showKeys() -> Bool {
        if let named { return named }
        let may = asked.map { LogPlugin.mayName(handler: $0.handler, layout: $0.layout, rule: $0.rule) } ?? false
        named = may
        return may
    }

    private mutating func separate() {
        if started { line.append(" ") } else { started = true }
    }

    mutating func field(_ field: EventField, _ value: String?) {
        let value = value ?? ""
        switch field {
        case .device, .region, .blocked:
            return   // the tail says where; a blocked touch reaches no handler
        case .key:
            separate()
            line.append(!KeyNames.isTyping(value) || showKeys() ? value : KeyNames.obfuscatedName)
        case .text:
            separate()
            if showKeys() {
                var quoted: [UInt8] = []
                JSONText.appendString(value, to: &quoted)
                line.append(prepared: quoted)
            } else {
                line.append("\"***\" (")
                LogPlugin.integer(Int64(value.count), into: &line)
                line.append(value.count == 1 ? " char)" : " chars)")
            }
        default:
            separate()
            line.append(value)
        }
    }

    mutating func field(_ field: EventField, integer value: Int) {
        if field == .tapCount { line.append(" tap ×") } else { separate() }
        LogPlugin.integer(Int64(value), into: &line)
    }

    mutating func field(_ field: EventField, number value: Double?) {
        separate()
        LogPlugin.coordinate(value ?? 0, into: &line)
    }

    mutating func field(_ field: EventField, bool value: Bool) {}
    mutating func field(_ field: EventField, time value: Timestamp) {}
    mutating func options(of handler: HandlerBinding) {}

    mutating func field(_ field: EventField, point value: Point) {
        separate()
        line.append("(")
        LogPlugin.coordinate(value.x, into: &line)
        line.append(", ")
        LogPlugin.coordinate(value.y, into: &line)
        line.append(")")
    }

    mutating func field(_ field: EventField, x: Double, y: Double, z: Double) {
        separate()
        line.append("(")
        LogPlugin.coordinate(x, into: &line)
        line.append(", ")
        LogPlugin.coordinate(y, into: &line)
        line.append(", ")
        LogPlugin.coordinate(z, into: &line)
        line.append(") g")
    }
}

/// The head of a touch phase's log line (`touch 3 began (412.5, 96)`: the encoder's
/// ``EventEncoder/encodeTouchLine(_:phase:isTap:withPlace:into:)`` fields without the place), as
/// ``LogLineHead`` writes it, into the log's reservation: at most ``LogPlugin/touchHeadMaximum``
/// bytes (a tap's count, which the encoder adds for taps, is not written here: taps go through
/// ``LogLineHead``).
struct TouchLineHead: EventFieldWriter {
    /// Where the head is written (taken back by the caller when the encoder is done).
    var out: ByteWriter

    @inline(__always)
    init(_ out: ByteWriter) { self.out = out }

    @inline(__always)
    mutating func field(_ field: EventField, _ value: String?) {
        // `touch`, the first word (the place's fields are not asked for).
        if field == .type { out.append("touch") }
    }

    @inline(__always)
    mutating func field(_ field: EventField, integer value: Int) {
        guard field == .touch else { return }
        out.append(UInt8(ascii: " "))
        if value >= 0 && value < 10_000 { LogPlugin.writeSmall(value, to: &out) } else { out.append(integer: Int64(value)) }
    }

    @inline(__always)
    mutating func field(_ field: EventField, phase value: TouchPhase) {
        let (words, count) = LogPlugin.phaseWords(value)
        out.append(words: words, count: count)
    }

    @inline(__always)
    mutating func field(_ field: EventField, point value: Point) {
        out.append(" (")
        LogPlugin.writeCoordinate(value.x, to: &out)
        out.append(", ")
        LogPlugin.writeCoordinate(value.y, to: &out)
        out.append(UInt8(ascii: ")"))
    }

    mutating func field(_ field: EventField, number value: Double?) {}
    mutating func field(_ field: EventField, bool value: Bool) {}
    mutating func field(_ field: EventField, time value: Timestamp) {}
    mutating func field(_ field: EventField, x: Double, y: Double, z: Double) {}
    mutating func options(of handler: HandlerBinding) {}
}

/// A time as the log writes it (``TimestampText/seconds(_:to:)``'s text, `1508.125`: seconds,
/// then the microseconds without their trailing zeros, `.0` when there are none), with the
/// whole seconds kept written from the line before: they change once a second, the fraction
/// every line. (Tests hold it to ``TimestampText``.)
struct SecondsText {
    /// The room ``write(_:to:)`` needs.
    static let maximumLength = JSONText.maximumFixedLength
    private var seconds: Int64 = -1
    /// The whole seconds and the `.`, written, as words (see ``ByteWriter/append(words:count:)-(UInt64,UInt64,UInt64),_``).
    private var text: (UInt64, UInt64, UInt64) = (0, 0, 0)
    private var textLength = 0

    /// Appends `time` (room: ``maximumLength``). (Inlined: one per line; the whole seconds,
    /// written once a second, are not.)
    @inline(__always)
    mutating func write(_ time: Timestamp, to out: inout ByteWriter) {
        let us = time.microseconds
        guard us >= 0 else { return SecondsText.writeNegative(us, to: &out) }
        let whole = us / 1_000_000, fraction = UInt64(us % 1_000_000)
        if whole != seconds { writeWhole(whole) }
        out.append(words: text, count: textLength)
        guard fraction != 0 else { return out.append(UInt8(ascii: "0")) }
        var digits = 6, rest = fraction
        while rest % 10 == 0 { rest /= 10; digits -= 1 }
        out.append(digits: rest, count: digits)
    }

    /// Keeps `whole` seconds and the `.` written (at most 13 digits below 2^63 µs: 24 bytes
    /// hold them).
    @inline(never)
    private mutating func writeWhole(_ whole: Int64) {
        seconds = whole
        (text, textLength) = JSONText.decimalWords(whole, then: UInt8(ascii: "."))
    }

    /// A time before the clock's zero (a recording's), in full (``TimestampText``'s text).
    @inline(never)
    private static func writeNegative(_ us: Int64, to out: inout ByteWriter) {
        out.append(fixed: us, decimals: 6)
    }
}

/// The log plugin's line tails by place (layout, handler, bound region, device; the handler
/// fixes the responder), as written bytes: a direct-mapped cache of ``capacity`` entries (a
/// place whose slot another took is written again: bounded, no hashing, no search). It keeps
/// the entries of the two layouts whose tails it made last (a touch may still route through
/// the layout it began in after a reload); a tail made in a third drops the entries of older
/// ones.
final class LogLineTails {
    static let capacity = 64

    struct Entry {
        /// nil: empty. (Held, so that its identity, compared as `layoutID`, stays its own.)
        var layout: Layout?
        var layoutID: ObjectIdentifier?
        var handler = -1
        var region = -1
        var device: DeviceID?
        /// The tail's text.
        var bytes: [UInt8] = []
        /// ``bytes`` as whole words in memory order, the last one's spare bytes zero (copied a
        /// word at a time: ``ByteWriter/append(words:count:)-([UInt64],_)``).
        var words: [UInt64] = []
    }

    /// The entries, by slot (``capacity`` of them).
    @exclusivity(unchecked) private(set) var entries = [Entry](repeating: Entry(), count: LogLineTails.capacity)
    private var current: Layout?
    private var previous: Layout?

    /// The slot in ``entries`` that holds the tail of `e`'s place (`device`: its device's id), made
    /// when it was not there.
    /// (Inlined into the line's writer, and comparing identities without retaining anything:
    /// a found tail costs no call; one not yet made is made out of line.)
    @inline(__always)
    func tail(of e: borrowing RoutedEvent, device: DeviceID?, responder: ResponderID, handler index: Int) -> Int {
        let layout = ObjectIdentifier(e.layout)
        let region = e.region ?? -1
        let slot = (index &* 0x9E37 ^ region &* 0x85EB ^ (device?.rawValue ?? 0) &* 0x27D4) & (LogLineTails.capacity - 1)
        if entries[slot].layoutID == layout, entries[slot].handler == index, entries[slot].region == region,
           entries[slot].device == device {
            return slot
        }
        make(e, responder: responder, handler: index, region: region, device: device, at: slot)
        return slot
    }

    /// Appends the tail in `slot` (from ``tail(of:responder:handler:)``) a word at a time: the
    /// room must hold its whole words.
    @inline(__always)
    func copy(_ slot: Int, to out: inout ByteWriter) {
        out.append(words: entries[slot].words, count: entries[slot].bytes.count)
    }

    /// Writes the tail of a place not seen (or whose slot another took) into slot `slot`.
    @inline(never)
    private func make(_ e: borrowing RoutedEvent, responder: ResponderID, handler index: Int, region: Int, device: DeviceID?,
                      at slot: Int) {
        if e.layout !== current { seeLayout(e.layout) }
        var line = LogLine()
        LogPlugin.describeTail(e, responder: responder, handler: e.layout.handlers[index], into: &line)
        let made = line.bytes
        var words = [UInt64](repeating: 0, count: (made.count + 7) / 8)
        for (i, byte) in made.enumerated() { words[i / 8] |= UInt64(byte) << (8 * UInt64(i % 8)) }
        for i in words.indices { words[i] = UInt64(littleEndian: words[i]) }
        entries[slot] = Entry(layout: e.layout, layoutID: ObjectIdentifier(e.layout), handler: index, region: region,
                              device: device, bytes: made, words: words)
    }

    /// A layout other than the current one: it becomes current; entries of layouts before the
    /// two latest are dropped.
    private func seeLayout(_ layout: Layout) {
        if layout === previous {
            swap(&current, &previous)
            return
        }
        previous = current
        current = layout
        for i in 0..<LogLineTails.capacity where entries[i].layout != nil && entries[i].layout !== current && entries[i].layout !== previous {
            entries[i] = Entry()
        }
    }
}
