@testable import EvrouteCore
import Glibc
import Testing
import EvrouteChecks

/// The layout checks stay linear on large layouts (`next`-cycle detection on 20,000
/// regions took 20 s, did-you-mean on a 5 MB value 6.9 s and 703 MB). Counted here (successors
/// asked, gestures searched from, characters compared), not timed; the compile times of these
/// layouts are benchmarks (`make bench`, "Compile: …").
@Suite("Linear layout checks")
struct LinearChecksTests {
    /// `count` siblings, each `next` to the one after it (the last to `lastNext`).
    static func chain(_ count: Int, lastNext: String?) -> RegionSpec {
        let kids = (0..<count).map { i in
            region("r\(i)", Double(i % 100), Double(i / 100), 1, 1) { $0.next = i + 1 < count ? "r\(i + 1)" : lastNext }
        }
        return region("root", 0, 0, 1000, 1000, kids)
    }

    @Test func nextChainsOf20000RegionsAreCheckedInLinearTime() throws {
        let layout = try makeLayout([screen("s", Self.chain(20_000, lastNext: nil))])
        expectEqual(layout.regions.count, 20_001)
    }

    /// The cycle search asks each node's successor once, whatever the chain ends in (it was
    /// quadratic: a walk from every region of a chain).
    @Test(arguments: [nil, 19_990, 0] as [Int?])
    func theCycleSearchAsksEachSuccessorOnce(lastNext: Int?) {
        let n = 20_000
        var asked = 0
        let cycles = LayoutCompiler.cycles(count: n) { i in asked += 1; return i + 1 < n ? i + 1 : lastNext }
        expectEqual(asked, n)
        expectEqual(cycles.count, (lastNext == nil ? 0 : 1))
    }

    @Test func aCycleIsOneErrorNotOnePerRegionLeadingIntoIt() throws {
        var errors: [String] = []
        do { _ = try makeLayout([screen("s", Self.chain(20_000, lastNext: "r19990"))]) } catch { errors = (error as? Diagnostics)?.errors.map(\.message) ?? ["\(error)"] }
        // The cycle r19990 → … → r19999 → r19990 is the one cause (every region's chain enters it).
        expectEqual(errors, ["'next' forms a cycle in the responder chain: s/root/r19990 → s/root/r19991 → s/root/r19992 → s/root/r19993 → s/root/r19994 → … (10 regions) (the chain of each region on it, or leading into it, would never end)"])
    }

    @Test func a20000RegionNextCycleIsOneErrorNamingItsFirstMembersAndLength() throws {
        var errors: [Diagnostic] = []
        do { _ = try makeLayout([screen("s", Self.chain(20_000, lastNext: "r0"))]) } catch { errors = (error as? Diagnostics)?.errors ?? [] }
        expectEqual(errors.count, 1)
        expectEqual(errors.first?.message.hasPrefix("'next' forms a cycle in the responder chain: s/root/r0 → s/root/r1 → s/root/r2 → s/root/r3 → s/root/r4 → … (20000 regions)"), true)
    }

    @Test func cyclesAreFoundOnceEach() {
        // 0→1→2→0 (cycle), 3→1 (into it), 4→5 (ends), 6→6 (self), 7 (none).
        let next: [Int?] = [1, 2, 0, 1, 5, nil, 6, nil]
        expectEqual(LayoutCompiler.cycles(count: next.count) { next[$0] }, [[0, 1, 2], [6]])
        expectEqual(LayoutCompiler.cycleText(["a", "b"]), "a → b → a (2 regions)")
    }

