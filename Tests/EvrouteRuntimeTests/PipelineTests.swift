import Testing
import EvrouteChecks
import EvrouteConfig
import EvrouteCore
import EvrouteRuntime
import EvrouteSystem
import EvrouteTestSupport

/// The pipeline runner: components start in list order and stop in the reverse; a start that
/// throws stops those started before it (not itself, not the later ones); a second stop does nothing.
@Suite("Pipeline runner")
struct PipelineTests {
    struct Refused: Error {}

    /// Notes its start and stop in a shared journal; throws from start when told.
    final class Part: PipelineComponent {
        let name: String
        let journal: Journal
        let fails: Bool
        init(_ name: String, _ journal: Journal, fails: Bool = false) {
            self.name = name
            self.journal = journal
            self.fails = fails
        }
        func start(in pipeline: Pipeline) throws {
            journal.lines.append("start \(name)")
            if fails { throw Refused() }
        }
        func stop() { journal.lines.append("stop \(name)") }
    }

    final class Journal { var lines: [String] = [] }

    /// Stops the pipeline from the loop once it runs.
    final class Ender: PipelineComponent {
        let name = "ender"
        func start(in pipeline: Pipeline) throws {
            pipeline.loop.schedule(after: .milliseconds(0)) { [unowned pipeline] in pipeline.stop() }
        }
        func stop() {}
    }

    static func demoLayout() throws -> Layout {
        try ConfigLoader.loadLayout(path: packageRoot + "/config/demo.yaml").1
    }

    static func pipeline() throws -> Pipeline {
        try Pipeline(session: RoutingSession(layout: try demoLayout()))
    }

    @Test("start in list order, stop in reverse, once")
    func order() throws {
        let journal = Journal()
        let pipeline = try Self.pipeline()
        try pipeline.start([Part("input", journal), Part("control", journal), Part("plugins", journal)])
        expectEqual(pipeline.started.map(\.name), ["input", "control", "plugins"])
        pipeline.stop()
        pipeline.stop()
        expectEqual(journal.lines, ["start input", "start control", "start plugins", "stop plugins", "stop control", "stop input"])
        expect(pipeline.started.isEmpty && pipeline.isStopped)
    }

    @Test("a start that throws: the started ones are stopped in reverse, the rest never start")
    func failedStart() throws {
        let journal = Journal()
        let pipeline = try Self.pipeline()
        #expect(throws: Refused.self) {
            try pipeline.start([Part("a", journal), Part("b", journal), Part("c", journal, fails: true), Part("d", journal)])
        }
        expectEqual(journal.lines, ["start a", "start b", "start c", "stop b", "stop a"])
        expect(pipeline.started.isEmpty)
        pipeline.stop()
        expectEqual(journal.lines.count, 5)
    }

    @Test("a stop during the run ends it, from the loop (a signal's or the replay's end)")
    func stopEndsRun() throws {
        let journal = Journal()
        let pipeline = try Self.pipeline()
        try pipeline.start([Part("input", journal), Ender()])
        var wakeups = 0
        pipeline.loop.addEndOfWakeupHook { wakeups += 1 }
        pipeline.run()
        expectEqual(journal.lines, ["start input", "stop input"])
        expect(wakeups >= 1)
    }
}

/// The one fan-out observer: each record to each member in order; routed events lent only to the
/// members that want them, and wanted at all only when one does.
@Suite("Route fan-out")
struct RouteFanOutTests {
    final class Member: RouteObserver {
        let name: String
        let wantsRouted: Bool
        let journal: PipelineTests.Journal
        init(_ name: String, wantsRouted: Bool, _ journal: PipelineTests.Journal) {
            self.name = name
            self.wantsRouted = wantsRouted
            self.journal = journal
        }
        var observesRoutedEvents: Bool { wantsRouted }
        func record(_ record: RouteRecord) { journal.lines.append("\(name) record") }
        func routed(_ event: RoutedEvent, handledBy responder: ResponderID?, handler: HandlerIndex?) {
            journal.lines.append("\(name) routed")
        }
    }

    @Test("observes routed events iff a member does")
    func wantsRouted() {
        let journal = PipelineTests.Journal()
        expect(!RouteFanOut([Member("log", wantsRouted: false, journal)]).observesRoutedEvents)
        expect(!RouteFanOut([]).observesRoutedEvents)
        expect(RouteFanOut([Member("log", wantsRouted: false, journal), Member("trace", wantsRouted: true, journal)]).observesRoutedEvents)
    }

