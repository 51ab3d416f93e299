import Foundation
import Testing
import EvrouteChecks
import EvrouteConfig
import EvrouteCore
import EvrouteInput
@testable import EvrouteRuntime
import EvrouteTestSupport

/// One full-screen region with a recognizer per family; the wide ones (pan, swipe, rotation)
/// recognize together, taps exclude the rest as UIKit does.
let gestureReplayYAML = """
    displays: [{ name: main, size: [1280, 800] }]
    devices:
      - { name: touch, match: { kind: touchscreen }, display: main }
    screens:
      - name: s
        root:
          name: root
          frame: [0, 0, 1280, 800]
          handlers: [{ plugin: log, on: [touch, "gesture:tap1", "gesture:tap1x2", "gesture:tap2", "gesture:tap2x2"] }]
          gestures:
            - { name: tap1, type: tap, require-to-fail: [tap1x2] }
            - { name: tap1x2, type: tap, taps: 2 }
            - { name: tap2, type: tap, touches: 2, require-to-fail: [tap2x2] }
            - { name: tap2x2, type: tap, taps: 2, touches: 2 }
            - { name: pan1, type: pan, touches: 1, maximum-touches: 1, minimum-distance: 30,
                simultaneous-with: [swipe1-left, swipe1-right, swipe1-up, swipe1-down] }
            - { name: pan2, type: pan, touches: 2, maximum-touches: 2, minimum-distance: 30,
                simultaneous-with: [swipe2-left, swipe2-right, swipe2-up, swipe2-down, rotation] }
    \(["left", "right", "up", "down"].map { d in
        let others = ["left", "right", "up", "down"].filter { $0 != d }
        return "        - { name: swipe1-\(d), type: swipe, direction: \(d), minimum-distance: 150, maximum-duration: 3, simultaneous-with: [\(others.map { "swipe1-\($0)" }.joined(separator: ", "))] }\n" +
        "        - { name: swipe2-\(d), type: swipe, touches: 2, direction: \(d), minimum-distance: 150, maximum-duration: 3, simultaneous-with: [\(others.map { "swipe2-\($0)" }.joined(separator: ", ")), rotation] }"
    }.joined(separator: "\n"))
            - { name: rotation, type: rotation }
    """

/// What a recording contains, worked out from its raw events alone (protocol B slots,
/// scaled to the 1280×800 display like libinput): its touch sequences (from a first contact
/// down to all contacts up), their fingers, movement and timing.
struct RawSequences {
    struct Sequence {
        var fingers = 0
        var maxSimultaneous = 0
        var start = 0.0, end = 0.0
        var beganAt: (Double, Double) = (0, 0)
        /// Largest travel of any contact from where it began.
        var maxTravel = 0.0
        var longestContact = 0.0
        /// Largest mean displacement of the contacts down, over frames where exactly k were down (k = 1, 2).
        var maxMean: [Int: Double] = [:]
        /// The dominant direction of that mean displacement when it first reached 150.
        var swipeDirection: [Int: String] = [:]
        /// Rotation of the line between two contacts, accumulated (radians).
        var rotation = 0.0
        var isTap: Bool { maxTravel <= 10 && longestContact <= 0.5 }
    }
    var sequences: [Sequence] = []

