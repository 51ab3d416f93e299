@testable import EvrouteCore
import Glibc
import Testing

/// The layout checks stay linear on large layouts (issue 16: `next`-cycle detection on 20,000
/// regions took 20 s, did-you-mean on a 5 MB value 6.9 s and 703 MB).
@Suite("Linear layout checks")
struct LinearChecksTests {
    static func seconds(_ body: () throws -> Void) rethrows -> Double {
        var start = timespec(), end = timespec()
        clock_gettime(CLOCK_MONOTONIC, &start)
        try body()
        clock_gettime(CLOCK_MONOTONIC, &end)
        return Double(end.tv_sec - start.tv_sec) + Double(end.tv_nsec - start.tv_nsec) / 1e9
    }

    /// `count` siblings, each `next` to the one after it (the last to `lastNext`).
    static func chain(_ count: Int, lastNext: String?) -> RegionSpec {
        let kids = (0..<count).map { i in
            region("r\(i)", Double(i % 100), Double(i / 100), 1, 1) { $0.next = i + 1 < count ? "r\(i + 1)" : lastNext }
        }
        return region("root", 0, 0, 1000, 1000, kids)
    }

    @Test func nextChainsOf20000RegionsAreCheckedInLinearTime() throws {
        let t = try Self.seconds { _ = try makeLayout([screen("s", Self.chain(20_000, lastNext: nil))]) }
        print("20,000-region next chain: compiled in \(t) s")
        #expect(t < 10, "\(t) s (quadratic before: ~100 s in a debug build)")
    }

    @Test func aCycleIsOneErrorNotOnePerRegionLeadingIntoIt() throws {
        var errors: [String] = []
        let t = Self.seconds {
            do { _ = try makeLayout([screen("s", Self.chain(20_000, lastNext: "r19990"))]) } catch { errors = (error as? Diagnostics)?.errors.map(\.message) ?? ["\(error)"] }
        }
        #expect(t < 10, "\(t) s")
        // The cycle r19990 → … → r19999 → r19990 is the one cause (every region's chain enters it).
        #expect(errors == ["'next' forms a cycle in the responder chain: s/root/r19990 → s/root/r19991 → s/root/r19992 → s/root/r19993 → s/root/r19994 → … (10 regions) (the chain of each region on it, or leading into it, would never end)"])
    }

    @Test func a20000RegionNextCycleIsOneErrorNamingItsFirstMembersAndLength() throws {
        var errors: [Diagnostic] = []
        do { _ = try makeLayout([screen("s", Self.chain(20_000, lastNext: "r0"))]) } catch { errors = (error as? Diagnostics)?.errors ?? [] }
        #expect(errors.count == 1)
        #expect(errors.first?.message.hasPrefix("'next' forms a cycle in the responder chain: s/root/r0 → s/root/r1 → s/root/r2 → s/root/r3 → s/root/r4 → … (20000 regions)") == true)
    }

    @Test func cyclesAreFoundOnceEach() {
        // 0→1→2→0 (cycle), 3→1 (into it), 4→5 (ends), 6→6 (self), 7 (none).
        let next: [Int?] = [1, 2, 0, 1, 5, nil, 6, nil]
        #expect(LayoutCompiler.cycles(count: next.count) { next[$0] } == [[0, 1, 2], [6]])
        #expect(LayoutCompiler.cycleText(["a", "b"]) == "a → b → a (2 regions)")
    }

    @Test func longRequireToFailChainsAndCyclesAreCheckedQuickly() throws {
        let n = 5000
        var gestures = (0..<n).map { i in GestureSpec(name: "g\(i)", kind: .tap, requireToFail: i + 1 < n ? ["g\(i + 1)"] : []) }
        let t = try Self.seconds { _ = try makeLayout([screen("s", region("root", 0, 0, 1000, 1000) { $0.gestures = gestures })]) }
        #expect(t < 10, "\(t) s")
        gestures[n - 1].requireToFail = ["g\(n - 3)"]
        var errors: [String] = []
        do { _ = try makeLayout([screen("s", region("root", 0, 0, 1000, 1000) { $0.gestures = gestures })]) } catch { errors = (error as? Diagnostics)?.errors.map(\.message) ?? ["\(error)"] }
        #expect(errors == ["'require-to-fail' forms a cycle: g4997 → g4998 → g4999 → g4997 (each would wait for the other to fail)"])
    }

    @Test func presentedOverChainsOf10000ScreensAreCheckedInLinearTime() throws {
        let screens = (0..<10_000).map { i in screen("s\(i)", region("root", 0, 0, 1000, 1000), over: i > 0 ? "s\(i - 1)" : nil) }
        let t = try Self.seconds {
            let layout = try makeLayout(screens)
            let lengths = ResponderChainLengths(layout)
            for s in layout.screens.indices { _ = layout.responderChain(from: .screen(s), limit: 65, lengths: lengths) }
        }
        #expect(t < 10, "\(t) s")
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
            #expect(lengths.length(from: r) == full.count, "\(l.describe(r))")
            for limit in [1, 2, 3, full.count, full.count + 5] {
                let (head, omitted) = l.responderChain(from: r, limit: limit, lengths: lengths)
                #expect(head == Array(full.prefix(limit)))
                #expect(omitted == max(0, full.count - limit))
            }
        }
    }

    @Test func didYouMeanIgnoresHugeWords() {
        let huge = String(repeating: "x", count: 4 << 20)
        let t = Self.seconds { #expect(Spelling.closest(to: huge, in: ["log", "exec", "socket", "process"]) == nil) }
        #expect(t < 1, "\(t) s (6.9 s and 703 MB before for 5 MB)")
        // A huge candidate is never compared either; ordinary typos are still found.
        #expect(Spelling.closest(to: "execc", in: [huge, "exec"]) == "exec")
        #expect(Spelling.closest(to: String(repeating: "a", count: 65), in: [String(repeating: "a", count: 64)]) == nil)
        #expect(Spelling.closest(to: String(repeating: "a", count: 63), in: [String(repeating: "a", count: 64)]) == String(repeating: "a", count: 64))
        #expect(Spelling.closest(to: "scoket", in: ["socket"]) == "socket")
        #expect(Spelling.closest(to: "so", in: ["socket"]) == nil)
    }
}