    @Test("routed events go to the members that want them, in order, and to no other")
    func routedEventsGoToTheMembersThatWantThem() throws {
        let journal = PipelineTests.Journal()
        let layout = try PipelineTests.demoLayout()
        let event = RoutedEvent(kind: .action("go"), time: Timestamp(microseconds: 1), layout: layout)
        let log = Member("log", wantsRouted: false, journal), metrics = Member("metrics", wantsRouted: true, journal)
        RouteFanOut([log, metrics]).routed(event, handledBy: nil, handler: nil)
        expectEqual(journal.lines, ["metrics routed"])
        journal.lines = []
        RouteFanOut([Member("trace", wantsRouted: true, journal), log, metrics]).routed(event, handledBy: nil, handler: nil)
        expectEqual(journal.lines, ["trace routed", "metrics routed"])
    }

    @Test("records to every member in order; routed events through the router to those that want them")
    func forwarding() throws {
        let journal = PipelineTests.Journal()
        let run = DryRun(layout: try PipelineTests.demoLayout(), format: .json, sink: MemorySink(), errors: MemorySink(),
                         observers: [Member("a", wantsRouted: true, journal), Member("b", wantsRouted: false, journal),
                                     Member("c", wantsRouted: true, journal)])
        expect(run.observers.sinks.count == 5 && run.observers.sinks[3] === run.summary && run.observers.sinks[4] === run.report)
        run.observers.record(.layoutReplaced(time: Timestamp(microseconds: 1), cancelledTouches: 0))
        expectEqual(journal.lines, ["a record", "b record", "c record"])
        journal.lines = []
        try run.runReplays(paths: [packageRoot + "/demo/touchscreen.events"], descriptionPath: nil)
        let routed = journal.lines.filter { $0.hasSuffix(" routed") }
        expect(!routed.isEmpty && routed.count == 2 * (run.summary.handled + run.summary.unhandled))
        expect(!routed.contains("b routed"))
        expectEqual(Array(routed.prefix(2)), ["a routed", "c routed"])
    }
}

/// The loop's end-of-wake-up hooks: a list the components add to, run after each wake-up's
/// callbacks in the order added, each once per wake-up.
@Suite("End-of-wake-up hooks")
struct EndOfWakeupHookTests {
    @Test("each hook runs once per wake-up, in the order added; the session timer and the flush add theirs")
    func hooksRunInOrderOncePerWakeup() throws {
        let pipeline = try PipelineTests.pipeline()
        let journal = PipelineTests.Journal()
        pipeline.loop.addEndOfWakeupHook { journal.lines.append("first") }
        pipeline.loop.addEndOfWakeupHook { journal.lines.append("second") }
        pipeline.useSessionTimer()
        pipeline.useSessionTimer()   // one timer, one hook
        expectEqual(pipeline.loop.endOfWakeupHookCount, 3)
        var turns = 0
        func turn() {
            turns += 1
            if turns == 3 { pipeline.stop() } else { pipeline.loop.schedule(after: .milliseconds(0)) { turn() } }
        }
        pipeline.loop.schedule(after: .milliseconds(0)) { turn() }
        pipeline.run(pending: { false }, flush: {}, liveInput: true)
        expectEqual(pipeline.loop.endOfWakeupHookCount, 4)
        expectEqual(journal.lines, Array(repeating: ["first", "second"], count: journal.lines.count / 2).flatMap { $0 })
        expectEqual(journal.lines.count, 2 * pipeline.loop.wakeups)
    }

    @Test("a hook added first runs before every other, leading ones in the order added")
    func leadingHooksRunFirst() throws {
        let pipeline = try PipelineTests.pipeline()
        let journal = PipelineTests.Journal()
        pipeline.loop.addEndOfWakeupHook { journal.lines.append("a") }
        pipeline.loop.addEndOfWakeupHook(first: true) { journal.lines.append("lead 1") }
        pipeline.loop.addEndOfWakeupHook { journal.lines.append("b") }
        pipeline.loop.addEndOfWakeupHook(first: true) { journal.lines.append("lead 2") }
        pipeline.loop.schedule(after: .milliseconds(0)) { pipeline.stop() }
        pipeline.run(pending: { false }, flush: {}, liveInput: false)
        expectEqual(Array(journal.lines.prefix(4)), ["lead 1", "lead 2", "a", "b"])
    }
}
