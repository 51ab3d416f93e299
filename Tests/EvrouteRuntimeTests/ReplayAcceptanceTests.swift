import Foundation
import Testing
import EvrouteChecks
import EvrouteConfig
import EvrouteCore
import EvrouteInput
@testable import EvrouteRuntime
import EvrouteTestSupport

/// A 1280×800 display cut into a 4×4 grid of regions, so where a touch begins matters.
let gridLayoutYAML = DaemonLayout.yaml(keyboard: "", screens: """
    - name: s
      root:
        name: root
        frame: [0, 0, 1280, 800]
        regions:
    \((0..<16).map { i in "      - { name: r\(i), frame: [\((i % 4) * 320), \((i / 4) * 200), 320, 200] }" }.joined(separator: "\n"))
    """, blocks: [DaemonLayout.logFallback])

/// Runs a dry-run over recordings and returns the JSON trace objects.
func trace(_ paths: [String], yaml: String = gridLayoutYAML) throws -> (Layout, [[String: Any]]) {
    let (_, layout) = try ConfigLoader.compile(yaml: yaml, file: "grid.yaml")
    let sink = MemorySink()
    try DryRun(layout: layout, format: .json, sink: sink, errors: MemorySink()).runReplays(paths: paths, descriptionPath: nil)
    let objects = try sink.lines.map { line in
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not a JSON object: \(line)")
    }
    return (layout, objects)
}

/// What the raw events say, counted without evroute's decoders: contacts (a tracking ID
/// assigned on protocol B, BTN_TOUCH going down on single-touch) and where each began.
struct IndependentCount {
    var contacts = 0
    var beganAt: [(x: Double, y: Double)] = []

    init(_ recording: EvemuRecording, displayWidth: Double, displayHeight: Double) {
        let d = recording.description
        let mtX = d.absinfo[0x35], mtY = d.absinfo[0x36]
        let slotted = d.has(3, 0x2f) && d.has(3, 0x39)
        func scale(_ v: Int32, _ a: AbsInfo, _ size: Double) -> Double {
            Double(v - a.minimum) * size / Double(a.maximum - a.minimum + 1)
        }
        if slotted, let mtX, let mtY {
            var slot = 0
            var x: [Int: Int32] = [:], y: [Int: Int32] = [:]
            var pending: [Int] = []
            for e in recording.events {
                switch (e.type, e.code) {
                case (3, 0x2f): slot = Int(e.value)
                case (3, 0x39): if e.value >= 0 { contacts += 1; pending.append(slot) }
                case (3, 0x35): x[slot] = e.value
                case (3, 0x36): y[slot] = e.value
                case (0, 0):
                    for s in pending {
                        beganAt.append((scale(x[s] ?? mtX.value, mtX, displayWidth), scale(y[s] ?? mtY.value, mtY, displayHeight)))
                    }
                    pending = []
                default: break
                }
            }
        } else if !d.has(3, 0x35) {
            var down = false
            for e in recording.events where e.type == 1 && e.code == 0x14a {
                if e.value == 1 && !down { contacts += 1 }
                down = e.value == 1
            }
        } else {
            contacts = -1   // protocol A: counted by name below
        }
    }
}

@Suite("Replaying the real recordings")
struct ReplayAcceptanceTests {
    @Test func recordingsArePresent() {
        expectEqual(recordingFiles("touchscreens").count, 26, "\(recordingsDirectory)/touchscreens")
        expectEqual(recordingFiles("keyboards").count, 4, "\(recordingsDirectory)/keyboards")
    }

