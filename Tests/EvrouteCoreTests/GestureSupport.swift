import Testing
@testable import EvrouteCore

/// Root 1000×1000 with a child `pad` [100, 100, 600, 600]; `padGestures` on pad, `rootGestures` on root.
/// Handler `p` on pad takes touches and every gesture named in `padGestures`/`rootGestures`.
func gestureLayout(pad padGestures: [GestureSpec], root rootGestures: [GestureSpec] = [],
                   padHandlers: [HandlerSpec]? = nil, rootHandlers: [HandlerSpec] = []) throws -> Layout {
    let names = (padGestures + rootGestures).map { EventFilter.gesture($0.name) }
    let handlers = padHandlers ?? [HandlerSpec(plugin: "p", on: [.touch] + names)]
    let pad = region("pad", 100, 100, 600, 600, handlers: handlers) { $0.gestures = padGestures }
    let root = region("root", 0, 0, 1000, 1000, [pad], handlers: rootHandlers) { $0.gestures = rootGestures }
    return try makeLayout([screen("s", root)])
}

extension Trace {
    /// Every gesture state change, routed or not, as `name:state`.
    var gestureLog: [String] {
        records.compactMap { r in
            switch r {
            case .routed(let e, _, _):
                if case .gesture(let n, let s) = e.kind { return "\(n):\(s)" }
                return nil
            case .gestureState(let n, let s, let waiting, _, _, _, _):
                return waiting == nil ? "\(n):\(s.rawValue)" : "\(n):waiting-for-\(waiting!)"
            default: return nil
            }
        }
    }

    /// Routed touch phases as `id:phase`.
    var touchLog: [String] { touchEntries.map { "\($0.touch ?? 0):\($0.phase ?? "")" } }

    /// The routed gesture events (with their time in ms, values and who handled them).
    var gestureEvents: [(name: String, state: String, ms: Int64, values: GestureValues?, handledBy: String?)] {
        records.compactMap { r in
            guard case .routed(let e, let by, _) = r, case .gesture(let n, let s) = e.kind else { return nil }
            return (n, s, e.time.microseconds / 1000, e.gesture, by.map { e.layout.describe($0) })
        }
    }
}

extension Router {
    /// One frame with several contacts.
    func frame(_ ms: Int64, _ contacts: [(Int, ContactChange, Double, Double)], device: Int = 1) {
        handle(TouchFrameInput(device: DeviceID(device), time: Timestamp(microseconds: ms * 1000),
                               contacts: contacts.map { ContactSample(contact: $0.0, change: $0.1, location: Point(x: $0.2, y: $0.3)) }))
    }

    func advance(to ms: Int64) { advanceTime(to: Timestamp(microseconds: ms * 1000)) }

    /// A straight one-finger drag from (x0, y0) by (dx, dy) in `steps` frames over `duration` ms.
    func drag(_ contact: Int, from x0: Double, _ y0: Double, by dx: Double, _ dy: Double,
              start: Int64, duration: Int64, steps: Int = 10, lift: Bool = true) {
        touch(contact, .began, x0, y0, at: start)
        for i in 1...steps {
            let f = Double(i) / Double(steps)
            touch(contact, .moved, x0 + dx * f, y0 + dy * f, at: start + duration * Int64(i) / Int64(steps))
        }
        if lift { touch(contact, .ended, x0 + dx, y0 + dy, at: start + duration + 10) }
    }
}
