import Testing
import EvrouteChecks
@testable import EvrouteDaemon

/// The reload state machine alone (``ReloadCoordinator``): no daemon, no thread, no clock.
/// Clients are strings, a compiled config is its name. (The daemon driving it is tested through
/// the binary: ReloadWorkerTests, DaemonProcessTests.)
@Suite("Reload coordinator")
struct ReloadCoordinatorTests {
    typealias Coordinator = ReloadCoordinator<String, String>

    /// Ends the running compile with a good config that swaps in cleanly.
    static func succeed(_ c: inout Coordinator, _ config: String = "new") -> Coordinator.Finish {
        guard case .swapIn(let compiled) = c.compileEnded(.compiled(config)) else {
            Issue.record("a good compile did not ask for a swap")
            return Coordinator.Finish(outcome: .failed(errors: []), answer: [], startCompile: false)
        }
        expectEqual(compiled, config)
        return c.swapEnded(errors: [])
    }

    @Test func aRequestWithNothingRunningStartsACompile() {
        var c = Coordinator()
        expect(!c.isReloading)
        expectEqual(c.requested(answer: "a"), .startCompile)
        expect(c.isReloading && c.isCompiling && !c.isQueued)
        let finish = Self.succeed(&c)
        expectEqual(finish.outcome, .reloaded(reloads: 1))
        expectEqual(finish.answer, ["a"])
        expect(!finish.startCompile)
        expect(!c.isReloading)
        expect(c.reloads == 1 && c.failedReloads == 0 && c.lastErrors.isEmpty)
    }

    @Test func aStormOfRequestsDuringACompileStartsExactlyOneMore() {
        var c = Coordinator()
        expectEqual(c.requested(answer: nil), .startCompile)   // SIGHUP
        for i in 0..<50 {
            expectEqual(c.requested(answer: i.isMultiple(of: 2) ? "client\(i)" : nil), .queued)
        }
        expect(c.isQueued)
        let first = Self.succeed(&c)
        expect(first.startCompile)
        expect(first.answer.isEmpty)   // the SIGHUP had no client; the storm waits for the next
        expect(c.isCompiling && !c.isQueued)
        let second = Self.succeed(&c)
        expect(!second.startCompile)
        expectEqual(second.answer, (0..<50).filter { $0.isMultiple(of: 2) }.map { "client\($0)" })
        expectEqual(second.outcome, .reloaded(reloads: 2))
        expect(!c.isReloading)
        expectEqual(c.reloads, 2)
    }

    @Test func everyWaitingClientIsAnsweredOnceByTheRightCompile() {
        var c = Coordinator()
        expectEqual(c.requested(answer: "a"), .startCompile)
        expectEqual(c.requested(answer: "b"), .queued)
        expectEqual(c.requested(answer: "c"), .queued)
        let first = Self.succeed(&c, "v1")
        expectEqual(first.answer, ["a"])
        expectEqual(first.outcome, .reloaded(reloads: 1))
        expect(first.startCompile)
        let second = Self.succeed(&c, "v2")
        expectEqual(second.answer, ["b", "c"])
        expectEqual(second.outcome, .reloaded(reloads: 2))
        expect(!second.startCompile)
        // Nothing is left to answer: a stop now tells nobody.
        expect(c.abandon().isEmpty)
    }

    @Test func aFailedCompileChangesNothingAndIsCounted() throws {
        var c = Coordinator()
        expectEqual(c.requested(answer: "a"), .startCompile)
        _ = Self.succeed(&c)
        expectEqual(c.requested(answer: "b"), .startCompile)
        let finish = try #require({ () -> Coordinator.Finish? in
            if case .finished(let finish) = c.compileEnded(.failed(["cfg:1:1: error: bad"])) { return finish } else { return nil }
        }(), "a failed compile asked for a swap")
        expectEqual(finish.outcome, .failed(errors: ["cfg:1:1: error: bad"]))
        expectEqual(finish.answer, ["b"])
        expect(!finish.startCompile)
        expectEqual(c.reloads, 1)
        expectEqual(c.failedReloads, 1)
        expectEqual(c.lastErrors, ["cfg:1:1: error: bad"])
        expect(!c.isReloading)
        // The next good reload clears the errors (the failure stays counted).
        expectEqual(c.requested(answer: nil), .startCompile)
        expectEqual(Self.succeed(&c).outcome, .reloaded(reloads: 2))
        expect(c.lastErrors.isEmpty && c.failedReloads == 1)
    }

    @Test func aRefusedSwapIsAFailureToo() throws {
        var c = Coordinator()
        expectEqual(c.requested(answer: "a"), .startCompile)
        expectEqual(c.requested(answer: "b"), .queued)
        let step = c.compileEnded(.compiled("new"))
        let asksForSwap: Bool = if case .swapIn = step { true } else { false }
        try #require(asksForSwap, "a good compile did not ask for a swap: \(step)")
        let finish = c.swapEnded(errors: ["plugin ui: bad option"])
        expectEqual(finish.outcome, .failed(errors: ["plugin ui: bad option"]))
        expectEqual(finish.answer, ["a"])
        expect(finish.startCompile)   // the queued compile still follows
        expect(c.reloads == 0 && c.failedReloads == 1 && c.lastErrors == ["plugin ui: bad option"])
    }

    @Test func aRequestAfterTheQueuedCompileStartedWaitsForTheNextOne() {
        var c = Coordinator()
        expectEqual(c.requested(answer: "a"), .startCompile)
        expectEqual(c.requested(answer: "b"), .queued)
        let first = Self.succeed(&c)
        expect(first.startCompile)   // the queued compile is running now
        // Asked for after it began: it may have read the file before the change, so "c" waits
        // for one more compile rather than being answered by this one.
        expectEqual(c.requested(answer: "c"), .queued)
        let second = Self.succeed(&c)
        expectEqual(second.answer, ["b"])
        expect(second.startCompile)
        let third = Self.succeed(&c)
        expectEqual(third.answer, ["c"])
        expect(!third.startCompile)
        expectEqual(c.reloads, 3)
    }

    @Test func abandoningTellsEveryWaitingClientAndDropsTheQueue() {
        var c = Coordinator()
        expectEqual(c.requested(answer: "a"), .startCompile)
        expectEqual(c.requested(answer: "b"), .queued)
        expectEqual(c.abandon(), ["a", "b"])
        expect(!c.isReloading)
        expect(c.reloads == 0 && c.failedReloads == 0)
        // A later request starts afresh.
        expectEqual(c.requested(answer: nil), .startCompile)
    }
}
