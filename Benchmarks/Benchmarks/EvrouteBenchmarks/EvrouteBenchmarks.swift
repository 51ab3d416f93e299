import Benchmark
import EvrouteConfig
import EvrouteCore
import EvrouteDaemon
import EvrouteInput
import EvrouteRuntime

// The targets these measure (docs/performance.md#targets):
//   routing core ≥ 5 M touch-moved events/s on one core, no allocation per moved event,
//   hit-test ≤ 1 µs at 1,000 regions and flat-ish at 10,000,
//   replay of a 16,000-event recording in dry-run JSON ≤ 50 ms;
//   and the speed of what the tests bound by counts (alias budget, linear layout checks):
//   a billion-laughs config refused, large layouts compiled, each in milliseconds, not seconds.
// Figures are per *scaled* iteration where a benchmark says `scalingFactor: .kilo`: the
// iteration is a batch of 1,000 events (or hit-tests), and the table shows per-event values.

/// A router on a compiled layout with one touch down, fed moves that alternate between two
/// points (so every move is a real move, never stationary).
final class MoveFixture {
    let router: Router
    let observer = NullObserver()
    let frames: [TouchFrameInput]
    var time: Int64 = 1_000_000
    var turn = 0

    init(layout: Layout, at p: Point) {
        router = Router(layout: layout)
        router.observer = observer
        let device = DeviceID(1)
        router.addDevice(DeviceInfo(id: device, ruleName: "touch", name: "bench", kind: .touchscreen,
                                    display: layout.displays[0].name), time: Timestamp(microseconds: time))
        router.handle(TouchFrameInput(device: device, time: Timestamp(microseconds: time),
                                      contacts: [ContactSample(contact: 0, change: .began, location: p)]))
        frames = [Point(x: p.x + 1, y: p.y), Point(x: p.x, y: p.y + 1)].map {
            TouchFrameInput(device: device, time: Timestamp(microseconds: 0),
                            contacts: [ContactSample(contact: 0, change: .moved, location: $0, pressure: 40)])
        }
    }

    /// Routes `count` moved events.
    @inline(__always)
    func move(_ count: Int) {
        for _ in 0..<count {
            var f = frames[turn]
            turn ^= 1
            time &+= 8_000
            f.time = Timestamp(microseconds: time)
            router.handle(f)
        }
    }
}

let moveMetrics: [BenchmarkMetric] = [.wallClock, .throughput, .instructions, .mallocCountTotal]

