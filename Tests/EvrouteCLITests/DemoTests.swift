import Foundation
import Testing
import EvrouteChecks
import EvrouteConfig
import EvrouteCore
import EvrouteInput
@testable import EvrouteRuntime
import EvrouteTestSupport

/// The project's demo: config/demo.yaml over demo/touchscreen.events and demo/keyboard.events
/// (written by scripts/make-demo-recordings.py), as `make demo` shows it.
private enum Demo {
    static let repo = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let config = repo.appendingPathComponent("config/demo.yaml").path
    static let touchscreen = repo.appendingPathComponent("demo/touchscreen.events").path
    static let keyboard = repo.appendingPathComponent("demo/keyboard.events").path
    static let script = repo.appendingPathComponent("scripts/make-demo-recordings.py").path

    /// The dry-run JSON trace of the whole demo, one object per line.
    static func trace() throws -> [[String: Any]] {
        let (_, layout) = try ConfigLoader.loadLayout(path: config)
        let sink = MemorySink()
        try DryRun(layout: layout, format: .json, sink: sink, errors: MemorySink())
            .runReplays(paths: [touchscreen, keyboard], descriptionPath: nil)
        return try sink.lines.map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                         "not a JSON object: \(line)")
        }
    }

    /// The trace's touch records, grouped by touch id, in trace order.
    static func touches(_ trace: [[String: Any]]) -> [(id: Int, records: [[String: Any]])] {
        var order: [Int] = []
        var byID: [Int: [[String: Any]]] = [:]
        for r in trace where r["type"] as? String == "touch" {
            let id = r["touch"] as! Int
            if byID[id] == nil { order.append(id) }
            byID[id, default: []].append(r)
        }
        return order.map { ($0, byID[$0]!) }
    }

    /// python3 on PATH, if any.
    static let python3: String? = {
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            let path = "\(dir)/python3"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }()
}

private func string(_ r: [String: Any], _ key: String) -> String? { r[key] as? String }
private func number(_ r: [String: Any], _ key: String) -> Double { (r[key] as? NSNumber)?.doubleValue ?? .nan }

@Suite("Demo layout and recordings")
struct DemoTests {
    @Test func demoConfigPassesCheck() throws {
        let (spec, layout) = try ConfigLoader.loadLayout(path: Demo.config)
        expectEqual(spec.displays.map(\.name), ["main"])
        expectEqual(layout.deviceRules.map(\.name), ["touch", "keys"])
    }

    @Test func bothDevicesAreAddedWithTheirKinds() throws {
        let added = try Demo.trace().filter { string($0, "type") == "device-added" }
        expectEqual(added.map { string($0, "device") }, ["touch", "keys"])
        expectEqual(added.map { string($0, "kind") }, ["touchscreen", "keyboard"])
        expect(added.allSatisfy { string($0, "display") == "main" })
    }

    @Test func traceIsInTimeOrder() throws {
        let times = try Demo.trace().map { number($0, "time") }
        expect(!times.isEmpty)
        expect(zip(times, times.dropFirst()).allSatisfy { $0 <= $1 }, "the merged trace goes back in time")
        expectEqual(times.first, 100.0)
    }

    @Test func everyTouchBeginsOnceEndsOnceAndKeepsItsRegion() throws {
        let touches = Demo.touches(try Demo.trace())
        expectEqual(touches.count, 10)
        for (id, records) in touches {
            let phases = records.map { string($0, "phase") ?? "?" }
            expectEqual(phases.first, "began", "touch \(id): \(phases)")
            expectEqual(phases.filter { $0 == "began" }.count, 1, "touch \(id) began more than once")
            let ends = phases.filter { $0 == "ended" || $0 == "cancelled" }
            expectEqual(ends.count, 1, "touch \(id) ends \(ends.count) times")
            expectEqual(phases.last, ends.first, "touch \(id) has records after its end")
            expectEqual(Set(records.map { string($0, "region") ?? "null" }).count, 1, "touch \(id) changed region")
            expect(records.allSatisfy { string($0, "device") == "touch" })
        }
    }

    @Test func tapsLandOnTheIntendedButtons() throws {
        let taps = try Demo.trace().filter { string($0, "type") == "touch" && $0["tap"] as? Bool == true }
        expectEqual(taps.map { string($0, "region") }, [
            "home/root/header/back", "home/root/header/title", "home/root/header/search",
            "home/root/nav-bar/nav-home", "home/root/nav-bar/nav-info", "home/root/nav-bar/nav-info",
        ])
        expectEqual(taps.map { $0["tap_count"] as? Int }, [1, 1, 1, 1, 1, 2])
        expect(taps.allSatisfy { string($0, "phase") == "ended" })
        // back → the exec handler; title has none → the fallback's log; the rest → the socket.
        expectEqual(taps.map { string($0, "handled_by") }, [
            "home/root/header/back", "fallback", "home/root/header/search",
            "home/root/nav-bar/nav-home", "home/root/nav-bar/nav-info", "home/root/nav-bar/nav-info",
        ])
        expectEqual(taps.map { string($0, "handler") }, ["shell", "log", "ui", "ui", "ui", "ui"])
    }

