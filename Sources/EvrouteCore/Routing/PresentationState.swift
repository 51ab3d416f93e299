/// What is presented and focused: per display, its stack of screens, bottom (the active root
/// screen) to top (the presented one); per screen, its first responder region; and the chain
/// generation, bumped whenever something a touch's chain depends on changes — the current
/// layout and the presentation stacks (a touch's own layout, region and handlers never change) —
/// so a touch's cached first taker (``Router/CachedTaker``) is valid only for the generation it
/// was found in.
struct PresentationState {
    /// Per display: screens, bottom to top. Every change starts a new chain generation.
    var stacks: [[Int]] {
        didSet { generation &+= 1 }
    }
    var generation: UInt64 = 0
    /// Per screen: its first responder region, if any.
    var firstResponders: [Int?]

    init(layout: Layout) {
        stacks = PresentationState.initialStacks(layout)
        firstResponders = Array(repeating: nil, count: layout.screens.count)
    }

    /// Each display's initial stack: its initial screen, then the screens declared as presented
    /// over the top one, in chain order.
    static func initialStacks(_ layout: Layout) -> [[Int]] {
        layout.displays.map { d in
            guard let initial = d.initialScreen else { return [] }
            var stack = [initial]
            var top = initial
            while let next = layout.screens.indices.first(where: { layout.screens[$0].presentedOver == top && !stack.contains($0) }) {
                stack.append(next)
                top = next
            }
            return stack
        }
    }

    /// The screen on top of a display, if any (nil for a display out of range too).
    func activeScreen(onDisplay display: Int) -> Int? {
        display < stacks.count ? stacks[display].last : nil
    }
}
