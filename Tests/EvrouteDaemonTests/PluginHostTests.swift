#if canImport(Glibc)
import Glibc
#endif
import Testing
import EvrouteChecks
@testable import EvrouteDaemon
import EvrouteCore
import EvrouteSystem
import EvrouteTestSupport

@Suite("Plugin host")
struct PluginHostTests {
    @Test func logPluginWritesOneLinePerEventAndHandles() throws {
        let rig = try PluginRig(try pluginLayout(PluginSpec(name: "log", type: .log)))
        let id = rig.tap()
        expectEqual(rig.outcomes.began[id], "home/root/button")
        expect(rig.logText.contains("touch \(id) began (50, 50) home/root/button → home/root/button [log] device touch"))
        let s = rig.stats("log")
        expect(s.delivered == 1 && s.handled == 1)
        // `after` (log on the root) took the ended phase.
        expectEqual(rig.stats("after").delivered, 1)
    }

    @Test func statisticsDetailsAreTypedAndKeepTheirStatusNames() {
        var s = PluginStatistics(name: "ui", type: .socket)
        expect(s.details.isEmpty)
        expectEqual(s.description, "ui (socket): delivered 0, handled 0, declined 0")
        s[gauge: .clients] = 0           // a gauge shows once set, also at 0
        s[gauge: .pending] = 2
        s[counter: .lateAnswers] += 1    // a counter shows once counted
        s[counter: .clientsDropped] += 0
        s[gauge: .queuedBytes] = 10
        s[gauge: .peakRunning] = 1
        expectEqual(s.details.map(\.name), ["clients", "late_answers", "peak_running", "pending", "queued_bytes"])
        expect(s[gauge: .pid] == nil && s[counter: .clientsDropped] == 0 && s[counter: .lateAnswers] == 1)
        s.timedOut = 3
        s.lastError = "boom"
        expectEqual(s.description, "ui (socket): delivered 0, handled 0, declined 0, timed out 3, clients 0, late answers 1, peak running 1, pending 2, queued bytes 10; last error: boom")
        s[gauge: .pending] = nil
        expect(!s.details.contains { $0.name == "pending" })
        // One namespace of names, as `status` and docs/plugins.md spell them: a name two types
        // report is of one kind.
        let metrics = PluginTypes.registered.flatMap(\.metrics)
        let kinds = Dictionary(metrics.map { ($0.name, [$0.kind]) }, uniquingKeysWith: +)
        expect(kinds.values.allSatisfy { Set($0).count == 1 })
        expect(metrics.map(\.name).allSatisfy { $0.allSatisfy { $0 == "_" || ("a"..."z").contains($0) } })
    }

    @Test func eventJSONIsTheTraceObjectWithAUniqueID() throws {
        let path = temporaryPath("ui.sock")
        let rig = try PluginRig(try pluginLayout(PluginSpec(name: "ui", type: .socket, options: ["path": .string(path)])))
        let layout = rig.router.layout
        let button = layout.region(path: "home/root/button")!
        let event = RoutedEvent(kind: .key(name: "KEY_ENTER", phase: .down), time: Timestamp(microseconds: 1_500_000),
                                layout: layout, display: 0, start: .region(button), region: button)
        let json = PluginDelivery(event: event, handler: layout.regions[button].handlers[0], responder: .region(button)).jsonLine(id: 42)
        let text = String(decoding: json, as: UTF8.self)
        expectEqual(text, "{\"type\":\"key\",\"time\":1.5,\"device\":null,\"key\":\"KEY_ENTER\",\"phase\":\"down\",\"region\":\"home/root/button\",\"handled_by\":\"home/root/button\",\"handler\":\"ui\",\"id\":42}\n")
    }

