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

    /// The first handler, walking the chain from `start`, that declares it takes `event`;
    /// `after` skips responders and handlers up to and including that one (to continue a walk
    /// after a handler declined).
    @inline(__always)
    public func firstTaker(of event: EventKind, from start: ResponderID,
                           presentation: some PresentationLookup,
                           after skip: HandlerBinding? = nil) -> (responder: ResponderID, handler: HandlerBinding)? {
        var cur: ResponderID? = start
        var skipping = skip != nil
        var steps = 0
        let limit = regions.count + screens.count * 2 + displays.count + 3
        while let c = cur, steps < limit {
            for h in handlerIndices(of: c) {
                if skipping {
                    if h == skip!.index { skipping = false }
                    continue
                }
                let binding = handlers[h]
                if binding.takes(event) { return (c, binding) }
            }
            cur = nextResponder(after: c, presentation: presentation)
            steps += 1
        }
        return nil
    }
}