    init?(_ r: EvemuRecording) {
        let d = r.description
        guard d.has(3, 0x2f), d.has(3, 0x39), let ax = d.absinfo[0x35], let ay = d.absinfo[0x36] else { return nil }
        func sx(_ v: Int32) -> Double { Double(v - ax.minimum) * 1280 / Double(ax.maximum - ax.minimum + 1) }
        func sy(_ v: Int32) -> Double { Double(v - ay.minimum) * 800 / Double(ay.maximum - ay.minimum + 1) }
        struct Contact { var x: Double?; var y: Double?; var x0: Double?; var y0: Double?; var t0: Double }
        var slot = 0
        var live: [Int: Contact] = [:]
        var raw: [Int: (Int32?, Int32?)] = [:]
        var current: Sequence?
        var lastPair: (Double, Double)?
        for e in r.events {
            let t = e.time.seconds
            switch (e.type, e.code) {
            case (3, 0x2f): slot = Int(e.value)
            case (3, 0x39):
                if e.value >= 0 {
                    live[slot] = Contact(t0: t)
                    raw[slot] = raw[slot] ?? (nil, nil)
                    if current == nil { current = Sequence(); current!.start = t }
                    current!.fingers += 1
                    lastPair = nil
                } else if let c = live.removeValue(forKey: slot) {
                    if var seq = current {
                        seq.longestContact = max(seq.longestContact, t - c.t0)
                        current = seq
                    }
                    lastPair = nil
                }
            case (3, 0x35): raw[slot, default: (nil, nil)].0 = e.value
            case (3, 0x36): raw[slot, default: (nil, nil)].1 = e.value
            case (0, 0):
                guard var seq = current else { continue }
                for (s, var c) in live {
                    if let (rx, ry) = raw[s], let rx, let ry { c.x = sx(rx); c.y = sy(ry) }
                    if c.x0 == nil, let x = c.x, let y = c.y {
                        c.x0 = x; c.y0 = y
                        if seq.fingers == 1 { seq.beganAt = (x, y) }
                    }
                    live[s] = c
                }
                seq.maxSimultaneous = max(seq.maxSimultaneous, live.count)
                var mx = 0.0, my = 0.0
                for c in live.values {
                    guard let x = c.x, let y = c.y, let x0 = c.x0, let y0 = c.y0 else { continue }
                    seq.maxTravel = max(seq.maxTravel, ((x - x0) * (x - x0) + (y - y0) * (y - y0)).squareRoot())
                    mx += (x - x0) / Double(live.count); my += (y - y0) / Double(live.count)
                }
                let k = live.count, mean = (mx * mx + my * my).squareRoot()
                if k == 1 || k == 2 {
                    seq.maxMean[k] = max(seq.maxMean[k] ?? 0, mean)
                    if mean >= 150 && seq.swipeDirection[k] == nil && k == seq.fingers {
                        seq.swipeDirection[k] = abs(mx) >= abs(my) ? (mx >= 0 ? "right" : "left") : (my >= 0 ? "down" : "up")
                    }
                }
                if k == 2 {
                    let cs = Array(live.values).sorted { $0.t0 < $1.t0 }
                    if let x1 = cs[0].x, let y1 = cs[0].y, let x2 = cs[1].x, let y2 = cs[1].y {
                        let v = (x2 - x1, y2 - y1)
                        if let p = lastPair { seq.rotation += atan2(p.0 * v.1 - p.1 * v.0, p.0 * v.0 + p.1 * v.1) }
                        lastPair = v
                    }
                }
                seq.end = t
                if live.isEmpty { sequences.append(seq); current = nil } else { current = seq }
            default: break
            }
        }
        if let current { sequences.append(current) }
    }

    /// Taps paired the way a double-tap recognizer pairs them: a second tap of the same
    /// fingers that begins within 0.35 s of the first's end and 45 units of its start.
    func tapCounts(fingers: Int) -> (single: Int, double: Int) {
        var single = 0, double = 0
        var i = 0
        let s = sequences
        while i < s.count {
            guard s[i].isTap, s[i].fingers == fingers, s[i].maxSimultaneous == fingers else { i += 1; continue }
            if i + 1 < s.count, s[i + 1].isTap, s[i + 1].fingers == fingers, s[i + 1].maxSimultaneous == fingers,
               s[i + 1].start - s[i].end <= 0.35,
               ((s[i + 1].beganAt.0 - s[i].beganAt.0) * (s[i + 1].beganAt.0 - s[i].beganAt.0) +
                (s[i + 1].beganAt.1 - s[i].beganAt.1) * (s[i + 1].beganAt.1 - s[i].beganAt.1)).squareRoot() <= 45 {
                double += 1; i += 2
            } else {
                single += 1; i += 1
            }
        }
        return (single, double)
    }
}

let gestureRecordingNames = ["single-tap-center", "double-tap-center", "2fg-tap", "2fg-double-tap", "single-top-swipe",
                             "double-top-swipe", "single-center-scroll", "double-center-scroll", "single-center-circle",
                             "double-center-circle", "1-finger-drag", "2-finger-scroll", "1-finger-fast-taps"]

@Suite("Gesture recognizers on the real recordings")
struct GestureReplayTests {
    static var files: [String] {
        recordingFiles("touchscreens").filter { p in gestureRecordingNames.contains { p.contains(".\($0)") } }
    }

    @Test func recordingsArePresent() {
        expect(Self.files.count >= 14, "expected the named gesture recordings, found \(Self.files)")
    }