    @Test func reloadKeepsUnchangedInstancesAndReplacesChangedOnes() throws {
        let path = temporaryPath("ui.sock")
        let ui = PluginSpec(name: "ui", type: .socket, options: ["path": .string(path)])
        let helperV1 = PluginSpec(name: "helper", type: .process, options: ["command": .list([.string("/bin/sh"), .string("-c"), .string("cat > /dev/null")])])
        let rig = try PluginRig(try pluginLayout(ui, extraPlugins: [helperV1]))
        expect(rig.run(upTo: 5) { rig.stats("helper")[gauge: .running] == 1 })
        let oldHelper = pid_t(rig.stats("helper")[gauge: .pid]!)
        let client = try LineClient(path: path)
        defer { client.close() }
        expect(rig.run(upTo: 5) { rig.stats("ui")[gauge: .clients] == 1 })
        rig.tap()

        // Same socket options, changed helper options.
        var helperV2 = helperV1
        helperV2.options["deadline-ms"] = .number(500)
        try rig.host.reload(layout: try pluginLayout(ui, extraPlugins: [helperV2]))
        expectEqual(rig.stats("ui")[gauge: .clients], 1)     // the same instance, still connected
        expectEqual(rig.stats("ui").delivered, 1)
        expect(rig.run(upTo: 5) { rig.stats("helper")[gauge: .running] == 1 && !processExists(oldHelper) })
        expect(pid_t(rig.stats("helper")[gauge: .pid] ?? 0) != oldHelper)

        // A bad option keeps everything as it was.
        var broken = helperV2
        broken.options["deadline-ms"] = .string("soon")
        #expect(throws: Diagnostics.self) { try rig.host.reload(layout: try pluginLayout(ui, extraPlugins: [broken])) }
        expectEqual(rig.stats("helper")[gauge: .running], 1)

        // Removing the socket plugin closes it and removes its file.
        try rig.host.reload(layout: try pluginLayout(PluginSpec(name: "ui", type: .log), extraPlugins: [helperV2]))
        expect(access(path, F_OK) != 0)
        expectEqual(rig.stats("ui").type, .log)
    }

    @Test func unknownOptionsTypesAreRejected() throws {
        let loop = try EventLoop()
        for bad in [PluginSpec(name: "s", type: .socket),
                    PluginSpec(name: "s", type: .socket, options: ["path": .string("/tmp/x.sock"), "mode": .string("rw")]),
                    PluginSpec(name: "s", type: .socket, options: ["path": .string("/tmp/x.sock"), "on-timeout": .string("maybe")]),
                    PluginSpec(name: "p", type: .process),
                    PluginSpec(name: "p", type: .process, options: ["command": .list([.string("x")]), "deadline-ms": .number(-1)])] {
            _ = loop
            #expect(throws: Diagnostics.self) { try pluginLayout(bad) }
        }
    }

    @Test func answerParsingNeverTrapsOnGarbage() {
        expectEqual(PluginAnswer.parse(Array("{\"id\":7,\"handled\":false}".utf8)[...]), PluginAnswer(id: 7, handled: false))
        expectEqual(PluginAnswer.parse(Array(" { \"handled\" : true , \"note\": {\"a\":[1,2,{\"b\":null}]}, \"id\": 9 } ".utf8)[...]), PluginAnswer(id: 9, handled: true))
        for garbage in ["", "{", "}", "{\"id\":}", "{\"id\":1}", "{\"id\":-1,\"handled\":true}", "{\"id\":1,\"handled\":\"yes\"}",
                        "[1,2]", "{\"id\":99999999999999999999999,\"handled\":true}", "{\"id\":1,\"handled\":true} trailing",
                        String(repeating: "[", count: 10_000), "\u{0}\u{1}\u{ff}"] {
            expect(PluginAnswer.parse(Array(garbage.utf8)[...]) == nil, "\(garbage.prefix(30))")
        }
    }

    /// Not a timed assertion: prints what a dispatch costs, for the report.
    @Test func dispatchCost() throws {
        let path = temporaryPath("ui.sock")
        let rig = try PluginRig(try pluginLayout(PluginSpec(name: "ui", type: .socket, options: ["path": .string(path), "max-buffer": .number(16_000_000)])))
        let client = try LineClient(path: path)
        defer { client.close() }
        expect(rig.run(upTo: 5) { rig.stats("ui")[gauge: .clients] == 1 })
        let layout = rig.router.layout
        let button = layout.region(path: "home/root/button")!
        let handler = layout.handlers[layout.regions[button].handlers[0]]
        let event = RoutedEvent(kind: .key(name: "KEY_A", phase: .down), time: .zero, layout: layout, display: 0, start: .region(button), region: button)
        let n = 2000
        let start = MonotonicClock.now()
        for _ in 0..<n { _ = rig.host.dispatch(event, toHandler: handler.handlerIndex, at: .region(button)) }
        let perEvent = Double((MonotonicClock.now() - start).microseconds) / Double(n)
        print("socket dispatch (JSON + id + write to one client): \(perEvent) µs/event")
        expectEqual(rig.stats("ui").delivered, n)
    }
}