let benchmarks: @Sendable () -> Void = {
    // Layouts are checked against libevdev's key names, as the executable does.
    KeyNames.useLibevdev()
    Benchmark.defaultConfiguration = .init(metrics: [.wallClock, .throughput, .mallocCountTotal],
                                           warmupIterations: 3,
                                           maxDuration: .seconds(2),
                                           maxIterations: 100_000)

    // MARK: Routing throughput and allocations

    // kiosk.yaml, a touch in `content/video` (it takes `touch`): the walk stops at the bound region.
    Benchmark("Route moved: kiosk, taken by the bound region",
              configuration: .init(metrics: moveMetrics, scalingFactor: .kilo)) { benchmark in
        let fixture = MoveFixture(layout: Fixtures.kiosk, at: Point(x: 300, y: 300))
        fixture.move(2_000)   // steady state: dictionaries and buffers at their working size
        benchmark.startMeasurement()
        fixture.move(benchmark.scaledIterations.count)
        benchmark.stopMeasurement()
        blackHole(fixture.observer.count)
    }

    // kiosk.yaml, a touch on `header/title` (not interactive → `header`, whose handlers take no
    // touch): the walk goes header → root → screen → display → application → fallback.
    Benchmark("Route moved: kiosk, walked to the fallback",
              configuration: .init(metrics: moveMetrics, scalingFactor: .kilo)) { benchmark in
        let fixture = MoveFixture(layout: Fixtures.kiosk, at: Point(x: 500, y: 50))
        fixture.move(2_000)
        benchmark.startMeasurement()
        fixture.move(benchmark.scaledIterations.count)
        benchmark.stopMeasurement()
        blackHole(fixture.observer.count)
    }

    // Not scaled: the malloc count of one whole batch of 1,000 moves (the target: 0 in steady state).
    Benchmark("Route moved: mallocs per batch of 1,000 moves (kiosk)",
              configuration: .init(metrics: [.mallocCountTotal, .wallClock], maxDuration: .seconds(1))) { benchmark in
        let fixture = MoveFixture(layout: Fixtures.kiosk, at: Point(x: 300, y: 300))
        fixture.move(2_000)
        benchmark.startMeasurement()
        fixture.move(1_000)
        benchmark.stopMeasurement()
        blackHole(fixture.observer.count)
    }

    // A generated 100-region flat layout.
    Benchmark("Route moved: 100 regions, taken by the bound region",
              configuration: .init(metrics: moveMetrics, scalingFactor: .kilo)) { benchmark in
        let fixture = MoveFixture(layout: Fixtures.flatLayout(regions: 100), at: Point(x: 1000, y: 500))
        fixture.move(2_000)
        benchmark.startMeasurement()
        fixture.move(benchmark.scaledIterations.count)
        benchmark.stopMeasurement()
        blackHole(fixture.observer.count)
    }

    // MARK: Hit-testing

    let points = Fixtures.randomPoints(4_096)
    for count in [10, 100, 1_000, 10_000] {
        for (shape, make) in [("flat", Fixtures.flatLayout(regions:)), ("nested", Fixtures.nestedLayout(regions:))] {
            Benchmark("Hit-test: \(count) regions, \(shape)",
                      configuration: .init(metrics: [.wallClock, .instructions, .mallocCountTotal], scalingFactor: .kilo,
                                           maxDuration: .seconds(1))) { benchmark in
                let layout = make(count)
                let screen = 0
                var i = 0
                var sum = 0
                benchmark.startMeasurement()
                for _ in benchmark.scaledIterations {
                    sum &+= layout.hitTest(points[i & 4095], inScreen: screen) ?? -1
                    i &+= 1
                }
                benchmark.stopMeasurement()
                blackHole(sum)
            }
        }
    }

    // MARK: Replay

    let wacom = Fixtures.wacomRecording
    let replayConfig = Benchmark.Configuration(metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .peakMemoryResident],
                                               warmupIterations: 1, maxDuration: .seconds(3), maxIterations: 40)

    // End to end: read and parse the recording, decode, route, write the JSON trace to memory.
    Benchmark("Replay Wacom DTH2242 (16,593 events): parse + route + JSON", configuration: replayConfig) { _ in
        let sink = MemorySink()
        let run = DryRun(layout: Fixtures.kiosk, format: .json, sink: sink, errors: sink)
        do { try run.runReplays(paths: [wacom], descriptionPath: nil) } catch { fatalError("\(error)") }
        blackHole(sink.bytes.count)
    }

    Benchmark("Replay Wacom DTH2242: parse only", configuration: replayConfig) { _ in
        do { blackHole(try EvemuRecording.load(path: wacom).events.count) } catch { fatalError("\(error)") }
    }

    let recording: EvemuRecording
    do { recording = try EvemuRecording.load(path: wacom) } catch { fatalError("\(error)") }

    // What runReplays does after parsing: the merged source, JSON into memory.
    Benchmark("Replay Wacom DTH2242: route + JSON (parsed)", configuration: replayConfig) { _ in
        let sink = MemorySink()
        let run = DryRun(layout: Fixtures.kiosk, format: .json, sink: sink, errors: sink)
        do { try run.run(ReplaySource(recordings: [recording])) } catch { fatalError("\(error)") }
        blackHole(sink.bytes.count)
    }

    // Decoding and routing alone: no trace at all.
    Benchmark("Replay Wacom DTH2242: route only (parsed, no trace)", configuration: replayConfig) { _ in
        let session = RoutingSession(layout: Fixtures.kiosk)
        let observer = NullObserver()
        session.router.observer = observer
        let rules = DeviceRuleMatcher(rules: Fixtures.kiosk.deviceRules)
        for item in ReplaySource(recordings: [recording]) { session.take(item, matching: rules) }
        blackHole(observer.count)
    }

    // MARK: Config and layout limits
    // The tests count these (the alias budget's stopping point, successors asked by the cycle
    // search, responders walked, bytes of `tree`); how fast they go is measured here.

    let limitsConfig = Benchmark.Configuration(metrics: [.wallClock, .mallocCountTotal, .peakMemoryResident],
                                               warmupIterations: 1, maxDuration: .seconds(3), maxIterations: 20)

    // YAMLReaderTests' file: nine levels of ten aliases (10^9 strings in under 1 KB).
    let laughs = Fixtures.billionLaughs
    Benchmark("Config: a billion-laughs file refused", configuration: limitsConfig) { _ in
        do {
            _ = try ConfigLoader.parse(yaml: laughs, file: "laughs.yaml", pluginTypes: PluginTypes.all)
            fatalError("a billion-laughs file was accepted")
        } catch {
            blackHole((error as? Diagnostics)?.errors.count ?? 0)
        }
    }

    // LinearChecksTests' chain: 20,000 sibling regions, each `next` to the one after it.
    let chain = Fixtures.nextChain(regions: 20_000)
    Benchmark("Compile: 20,000-region next chain", configuration: limitsConfig) { _ in
        do { blackHole(try Layout.compile(chain, pluginTypes: PluginTypes.all).regions.count) } catch { fatalError("\(error)") }
    }

    // LargeLayoutCLITests' config: 10,000 screens, each presented over the one before.
    let presented = Fixtures.presentedScreensYAML(10_000)
    Benchmark("Compile: 10,000 presented screens", configuration: limitsConfig) { _ in
        do {
            blackHole(try ConfigLoader.compile(yaml: presented, file: "screens.yaml", pluginTypes: PluginTypes.all).layout.screens.count)
        } catch {
            fatalError("\(error)")
        }
    }
}
