import Testing
@testable import EvrouteCore

@Suite("Layout compilation and reload")
struct LayoutTests {
    func errors(_ build: () throws -> Layout) -> [String] {
        do { _ = try build(); return [] } catch let e as LayoutErrors { return e.errors.map(\.message) } catch { return ["\(error)"] }
    }

    @Test func duplicateRegionNameInAScreen() {
        let e = errors { try makeLayout([screen("s", region("root", 0, 0, 10, 10, [region("a", 0, 0, 1, 1), region("a", 1, 1, 1, 1)]))]) }
        #expect(e == ["duplicate region name 'a' in screen 's'"])
    }

    @Test func sameRegionNameInTwoScreensIsFine() throws {
        _ = try makeLayout([screen("s", region("root", 0, 0, 10, 10)), screen("t", region("root", 0, 0, 10, 10))])
    }

    @Test func unknownPluginUnknownNextAndCycles() {
        let e = errors { try makeLayout([screen("s", region("root", 0, 0, 10, 10, [
            region("a", 0, 0, 1, 1, handlers: [handler("nope", .touch)]),
            region("b", 0, 0, 1, 1) { $0.next = "ghost" },
            region("c", 0, 0, 1, 1) { $0.next = "d" },
            region("d", 0, 0, 1, 1) { $0.next = "c" },
        ]))]) }
        #expect(e.count == 3)
        #expect(e[0].hasPrefix("unknown plugin 'nope'"))
        #expect(e[1].hasPrefix("unknown 'next' target 'ghost'"))
        #expect(e[2] == "'next' forms a cycle in the responder chain: s/root/c → s/root/d → s/root/c (2 regions) (the chain of each region on it, or leading into it, would never end)")
    }

    @Test func pluginKindsAndTheirFamilies() throws {
        #expect(PluginKind.allCases.map(\.rawValue) == ["log", "exec", "socket", "process", "action", "focus", "present", "dismiss"])
        #expect(PluginKind.allCases.filter(\.isHosted) == [.log, .exec, .socket, .process])
        #expect(PluginKind.allCases.filter(\.isRoutingBuiltIn) == [.action, .focus, .present, .dismiss])
        #expect(PluginKind.builtInInstances == [.log, .action, .focus, .present, .dismiss])
        #expect("\(PluginKind.process)" == "process")
        // Every kind with a built-in instance can be used undeclared, named like its type.
        let layout = try makeLayout([screen("s", region("root", 0, 0, 10, 10))])
        for kind in PluginKind.allCases {
            #expect(layout.pluginType(of: kind.rawValue) == (kind.hasBuiltInInstance ? kind : nil))
        }
        #expect(layout.pluginType(of: "p") == .exec)
    }

    @Test func nextToAnAncestorIsACycle() {
        let e = errors { try makeLayout([screen("s", region("root", 0, 0, 10, 10, [
            region("a", 0, 0, 1, 1, [region("b", 0, 0, 1, 1)]) { $0.next = "b" },
        ]))]) }
        #expect(e.count == 1 && e[0].contains("cycle"))
    }

    @Test func unknownDisplayAndPresentationErrors() {
        let e = errors { try makeLayout([
            ScreenSpec(name: "s", display: "side", root: region("root", 0, 0, 10, 10)),
            screen("t", region("root", 0, 0, 10, 10), over: "u"),
            screen("u", region("root", 0, 0, 10, 10), over: "t"),
        ]) }
        #expect(e.contains { $0.hasPrefix("unknown display 'side'") })
        // One error per cycle.
        #expect(e.filter { $0.contains("cycle") } == ["'presented-over' forms a cycle through screen 't': t → u → t (2 screens)"])
    }

    @Test func errorsCarryTheirLocation() {
        var h = handler("nope", .touch)
        h.location = SourceLocation(file: "k.yaml", line: 7, column: 11)
        do {
            _ = try makeLayout([screen("s", region("root", 0, 0, 10, 10, handlers: [h]))])
            Issue.record("expected an error")
        } catch let e as LayoutErrors {
            #expect(e.description.hasPrefix("k.yaml:7:11: error: unknown plugin 'nope'"))
        } catch { Issue.record("\(error)") }
    }

    @Test func reloadKeepsActiveTouchesBoundAndCancelsRemovedRegions() throws {
        let old = try makeLayout([screen("s", region("root", 0, 0, 1000, 1000, [
            region("a", 0, 0, 100, 100, handlers: [handler("p", .touch)]),
            region("b", 500, 500, 100, 100),
        ]))])
        let new = try makeLayout([screen("s", region("root", 0, 0, 1000, 1000, [
            region("a", 200, 200, 100, 100, handlers: [handler("q", .touch)]),
        ]))])
        let (r, trace) = makeRouter(old)
        r.touch(0, .began, 50, 50, at: 0)        // a
        r.touch(1, .began, 550, 550, at: 0)      // b
        r.replaceLayout(new, time: Timestamp(microseconds: 10_000))
        r.touch(0, .moved, 60, 60, at: 20)
        r.touch(2, .began, 50, 50, at: 30)       // new layout: a moved away, so root
        let t = trace.touchEntries
        #expect(t.map { "\($0.touch!) \($0.phase!) \($0.region ?? "-") \($0.handler ?? "-")" } == [
            "1 began s/root/a p", "2 began s/root/b -", "2 cancelled s/root/b -",
            "1 moved s/root/a p", "3 began s/root -",
        ])
    }
}
