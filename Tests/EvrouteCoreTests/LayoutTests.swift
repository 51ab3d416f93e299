import Testing
import EvrouteChecks
@testable import EvrouteCore

@Suite("Layout compilation and reload")
struct LayoutTests {
    func errors(_ build: () throws -> Layout) -> [String] {
        do { _ = try build(); return [] } catch let e as Diagnostics { return e.errors.map(\.message) } catch { return ["\(error)"] }
    }

    @Test func duplicateRegionNameInAScreen() {
        let e = errors { try makeLayout([screen("s", region("root", 0, 0, 10, 10, [region("a", 0, 0, 1, 1), region("a", 1, 1, 1, 1)]))]) }
        expectEqual(e, ["duplicate region name 'a' in screen 's'"])
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
        expectEqual(e.count, 3)
        expect(e[0].hasPrefix("unknown plugin 'nope'"))
        expect(e[1].hasPrefix("unknown 'next' target 'ghost'"))
        expectEqual(e[2], "'next' forms a cycle in the responder chain: s/root/c → s/root/d → s/root/c (2 regions) (the chain of each region on it, or leading into it, would never end)")
    }

    @Test func pluginKindsAndTheirFamilies() throws {
        // The core names only the routing built-ins; hosted types are the catalog's.
        expectEqual(PluginKind.routingBuiltIns.map(\.rawValue), ["action", "focus", "present", "dismiss"])
        expect(PluginKind.routingBuiltIns.allSatisfy { $0.isRoutingBuiltIn && !$0.isHosted })
        expect(PluginKind("exec").isHosted && PluginKind.exec == "exec")
        expectEqual(stubPluginTypes.typeNames, [.log, .exec, .action, .focus, .present, .dismiss])
        expectEqual(stubPluginTypes.builtInInstances, [.log, .action, .focus, .present, .dismiss])
        expectEqual(PluginTypeTable.routingOnly.builtInInstances, [.action, .focus, .present, .dismiss])
        expectEqual("\(PluginKind.present)", "present")
        // Every kind with a built-in instance can be used undeclared, named like its type.
        let layout = try makeLayout([screen("s", region("root", 0, 0, 10, 10))])
        for kind in stubPluginTypes.typeNames {
            expectEqual(layout.pluginType(of: kind.rawValue), (stubPluginTypes.builtInInstances.contains(kind) ? kind : nil))
        }
        expectEqual(layout.pluginType(of: "p"), .exec)
        // A type the catalog does not know is refused, with a guess among the known ones.
        let e = errors { try Layout.compile(LayoutSpec(displays: [DisplaySpec(name: "main", size: Size(width: 10, height: 10))],
                                                        plugins: [PluginSpec(name: "x", type: "exe")],
                                                        screens: [screen("s", region("root", 0, 0, 10, 10))])) }
        expectEqual(e, ["unknown plugin type 'exe' (expected one of: log, exec, action, focus, present, dismiss); did you mean 'exec'?"])
    }

    @Test func nextToAnAncestorIsACycle() {
        let e = errors { try makeLayout([screen("s", region("root", 0, 0, 10, 10, [
            region("a", 0, 0, 1, 1, [region("b", 0, 0, 1, 1)]) { $0.next = "b" },
        ]))]) }
        expect(e.count == 1 && e[0].contains("cycle"))
    }

    @Test func unknownDisplayAndPresentationErrors() {
        let e = errors { try makeLayout([
            ScreenSpec(name: "s", display: "side", root: region("root", 0, 0, 10, 10)),
            screen("t", region("root", 0, 0, 10, 10), over: "u"),
            screen("u", region("root", 0, 0, 10, 10), over: "t"),
        ]) }
        expect(e.contains { $0.hasPrefix("unknown display 'side'") })
        // One error per cycle.
        expectEqual(e.filter { $0.contains("cycle") }, ["'presented-over' forms a cycle through screen 't': t → u → t (2 screens)"])
    }

    @Test func errorsCarryTheirLocation() {
        var h = handler("nope", .touch)
        h.location = SourceLocation(file: "k.yaml", line: 7, column: 11)
        do {
            _ = try makeLayout([screen("s", region("root", 0, 0, 10, 10, handlers: [h]))])
            Issue.record("expected an error")
        } catch let e as Diagnostics {
            expect(e.description.hasPrefix("k.yaml:7:11: error: unknown plugin 'nope'"))
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
        expectEqual(t.map { "\($0.touch!) \($0.phase!) \($0.region ?? "-") \($0.handler ?? "-")" }, [
            "1 began s/root/a p", "2 began s/root/b -", "2 cancelled s/root/b -",
            "1 moved s/root/a p", "3 began s/root -",
        ])
    }
}
