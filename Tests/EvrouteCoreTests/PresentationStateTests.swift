import Testing
import EvrouteChecks
@testable import EvrouteCore

/// Presentation stacks on their own: the initial stacks, and the chain generation.
@Suite("Presentation state")
struct PresentationStateTests {
    @Test func initialStackIsTheInitialScreenThenThoseDeclaredOverIt() throws {
        let l = try makeLayout([screen("home", region("a", 0, 0, 1000, 1000)),
                                screen("menu", region("b", 0, 0, 500, 500), over: "home"),
                                screen("dialog", region("c", 0, 0, 200, 200), over: "menu"),
                                screen("other", region("d", 0, 0, 1000, 1000))])
        let s = PresentationState(layout: l)
        expectEqual(s.stacks.map { $0.map { l.screens[$0].name } }, [["home", "menu", "dialog"]])
        expectEqual(s.activeScreen(onDisplay: 0).map { l.screens[$0].name }, "dialog")
        expect(s.activeScreen(onDisplay: 1) == nil)
        expectEqual(s.firstResponders, [nil, nil, nil, nil])
    }

    @Test func everyStackChangeStartsANewGeneration() throws {
        let l = try makeLayout([screen("home", region("a", 0, 0, 1000, 1000)),
                                screen("menu", region("b", 0, 0, 500, 500))])
        var s = PresentationState(layout: l)
        let g = s.generation
        s.stacks[0].append(1)
        expectEqual(s.generation, g &+ 1)
        s.stacks = PresentationState.initialStacks(l)
        expect(s.generation == g &+ 2 && s.stacks == [[0]])
        s.firstResponders[0] = 0
        expectEqual(s.generation, g &+ 2)
    }
}