    @Test func longRequireToFailChainsAndCyclesAreCheckedQuickly() throws {
        let n = 5000
        var gestures = (0..<n).map { i in GestureSpec(name: "g\(i)", kind: .tap, requireToFail: i + 1 < n ? ["g\(i + 1)"] : []) }
        _ = try makeLayout([screen("s", region("root", 0, 0, 1000, 1000) { $0.gestures = gestures })])
        gestures[n - 1].requireToFail = ["g\(n - 3)"]
        // The path search runs only from the gestures on a cycle (it ran from each before):
        // three of the 5,000 here.
        var requires: [String: [String]] = [:]
        for g in gestures { requires[g.name] = g.requireToFail }
        expectEqual(LayoutCompiler.namesOnCycles(requires), ["g4997", "g4998", "g4999"])
        var errors: [String] = []
        do { _ = try makeLayout([screen("s", region("root", 0, 0, 1000, 1000) { $0.gestures = gestures })]) } catch { errors = (error as? Diagnostics)?.errors.map(\.message) ?? ["\(error)"] }
        expectEqual(errors, ["'require-to-fail' forms a cycle: g4997 → g4998 → g4999 → g4997 (each would wait for the other to fail)"])
    }

    @Test func presentedOverChainsOf10000ScreensAreCheckedInLinearTime() throws {
        let screens = (0..<10_000).map { i in screen("s\(i)", region("root", 0, 0, 1000, 1000), over: i > 0 ? "s\(i - 1)" : nil) }
        let layout = try makeLayout(screens)
        let lengths = ResponderChainLengths(layout)
        // Each walk stops at its limit: 65 responders, however long the chain (10,003 for the top).
        var walked = 0
        for s in layout.screens.indices { walked += layout.responderChain(from: .screen(s), limit: 65, lengths: lengths).head.count }
        expect(walked <= 65 * layout.screens.count, "\(walked) responders walked")
        let top = layout.responderChain(from: .screen(layout.screens.count - 1), limit: 65, lengths: lengths)
        expect(top.head.count == 65 && top.head.count + top.omitted == 10_003, "\(top.head.count) + \(top.omitted)")
    }

    @Test func chainLengthsAgreeWithTheWalk() throws {
        let l = try makeLayout([
            screen("home", region("root", 0, 0, 1000, 1000, [
                region("a", 0, 0, 10, 10, [region("a1", 0, 0, 5, 5) { $0.next = "b" }]),
                region("b", 20, 0, 10, 10) { $0.next = "screen:menu" },
                region("c", 40, 0, 10, 10) { $0.next = "application" },
            ])),
            screen("menu", region("root", 0, 0, 1000, 1000), over: "home"),
            screen("sheet", region("root", 0, 0, 1000, 1000, [region("x", 0, 0, 1, 1)]), over: "menu"),
        ])
        let lengths = ResponderChainLengths(l)
        var all: [ResponderID] = l.regions.indices.map { .region($0) } + l.screens.indices.map { .screen($0) }
        all += [.display(0), .application, .fallback]
        for r in all {
            let full = l.responderChain(from: r)
            expectEqual(lengths.length(from: r), full.count, "\(l.describe(r))")
            for limit in [1, 2, 3, full.count, full.count + 5] {
                let (head, omitted) = l.responderChain(from: r, limit: limit, lengths: lengths)
                expectEqual(head, Array(full.prefix(limit)))
                expectEqual(omitted, max(0, full.count - limit))
            }
        }
    }

    @Test func didYouMeanIgnoresHugeWords() {
        let huge = String(repeating: "x", count: 4 << 20)
        // Not compared at all (6.9 s and 703 MB before for 5 MB): past the length bound, counted
        // in characters, below; a 65-character word within reach of a 64-character candidate
        // gets no suggestion.
        expect(Spelling.closest(to: huge, in: ["log", "exec", "socket", "process"]) == nil)
        // A huge candidate is never compared either; ordinary typos are still found.
        expectEqual(Spelling.closest(to: "execc", in: [huge, "exec"]), "exec")
        expect(Spelling.closest(to: String(repeating: "a", count: 65), in: [String(repeating: "a", count: 64)]) == nil)
        expectEqual(Spelling.closest(to: String(repeating: "a", count: 63), in: [String(repeating: "a", count: 64)]), String(repeating: "a", count: 64))
        expectEqual(Spelling.closest(to: "scoket", in: ["socket"]), "socket")
        expect(Spelling.closest(to: "so", in: ["socket"]) == nil)
    }
}
