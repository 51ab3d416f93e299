import EvrouteCore
import EvrouteSystem

/// Counts device and layout changes (for `evroute status`; routed events the router counts
/// itself: ``Router/routeCounts``), logs device arrivals and departures and layout changes. One
/// of the run's observers (``RouteFanOut``); it wants no `.routed` record.
final class DaemonObserver: RouteObserver {
    /// Counters since the daemon started.
    struct Counts {
        var devicesAdded = 0
        var devicesRemoved = 0
        var touchesCancelledByReload = 0
        /// Run-time region changes (docs/ui-control.md) and the touches they cancelled.
        var regionChanges = 0
        var touchesCancelledByChanges = 0
    }

    private(set) var counts = Counts()
    private let log: Log

    init(log: Log) {
        self.log = log
    }

    var observesRoutedEvents: Bool { false }

    func record(_ record: RouteRecord) {
        switch record {
        case .deviceAdded(let info, _):
            counts.devicesAdded += 1
            log.info(.deviceAdded, fields: [.device: info.ruleName], "device added: \(info.id.rawValue) \"\(Log.escaped(info.name))\" (\(info.kind.rawValue)), rule \(info.ruleName), display \(info.display)")
        case .deviceRemoved(let info, _):
            counts.devicesRemoved += 1
            log.info(.deviceRemoved, fields: [.device: info.ruleName], "device removed: \(info.id.rawValue) \"\(Log.escaped(info.name))\"")
        case .routed:
            break
        case .filtered(let c):
            // Counted per device and filter by the router (status); told at debug level — a
            // stuck contact (the panel needs cleaning) as a warning.
            if c.filter == "stuck" {
                log.warning(.contactStuck, fields: [.device: c.device], Self.line(c))
            } else {
                log.debug(.contactFiltered, fields: [.device: c.device], Self.line(c))
            }
        case .layoutReplaced(_, let cancelled):
            counts.touchesCancelledByReload += cancelled
        case .regionChanged(let path, let change, _, _, let cancelled):
            counts.regionChanges += 1
            counts.touchesCancelledByChanges += cancelled
            log.info(.regionChanged, fields: [.region: path], "region \(Log.escaped(path)) \(change.rawValue)" + (cancelled > 0 ? " (\(cancelled) touch(es) cancelled)" : ""))
        case .focus(let screen, let region, let layout, _):
            // Pages change often on a kiosk: debug level (`--verbose`), like the routing itself.
            log.debug(.focusChanged, fields: [.screen: layout.screens[screen].name, .region: region.map { layout.regions[$0].path } ?? ""], "focus: screen \(layout.screens[screen].name) first responder \(region.map { layout.regions[$0].path } ?? "none")")
        case .presentation(let screen, let over, let presented, let layout, _):
            let name = layout.screens[screen].name
            log.debug(.screenChanged, fields: [.screen: name], presented ? "screen \(name) presented" + (over.map { " over \(layout.screens[$0].name)" } ?? "")
                      : "screen \(name) dismissed" + (over.map { ", \(layout.screens[$0].name) active again" } ?? ""))
        case .gestureState:
            break
        }
    }

    func routed(_ event: RoutedEvent, handledBy responder: ResponderID?, handler: HandlerIndex?) {}

    /// A filtered contact's log line: the encoder's ``EventEncoding/line`` words as the log
    /// writes an event's (``LogLineHead``: `filtered stuck (412.5, 96)`), the device rule and
    /// the event time as a routed event's line ends (` device touch t=1508.125`), and what the
    /// filter's kind hints at (``hint(_:)``).
    static func line(_ c: FilteredContact) -> String {
        var head = LogLineHead(line: LogLine(), showKeys: false)
        EventEncoder.encode(c, as: .line, into: &head)
        var line = head.line
        line.append(" device ")
        line.append(c.device)
        var seconds = SecondsText()
        LogPlugin.describeTime(c.time, seconds: &seconds, into: &line)
        if let hint = hint(c.filter) { line.append(hint) }
        return String(decoding: line.bytes, as: UTF8.self)
    }

    /// A fixed suffix by filter kind: what a `stuck` cancellation means for the panel.
    static func hint(_ filter: String) -> StaticString? {
        switch filter {
        case "stuck": ": cancelled, it did not move for its stuck-after-s (dirt on the frame? a contact that never lifts)"
        default: nil
        }
    }
}
