/// The part of the chain that changes at run time: which screen presents which.
public protocol PresentationLookup {
    /// The screen that presented `screen` (in `layout`), if it is presented.
    func presenter(of screen: Int, in layout: Layout) -> Int?
}

/// No screen is presented over another: the chain as the layout alone defines it.
public struct StaticPresentation: PresentationLookup {
    public init() {}
    public func presenter(of screen: Int, in layout: Layout) -> Int? { layout.screens[screen].presentedOver }
}

extension Layout {
    /// The next responder after `responder`: region → `next` override or parent → … root →
    /// screen → presenting screen (if presented) → display → application → fallback → nil.
    @inline(__always)
    public func nextResponder(after responder: ResponderID, presentation: some PresentationLookup) -> ResponderID? {
        switch responder {
        case .region(let r):
            let node = regions[r]
            if let next = node.next { return next }
            if let parent = node.parent { return .region(parent) }
            return .screen(node.screen)
        case .screen(let s):
            if let p = presentation.presenter(of: s, in: self) { return .screen(p) }
            return .display(screens[s].display)
        case .display: return .application
        case .application: return .fallback
        case .fallback, .motion: return nil
        }
    }

    /// The whole chain from `start`, in order (for `evroute hit` and `tree`).
    public func responderChain(from start: ResponderID, presentation: some PresentationLookup = StaticPresentation()) -> [ResponderID] {
        var out: [ResponderID] = []
        var cur: ResponderID? = start
        var guardCount = 0
        while let c = cur, guardCount <= regions.count + screens.count * 2 + displays.count + 2 {
            out.append(c)
            cur = nextResponder(after: c, presentation: presentation)
            guardCount += 1
        }
        return out
    }

    /// The first handler, walking the chain from `start`, that declares it takes `event` (of
    /// `device`: a handler with `devices:` that does not name its rule is passed by);
    /// `after` skips responders and handlers up to and including that one (to continue a walk
    /// after a handler declined).
    @inline(__always)
    public func firstTaker(of event: EventKind, from start: ResponderID, device: DeviceInfo? = nil,
                           presentation: some PresentationLookup,
                           after skip: HandlerBinding? = nil) -> (responder: ResponderID, handler: HandlerBinding)? {
        firstTaker(of: event, from: start, device: device, presentation: presentation, afterHandler: skip?.index)
            .map { ($0.responder, handlers[$0.handler]) }
    }

    /// ``firstTaker(of:from:device:presentation:after:)`` by handler index (in ``handlers``):
    /// what the router walks and remembers (plain data: no reference to copy). A touch's device
    /// is fixed for its life, so its remembered taker stays right for its moves.
    @inline(__always)
    func firstTaker(of event: EventKind, from start: ResponderID, device: DeviceInfo?, presentation: some PresentationLookup,
                    afterHandler skip: Int?, modifiers: KeyModifiers = []) -> Router.Taker? {
        var cur: ResponderID? = start
        var skipping = skip != nil
        var steps = 0
        let limit = regions.count + screens.count * 2 + displays.count + 3
        while let c = cur, steps < limit {
            for h in handlerIndices(of: c) {
                if skipping {
                    if h == skip! { skipping = false }
                    continue
                }
                if handlers[h].takes(event, of: device, modifiers: modifiers) { return Router.Taker(responder: c, handler: h) }
            }
            cur = nextResponder(after: c, presentation: presentation)
            steps += 1
        }
        return nil
    }
}

/// The length of every responder's chain as the layout alone defines it (no run-time
/// presentation), computed once for all regions and screens in linear time, so that tools can
/// show a long chain in part (``Layout/responderChain(from:limit:lengths:)``) without walking
/// it from every region — chains can be as long as the layout is large (20,000 regions linked
/// by `next`, 10,000 screens presented over one another), and printing each in full is quadratic.
public struct ResponderChainLengths: Sendable {
    let regionLength: [Int]
    let screenLength: [Int]

    public init(_ layout: Layout) {
        // display → application → fallback
        let tailLength = 3
        var screenLength = [Int](repeating: 0, count: layout.screens.count)
        var path: [Int] = []
        for start in layout.screens.indices where screenLength[start] == 0 {
            path.removeAll(keepingCapacity: true)
            var cur: Int? = start
            var rest = tailLength
            // (A compiled layout has no presentation cycle; a walk that meets itself stops.)
            while let s = cur {
                if screenLength[s] > 0 { rest = screenLength[s]; break }
                if screenLength[s] < 0 { break }
                screenLength[s] = -1
                path.append(s)
                cur = layout.screens[s].presentedOver
            }
            for s in path.reversed() { rest += 1; screenLength[s] = rest }
        }
        var regionLength = [Int](repeating: 0, count: layout.regions.count)
        func length(_ responder: ResponderID) -> Int {
            switch responder {
            case .region(let r): regionLength[r]
            case .screen(let s): screenLength[s]
            case .display: tailLength
            case .application: 2
            case .fallback, .motion: 1
            }
        }
        for start in layout.regions.indices where regionLength[start] == 0 {
            path.removeAll(keepingCapacity: true)
            var cur: ResponderID? = .region(start)
            var rest = 0
            while let c = cur {
                guard case .region(let r) = c else { rest = length(c); break }
                if regionLength[r] > 0 { rest = regionLength[r]; break }
                if regionLength[r] < 0 { break }   // (no `next` cycle in a compiled layout)
                regionLength[r] = -1
                path.append(r)
                cur = layout.nextResponder(after: c, presentation: StaticPresentation())
            }
            for r in path.reversed() { rest += 1; regionLength[r] = rest }
        }
        self.regionLength = regionLength
        self.screenLength = screenLength
    }

    /// How many responders the chain from `responder` has, `responder` included.
    public func length(from responder: ResponderID) -> Int {
        switch responder {
        case .region(let r): regionLength[r]
        case .screen(let s): screenLength[s]
        case .display: 3
        case .application: 2
        case .fallback, .motion: 1
        }
    }
}

extension Layout {
    /// The first `limit` responders of the chain from `start` (as the layout alone defines it),
    /// and how many come after them (0 when the chain is no longer than `limit`). Costs
    /// O(`limit`) with `lengths` made once for the layout.
    public func responderChain(from start: ResponderID, limit: Int, lengths: ResponderChainLengths) -> (head: [ResponderID], omitted: Int) {
        var head: [ResponderID] = []
        var cur: ResponderID? = start
        while let c = cur, head.count < limit {
            head.append(c)
            cur = nextResponder(after: c, presentation: StaticPresentation())
        }
        return (head, cur == nil ? 0 : max(0, lengths.length(from: start) - head.count))
    }
}