    @Test(arguments: Self.files)
    func recognizersMatchWhatTheRecordingContains(path: String) throws {
        let name = (path as NSString).lastPathComponent
        let recording = try EvemuRecording.load(path: path)
        let (_, layout) = try ConfigLoader.compile(yaml: gestureReplayYAML, file: "gestures.yaml")
        let sink = MemorySink()
        try DryRun(layout: layout, format: .json, sink: sink, errors: MemorySink()).runReplays(paths: [path], descriptionPath: nil)
        let objects = try sink.lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        let gestures = objects.filter { $0["type"] as? String == "gesture" }
        expect(!gestures.isEmpty, "\(name): no gesture at all")
        // Every recognizer settles by the end, whatever the touch protocol.
        var open: [String: String] = [:]
        for g in gestures { open[g["gesture"] as! String] = g["state"] as? String }
        for (g, s) in open { expect(s != "began" && s != "changed", "\(name): \(g) left \(s)") }

        // The raw analysis reads protocol B slots: the two recordings of other protocols (ELAN
        // CANDO's split format, N-Trig's protocol A) have none to compare the counts with.
        guard let raw = RawSequences(recording) else {
            expect(name.hasPrefix("ELAN CANDO Windows7.") || name.hasPrefix("N-Trig MultiTouch."), "\(name) is not a protocol B recording")
            return
        }
        try #require(!raw.sequences.isEmpty)
        func count(_ g: String, _ states: Set<String>) -> Int {
            gestures.filter { $0["gesture"] as? String == g && states.contains($0["state"] as? String ?? "") }.count
        }
        let recognized: Set<String> = ["recognized"], began: Set<String> = ["began"]

        // Taps: single and double, one and two fingers, as many as the raw events pair up.
        let one = raw.tapCounts(fingers: 1), two = raw.tapCounts(fingers: 2)
        expectEqual(count("tap1", recognized), one.single, "\(name): 1-finger single taps")
        expectEqual(count("tap1x2", recognized), one.double, "\(name): 1-finger double taps")
        expectEqual(count("tap2", recognized), two.single, "\(name): 2-finger single taps")
        expectEqual(count("tap2x2", recognized), two.double, "\(name): 2-finger double taps")
        // Taps route: the region's handler took them.
        for g in gestures where (g["gesture"] as? String)?.hasPrefix("tap") == true && g["state"] as? String == "recognized" {
            expectEqual(g["handled_by"] as? String, "s/root")
        }

        // Pans, swipes and rotation: from the displacement of the fingers down.
        for k in [1, 2] {
            let moving = raw.sequences.filter { $0.fingers == k && $0.maxSimultaneous == k }
            let clearlyPans = moving.filter { ($0.maxMean[k] ?? 0) >= 40 }.count
            let clearlyNot = moving.filter { ($0.maxMean[k] ?? 0) < 20 }.count
            if clearlyPans + clearlyNot == moving.count {
                expectEqual(count("pan\(k)", began), clearlyPans, "\(name): \(k)-finger pans")
                expectEqual(count("pan\(k)", ["ended", "cancelled"]), clearlyPans, "\(name): \(k)-finger pans end")
            }
            for dir in ["left", "right", "up", "down"] {
                let expected = moving.filter { $0.swipeDirection[k] == dir && $0.end - $0.start <= 3 && ($0.maxMean[k] ?? 0) >= 170 }.count
                let unclear = moving.contains { ($0.maxMean[k] ?? 0) >= 130 && ($0.maxMean[k] ?? 0) < 170 }
                if !unclear { expectEqual(count("swipe\(k)-\(dir)", recognized), expected, "\(name): \(k)-finger swipes \(dir)") }
            }
            // A swipe or pan with the wrong number of fingers never fires.
            let other = 3 - k
            if raw.sequences.allSatisfy({ $0.fingers == k }) {
                expectEqual(count("pan\(other)", began), 0, "\(name): pan\(other)")
                for dir in ["left", "right", "up", "down"] { expectEqual(count("swipe\(other)-\(dir)", recognized), 0) }
            }
        }
        let turned = raw.sequences.filter { $0.fingers == 2 && abs($0.rotation) >= 0.3 }.count
        let still = raw.sequences.allSatisfy { abs($0.rotation) < 0.1 }
        if turned > 0 { expectEqual(count("rotation", began), turned, "\(name): rotations") }
        if still { expectEqual(count("rotation", began), 0, "\(name): no rotation") }

        // Nothing on a moving sequence is a tap.
        if raw.sequences.allSatisfy({ !$0.isTap }) {
            for g in ["tap1", "tap1x2", "tap2", "tap2x2"] { expectEqual(count(g, recognized), 0, "\(name): \(g)") }
        }
    }

    @Test
    func theNamedRecordingsContainWhatTheirNamesSay() throws {
        // A cross-check of the raw analysis itself on the clearly named recordings.
        func raw(_ suffix: String) throws -> RawSequences {
            let path = try #require(Self.files.first { $0.hasSuffix(".\(suffix).events") })
            return try #require(RawSequences(try EvemuRecording.load(path: path)))
        }
        try expect(try raw("single-tap-center").tapCounts(fingers: 1) == (1, 0))
        try expect(try raw("double-tap-center").tapCounts(fingers: 1) == (0, 1))
        try expect(try raw("2fg-tap").tapCounts(fingers: 2) == (1, 0))
        try expectEqual(try raw("single-top-swipe").sequences.first?.swipeDirection[1], "right")
        try expectEqual(try raw("double-top-swipe").sequences.first?.swipeDirection[2], "right")
        try expectEqual(try raw("single-center-scroll").sequences.first?.swipeDirection[1], "down")
        try expectEqual(try raw("double-center-scroll").sequences.first?.swipeDirection[2], "down")
    }
}