    @Test func doubleTapCountsTwo() throws {
        let info = Demo.touches(try Demo.trace())
            .filter { string($0.records[0], "region") == "home/root/nav-bar/nav-info" }
        expectEqual(info.count, 2)
        expectEqual(info.map { $0.records.last?["tap_count"] as? Int }, [1, 2])
    }

    @Test func dragStaysBoundToTheSliderAfterLeavingIt() throws {
        let volume = Demo.touches(try Demo.trace())
            .filter { string($0.records[0], "region") == "home/root/content/volume" }
        try #require(volume.count == 1)
        let records = volume[0].records
        expect(records.count > 20)
        // The slider is (840, 140, 400×80) on the display; the drag ends well below it.
        let began = records[0], ended = try #require(records.last)
        expect((140.0..<220.0).contains(number(began, "y")))
        expectEqual(string(ended, "phase"), "ended")
        expect(number(ended, "y") > 400)
        expect(records.filter { number($0, "y") >= 220 }.count > 5, "the drag never left the slider")
        for r in records {
            expectEqual(string(r, "handled_by"), "home/root/content/volume")
            expectEqual(string(r, "handler"), "ui")
        }
        expect(ended["tap"] == nil)
    }

    @Test func twoFingersAreTwoTouchesInTheContentArea() throws {
        let content = Demo.touches(try Demo.trace())
            .filter { string($0.records[0], "region") == "home/root/content" }
        try #require(content.count == 2)
        expect(content[0].id != content[1].id)
        let first = content[0].records, second = content[1].records
        let firstBegan = number(first[0], "time"), secondBegan = number(second[0], "time")
        let firstEnded = number(first.last!, "time"), secondEnded = number(second.last!, "time")
        expect(firstBegan < secondBegan && secondBegan < firstEnded, "the fingers were not down together")
        expect(secondEnded < firstEnded, "released in the same frame, or in the wrong order")
        for r in first + second {
            expectEqual(string(r, "handled_by"), "home/root/content")
            expectEqual(string(r, "handler"), "ui")
        }
    }

    @Test func longPressInTheAdminCorner() throws {
        let corner = Demo.touches(try Demo.trace())
            .filter { string($0.records[0], "region") == "home/root/header/admin-corner" }
        try #require(corner.count == 1)
        let records = corner[0].records
        let held = number(records.last!, "time") - number(records[0], "time")
        // The admin-hold long press cancels the touch exactly 0.8 s in (times parse as doubles).
        expect(held >= 0.8 - 1e-6)
        expect(records.last?["tap"] == nil)
        let xs = records.map { number($0, "x") }, ys = records.map { number($0, "y") }
        expect(xs.max()! - xs.min()! <= 10 && ys.max()! - ys.min()! <= 10, "the finger did not stay still")
        expect(records.filter { string($0, "phase") == "began" }
            .allSatisfy { string($0, "handled_by") == "home/root/header/admin-corner" && string($0, "handler") == "log" })
    }

    @Test func keysGoToTheSearchFieldAfterItWasTapped() throws {
        let trace = try Demo.trace()
        let focus = try #require(trace.first { string($0, "type") == "focus" })
        expectEqual(string(focus, "screen"), "home")
        expectEqual(string(focus, "region"), "home/root/header/search")
        let keys = trace.filter { string($0, "type") == "key" }
        expectEqual(keys.count, 19)
        expect(number(focus, "time") < number(keys[0], "time"))
        for k in keys {
            expectEqual(string(k, "device"), "keys")
            expectEqual(string(k, "region"), "home/root/header/search")
            expectEqual(string(k, "handled_by"), "home/root/header/search")
            expectEqual(string(k, "handler"), "ui")
        }
        expectEqual(keys.filter { string($0, "phase") == "down" }.map { string($0, "key") }, ["KEY_D", "KEY_E", "KEY_M", "KEY_O", "KEY_ENTER"])
        expectEqual(keys.filter { string($0, "phase") == "up" }.count, 5)
        let repeats = keys.filter { string($0, "phase") == "repeat" }
        expectEqual(repeats.count, 9)
        expect(repeats.allSatisfy { string($0, "key") == "KEY_O" })
    }

    @Test func nothingIsUnhandled() throws {
        let routed = try Demo.trace().filter { ["touch", "key"].contains(string($0, "type")) }
        expect(routed.allSatisfy { $0["handled_by"] is String }, "the fallback logs everything")
    }

    @Test(.enabled(if: Demo.python3 != nil, "python3 is not installed"))
    func generatorReproducesTheCommittedRecordings() throws {
        let out = URL(fileURLWithPath: temporaryPath("evroute-demo"))
        defer { try? FileManager.default.removeItem(at: out) }
        let generator = try TestProcess.run(try #require(Demo.python3), [Demo.script, out.path])
        expectEqual(generator.status, 0, "\(generator.err)")
        for name in ["touchscreen.events", "keyboard.events"] {
            let generated = try Data(contentsOf: out.appendingPathComponent(name))
            let committed = try Data(contentsOf: Demo.repo.appendingPathComponent("demo/\(name)"))
            expectEqual(generated, committed, "demo/\(name) differs from what scripts/make-demo-recordings.py writes")
        }
    }
}
