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
        var handled = 0
        var unhandled = 0
        var devicesAdded = 0
        var devicesRemoved = 0
        var touchesCancelledByReload = 0
    }

    private(set) var counts = Counts()
    /// Per display name, its presentation stack (bottom to top) as far as records tell it.
    private(set) var stacks: [String: [String]] = [:]
    weak var next: RouteObserver?
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
            }
            if by == nil { counts.unhandled += 1 } else { counts.handled += 1 }
        case .presentation(let screen, let over, let presented, let layout, _):
            let name = layout.screens[screen].name
            let display = layout.displays[layout.screens[screen].display].name
            var stack = stacks[display] ?? DaemonObserver.declaredStack(layout, display: layout.screens[screen].display)
            stack.removeAll { $0 == name }
            if presented {
                if let over, let i = stack.firstIndex(of: layout.screens[over].name) { stack.insert(name, at: i + 1) }
                else { stack.append(name) }
            }
            stacks[display] = stack
        case .layoutReplaced(_, let cancelled):
            counts.touchesCancelledByReload += cancelled
        case .focus, .gestureState:
            break
        }
        next?.record(record)
    }

    /// A display's stack at start: its initial screen and the screens declared presented over it.
    static func declaredStack(_ layout: Layout, display: Int) -> [String] {
        guard let initial = layout.displays[display].initialScreen else { return [] }
        var stack = [initial]
        while let next = layout.screens.indices.first(where: { layout.screens[$0].presentedOver == stack.last! && !stack.contains($0) }) {
            stack.append(next)
        }
        return stack.map { layout.screens[$0].name }
    }

    /// After a reload: keep the screens that still exist on their display.
    func layoutChanged(to layout: Layout) {
        var kept: [String: [String]] = [:]
        for (name, stack) in stacks {
            guard let d = layout.display(named: name) else { continue }
            let mapped = stack.filter { s in layout.screen(named: s).map { layout.screens[$0].display == d } ?? false }
            if !mapped.isEmpty { kept[name] = mapped }
        }
        stacks = kept
    }
}
