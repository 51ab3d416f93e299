import EvrouteCore
import EvrouteSystem

/// Counts what the router decides (for `evroute status`), logs device arrivals and departures
/// and layout changes, and passes every record on to the observer that was there before it
/// (a plugin host may observe too).
final class DaemonObserver: RouteObserver {
    /// Counters since the daemon started.
    struct Counts {
        var touchEvents = 0
        var keyEvents = 0
        var actions = 0
        var gestures = 0
        var texts = 0
        var motions = 0
        var handled = 0
        var unhandled = 0
        var devicesAdded = 0
        var devicesRemoved = 0
        var touchesCancelledByReload = 0
        /// Run-time region changes (SPEC §8) and the touches they cancelled.
        var regionChanges = 0
        var touchesCancelledByChanges = 0
    }

    @exclusivity(unchecked) private(set) var counts = Counts()
    /// The observer that was there before (kept: it does not keep this one or the router).
    var next: RouteObserver?
    private let log: Log

    init(log: Log) { self.log = log }

    func record(_ record: RouteRecord) {
        switch record {
        case .deviceAdded(let info, _):
            counts.devicesAdded += 1
            log.info("device added: \(info.id.rawValue) \"\(info.name)\" (\(info.kind.rawValue)), rule \(info.ruleName), display \(info.display)")
        case .deviceRemoved(let info, _):
            counts.devicesRemoved += 1
            log.info("device removed: \(info.id.rawValue) \"\(info.name)\"")
        case .routed(let event, let by, _):
            switch event.kind {
            case .touch: counts.touchEvents += 1
            case .key: counts.keyEvents += 1
            case .action: counts.actions += 1
            case .gesture: counts.gestures += 1
            case .text: counts.texts += 1
            case .motion: counts.motions += 1
            }
            if by == nil { counts.unhandled += 1 } else { counts.handled += 1 }
        case .layoutReplaced(_, let cancelled):
            counts.touchesCancelledByReload += cancelled
        case .regionChanged(let path, let change, _, _, let cancelled):
            counts.regionChanges += 1
            counts.touchesCancelledByChanges += cancelled
            log.info("region \(path) \(change.rawValue)" + (cancelled > 0 ? " (\(cancelled) touch(es) cancelled)" : ""))
        case .focus(let screen, let region, let layout, _):
            // Pages change often on a kiosk: debug level (`--verbose`), like the routing itself.
            log.debug("focus: screen \(layout.screens[screen].name) first responder \(region.map { layout.regions[$0].path } ?? "none")")
        case .presentation(let screen, let over, let presented, let layout, _):
            let name = layout.screens[screen].name
            log.debug(presented ? "screen \(name) presented" + (over.map { " over \(layout.screens[$0].name)" } ?? "")
                      : "screen \(name) dismissed" + (over.map { ", \(layout.screens[$0].name) active again" } ?? ""))
        case .gestureState:
            break
        }
        next?.record(record)
    }
}
