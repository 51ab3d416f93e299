import EvrouteCore
import EvrouteJSON

/// `evroute hit`: hit-tests a point on a screen and lists the responder chain with handlers.
public struct HitQuery {
    public let layout: Layout
    public let screen: Int?
    public let display: Int

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Resolves `--screen` / `--display` names (default: the first display, its active screen at start).
    public init(layout: Layout, screen: String?, display: String?) throws(Failure) {
        self.layout = layout
        var d = 0
        if let display {
            guard let i = layout.display(named: display) else {
                throw Failure(description: "unknown display '\(display)' (displays: \(layout.displays.map(\.name).joined(separator: ", ")))")
            }
            d = i
        }
        if let screen {
            guard let s = layout.screen(named: screen) else {
                throw Failure(description: "unknown screen '\(screen)' (screens: \(layout.screens.map(\.name).joined(separator: ", ")))")
            }
            if display != nil, layout.screens[s].display != d {
                throw Failure(description: "screen '\(screen)' is not on display '\(display!)'")
            }
            self.screen = s
            self.display = layout.screens[s].display
        } else {
            guard !layout.displays.isEmpty else { throw Failure(description: "the layout has no display") }
            self.display = d
            // The active screen at start: the top of the initial presentation stack.
            self.screen = Router(layout: layout).activeScreen(onDisplay: d)
        }
    }

    public struct Result {
        public var region: String?
        public var chain: [String]
        /// For each chain link, the handlers attached there (`plugin on kinds`).
        public var handlers: [[String]]

        public var json: String {
            var w = JSONWriter()
            w.beginObject()
            w.field("region", region)
            w.key("chain")
            w.beginArray()
            for c in chain { w.string(c) }
            w.endArray()
            w.endObject()
            return String(decoding: w.bytes, as: UTF8.self)
        }

        public func text(layout: Layout) -> String {
            var out = "region: \(region ?? "none")\nchain:\n"
            for (i, c) in chain.enumerated() {
                out += "  \(i + 1). \(c)"
                if !handlers[i].isEmpty { out += "  [" + handlers[i].joined(separator: "; ") + "]" }
                out += "\n"
            }
            return out
        }
    }

    public func run(_ point: Point) throws(Failure) -> Result {
        let hit = screen.flatMap { layout.hitTest(point, inScreen: $0) }
        let start: ResponderID = hit.map { .region($0) } ?? screen.map { .screen($0) } ?? .display(display)
        // The presentation at start: screens declared `presented-over`.
        let chain = layout.responderChain(from: start, presentation: StaticPresentation())
        return Result(region: hit.map { layout.regions[$0].path },
                      chain: chain.map { layout.describe($0) },
                      handlers: chain.map { r in layout.handlerIndices(of: r).map { h in
                          let b = layout.handlers[h]
                          return "\(b.plugin) on \(b.filters.map(\.description).joined(separator: ","))"
                      } })
    }
}