    @Test(arguments: recordingFiles("touchscreens"))
    func touchscreenRecording(path: String) throws {
        let (layout, objects) = try trace([path])
        let touches = objects.filter { $0["type"] as? String == "touch" }
        var byID: [Int: [[String: Any]]] = [:]
        for t in touches { byID[t["touch"] as! Int, default: []].append(t) }

        let recording = try EvemuRecording.load(path: path)
        let independent = IndependentCount(recording, displayWidth: 1280, displayHeight: 800)
        if independent.contacts >= 0 {
            expectEqual(byID.count, independent.contacts, "touches found vs contacts in the raw events")
        } else if path.contains("N-Trig MultiTouch.2-fingers") {
            expectEqual(byID.count, 2)
        } else if path.contains("N-Trig MultiTouch.1-finger") {
            expectEqual(byID.count, 1)
        }
        expect(!byID.isEmpty)

        let began = touches.filter { $0["phase"] as? String == "began" }
        for (id, phases) in byID {
            let names = phases.map { $0["phase"] as! String }
            expectEqual(names.first, "began", "touch \(id) starts with began")
            expectEqual(names.filter { $0 == "began" }.count, 1, "touch \(id) begins once")
            expectEqual(names.filter { $0 == "ended" || $0 == "cancelled" }.count, 1, "touch \(id) ends exactly once")
            expect(names.last == "ended" || names.last == "cancelled", "touch \(id) ends last")
            let regions = Set(phases.map { ($0["region"] as? String) ?? "null" })
            expectEqual(regions.count, 1, "touch \(id) keeps its region: \(regions)")
            // Where it began: the region hit-testing gives at the began location.
            let first = phases[0]
            let p = Point(x: first["x"] as! Double, y: first["y"] as! Double)
            let expected = layout.hitTest(p, inScreen: 0).map { layout.regions[$0].path }
            expectEqual(first["region"] as? String, expected)
        }
        // Protocol B: the began locations are the raw events' positions, scaled as libinput does.
        if !independent.beganAt.isEmpty {
            expectEqual(began.count, independent.beganAt.count)
            for (b, raw) in zip(began, independent.beganAt) {
                expect(abs((b["x"] as! Double) - raw.x) < 0.001 && abs((b["y"] as! Double) - raw.y) < 0.001,
                        "began at \(b["x"]!),\(b["y"]!) vs raw \(raw)")
            }
        }
        // The device is added first and removed last.
        expectEqual(objects.first?["type"] as? String, "device-added")
        expectEqual(objects.last?["type"] as? String, "device-removed")
    }

    @Test(arguments: recordingFiles("keyboards"))
    func keyboardRecording(path: String) throws {
        let (_, objects) = try trace([path])
        let recording = try EvemuRecording.load(path: path)
        let keys = objects.filter { $0["type"] as? String == "key" }
        let downs = recording.events.filter { $0.type == 1 && $0.value == 1 }.count
        expectEqual(keys.filter { $0["phase"] as? String == "down" }.count, downs)
        // Every down is matched by exactly one up or cancel, per key.
        var held: [String: Int] = [:]
        for k in keys {
            let name = k["key"] as! String
            switch k["phase"] as! String {
            case "down": held[name, default: 0] += 1
            case "up", "cancelled": held[name, default: 0] -= 1
            default: break
            }
            expect((held[name] ?? 0) >= 0 && (held[name] ?? 0) <= 1, "\(name) balance")
        }
        expect(held.values.allSatisfy { $0 == 0 }, "no key stays held after the replay")
        expect(keys.allSatisfy { $0["handled_by"] as? String == "fallback" })
    }

    @Test func mergedReplaysAreOrderedByTime() throws {
        let files = recordingFiles("touchscreens").filter { $0.contains("Wacom ISDv4 E6 Finger.single-tap") } +
            recordingFiles("keyboards").filter { $0.contains("K400") }
        try #require(files.count == 2, "recordings missing")
        let (_, objects) = try trace(files)
        let times = objects.compactMap { $0["time"] as? Double }
        expectEqual(times, times.sorted())
        expectEqual(objects.filter { $0["type"] as? String == "device-added" }.count, 2)
    }

    @Test func malformedRecordingNamesTheLine() throws {
        let dir = URL(fileURLWithPath: temporaryPath("evroute-bad"))
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let file = dir.appendingPathComponent("bad.events").path
        let text = """
            # EVEMU 1.3
            N: Bad
            I: 0003 0001 0002 0001
            P: 02 00 00 00 00 00 00 00
            B: 00 0b 00 00 00 00 00 00 00
            E: 0.000001 0003 0039 1
            E: 0.000002 zz 0000 0

            """
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        do {
            _ = try trace([file])
            Issue.record("a malformed recording must fail")
        } catch {
            expect("\(error)".contains("bad.events:7"), "error names the line: \(error)")
        }
    }
}
