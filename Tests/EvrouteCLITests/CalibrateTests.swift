import Foundation
import EvrouteCore
import EvrouteInput
import EvrouteTestSupport
import Testing
import EvrouteChecks

/// `evroute calibrate --replay`: corner taps synthesized from a known calibration on a real
/// touchscreen's description (Atmel maXTouch, 800×480 device units) must give that calibration
/// back, and the printed values, applied through evroute's own mapping, must put the taps on the
/// corners.
@Suite("evroute calibrate")
struct CalibrateTests {
    static let descriptionPath = recordingsDirectory + "/touchscreens/Atmel maXTouch Touchscreen.desc"

    /// A recording of one-finger taps (protocol B), each a few samples around the device point
    /// that `truth` maps onto the target, 0.5 s apart.
    static func recording(truth: CalibrationMatrix, targets: [(Double, Double)], wobble: Double = 1, clamp: Bool = true) throws -> String {
        let description = try EvemuRecording.loadDescription(path: descriptionPath)
        let xAxis = description.absinfo[AbsCode.mtPositionX]!, yAxis = description.absinfo[AbsCode.mtPositionY]!
        let xSpan = Double(xAxis.maximum - xAxis.minimum + 1), ySpan = Double(yAxis.maximum - yAxis.minimum + 1)
        let det = truth.a * truth.e - truth.b * truth.d
        var events: [InputEvent] = []
        var time: Int64 = 0
        func add(_ type: UInt16, _ code: UInt16, _ value: Int32) {
            events.append(InputEvent(time: Timestamp(microseconds: time), type: type, code: code, value: value))
        }
        for (i, target) in targets.enumerated() {
            // The device's normalized point the true matrix takes to the target.
            let (cx, cy) = (target.0 - truth.c, target.1 - truth.f)
            let nx = (truth.e * cx - truth.b * cy) / det, ny = (truth.a * cy - truth.d * cx) / det
            let x = Int32((nx * xSpan + Double(xAxis.minimum)).rounded()), y = Int32((ny * ySpan + Double(yAxis.minimum)).rounded())
            for (sample, offset) in [(0, Int32(0)), (1, Int32(wobble)), (2, Int32(-wobble)), (3, 0)] {
                if sample == 0 {
                    add(EventType.abs, AbsCode.mtSlot, 0)
                    add(EventType.abs, AbsCode.mtTrackingID, Int32(i + 1))
                }
                add(EventType.abs, AbsCode.mtPositionX, clamp ? min(max(x + offset, xAxis.minimum), xAxis.maximum) : x + offset)
                add(EventType.abs, AbsCode.mtPositionY, clamp ? min(max(y - offset, yAxis.minimum), yAxis.maximum) : y - offset)
                if sample == 0 { add(EventType.key, KeyCode.btnTouch, 1) }
                add(EventType.syn, SynCode.report, 0)
                time += 10_000
            }
            add(EventType.abs, AbsCode.mtTrackingID, -1)
            add(EventType.key, KeyCode.btnTouch, 0)
            add(EventType.syn, SynCode.report, 0)
            time += 500_000
        }
        let path = temporaryPath("calibrate.events")
        writeFile(path, EvemuWriter.write(description: description, events: events))
        return path
    }

    static let corners = CornerCalibration.corners.map { ($0.target.x, $0.target.y) }

    /// The six values of the printed udev rule.
    static func printedMatrix(_ out: String) -> CalibrationMatrix? {
        guard let start = out.range(of: "LIBINPUT_CALIBRATION_MATRIX}=\"") else { return nil }
        let rest = out[start.upperBound...]
        guard let end = rest.firstIndex(of: "\"") else { return nil }
        return CalibrationMatrix(udevProperty: String(rest[..<end]))
    }

    static let truths: [(String, CalibrationMatrix, String?)] = [
        ("skewed", CalibrationMatrix(1.1, 0.02, -0.06, -0.01, 1.08, -0.05), nil),
        ("rotated 90", CalibrationMatrix(0, -1.05, 1.03, 1.04, 0, -0.02), "turns the touches 90° clockwise"),
        ("rotated 180", CalibrationMatrix(-1.06, 0, 1.04, 0, -1.03, 1.02), "turns the touches 180° clockwise"),
        ("rotated 270", CalibrationMatrix(0, 1.02, -0.01, -1.07, 0.01, 1.05), "turns the touches 270° clockwise"),
        ("mirrored", CalibrationMatrix(-1.02, 0, 1.01, 0, 1.03, -0.02), "mirrored"),
    ]

    /// Taps far outside the device's axis range (a recording whose description is not the
    /// device's) are refused, naming the tap and the range, with no calibration printed; taps
    /// a little past the range (within ``CornerCalibration/axisMargin``) are a panel's edge.
    @Test func refusesTapsOutsideTheDevicesAxisRange() throws {
        let description = try EvemuRecording.loadDescription(path: Self.descriptionPath)
        let xAxis = description.absinfo[AbsCode.mtPositionX]!
        // 24 times the range: the panel's corners at 1/24 of the device's span.
        let far = try Self.recording(truth: CalibrationMatrix(1.0 / 24, 0, 0, 0, 1.0 / 24, 0), targets: Self.corners, clamp: false)
        let refused = try runEvroute(["calibrate", "--replay", far])
        expectEqual(refused.status, 1, "\(refused.out)\(refused.err)")
        expect(refused.err.contains("the top right tap is at x "), "\(refused.err)")
        expect(refused.err.contains("outside the device's x axis range \(xAxis.minimum)..\(xAxis.maximum)"), "\(refused.err)")
        expect(!refused.out.contains("calibration: ["), "\(refused.out)")

        // 3 % past the range at the far corners: a calibration.
        let edge = try Self.recording(truth: CalibrationMatrix(0.97, 0, 0, 0, 0.97, 0), targets: Self.corners, clamp: false)
        let taken = try runEvroute(["calibrate", "--replay", edge])
        expectEqual(taken.status, 0, "\(taken.err)")
        expect(taken.out.contains("calibration: ["), "\(taken.out)")
    }

    @Test(arguments: 0..<truths.count)
    func recoversTheMatrixAndRoundTripsThroughTheMapping(_ index: Int) throws {
        let (name, truth, says) = Self.truths[index]
        let path = try Self.recording(truth: truth, targets: Self.corners)
        let r = try runEvroute(["calibrate", "--replay", path])
        expectEqual(r.status, 0, "\(name): \(r.err)")
        for corner in CornerCalibration.corners { expect(r.out.contains("touch the \(corner.name) corner"), "\(name): \(r.out)") }
        expect(r.out.contains("calibration: ["), "\(name): \(r.out)")
        expect(r.out.contains("ATTRS{name}==\"Atmel maXTouch Touchscreen\""), "\(name): \(r.out)")
        if let says { expect(r.out.contains(says), "\(name): \(r.out)") } else { expect(!r.out.contains("turn") && !r.out.contains("mirror"), "\(name): \(r.out)") }
        let printed = try #require(Self.printedMatrix(r.out), "\(name): \(r.out)")
        // The recovered matrix puts every point of the display where the true one does, within 0.5 %.
        for (x, y) in [(0.0, 0.0), (1, 0), (1, 1), (0, 1), (0.5, 0.5), (0.25, 0.75)] {
            let a = printed.apply(x: x, y: y), b = truth.apply(x: x, y: y)
            expect(abs(a.x - b.x) < 0.005 && abs(a.y - b.y) < 0.005, "\(name) at \(x),\(y): \(a) vs \(b)")
        }
        // The printed calibration applied by evroute's own decoder (as a device rule's
        // `calibration:` is) puts each tap on its corner, within 0.5 % of the display.
        let recording = try EvemuRecording.load(path: path)
        let display = Size(width: 1280, height: 800)
        let decoder = TouchDecoder(device: DeviceID(1), description: recording.description, displaySize: display, calibration: printed)
        var ends: [Point] = []
        var last: [Int: Point] = [:]
        for event in recording.events {
            guard let frame = decoder.feed(event) else { continue }
            for c in frame.contacts {
                if c.change == .ended { ends.append(last[c.contact] ?? c.location) } else { last[c.contact] = c.location }
            }
        }
        expectEqual(ends.count, 4)
        for (i, end) in ends.enumerated() where i < 4 {
            let target = Self.corners[i]
            expect(abs(end.x / display.width - target.0) < 0.005 && abs(end.y / display.height - target.1) < 0.005,
                    "\(name): tap \(i) landed at \(end)")
        }
    }

    @Test func withoutCalibrationTheTapsMissTheCorners() throws {
        // The test above can fail: the skewed taps, mapped at identity, are off their corners.
        let truth = Self.truths[0].1
        let path = try Self.recording(truth: truth, targets: Self.corners)
        let recording = try EvemuRecording.load(path: path)
        let decoder = TouchDecoder(device: DeviceID(1), description: recording.description, displaySize: Size(width: 1, height: 1), calibration: .identity)
        var began: [Point] = []
        for event in recording.events {
            if let frame = decoder.feed(event) { began += frame.contacts.filter { $0.change == .began }.map(\.location) }
        }
        expectEqual(began.count, 4)
        expect(abs(began[0].x) > 0.04 && abs(began[2].x - 1) > 0.04)
    }

    @Test func aTapOffItsCornerSaysWhichAndWhatToDo() throws {
        var targets = Self.corners
        targets[2] = (0.6, 0.55)   // the bottom-right tap lands mid-screen
        let path = try Self.recording(truth: .identity, targets: targets)
        let r = try runEvroute(["calibrate", "--replay", path])
        expectEqual(r.status, 1)
        expect(r.err.contains("bottom right") && r.err.contains("run again"), "\(r.err)")
        expect(!r.out.contains("LIBINPUT_CALIBRATION_MATRIX"), "\(r.out)")
    }

    /// `--format json`: the result is one JSON object on standard output — the matrix, the
    /// `calibration:` and udev lines the text prints, the corners used, how they came — with the
    /// prompts on standard error; a refusal is a message on standard error, exit 1, no JSON.
    @Test(arguments: [0, 1, 4])
    func jsonIsTheResultAsOneObject(_ index: Int) throws {
        let (name, truth, _) = Self.truths[index]
        let path = try Self.recording(truth: truth, targets: Self.corners)
        let text = try runEvroute(["calibrate", "--replay", path])
        let r = try runEvroute(["calibrate", "--replay", path, "--format", "json"])
        expectEqual(r.status, 0, "\(name): \(r.err)")
        expect(r.out.hasSuffix("}\n") && r.out.split(separator: "\n").count == 1, "\(name): one line: \(r.out)")
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any], "\(name): \(r.out)")
        expect(r.err.contains("touch the top left corner of the visible area"), "the prompts go to stderr: \(r.err)")

        let textLines = text.out.split(separator: "\n").map(String.init)
        let calibration = try #require(textLines.first { $0.hasPrefix("device rule:  ") }).dropFirst("device rule:  ".count)
        let udev = try #require(textLines.first { $0.hasPrefix("udev rule:    ") }).dropFirst("udev rule:    ".count)
        expectEqual(doc["calibration"] as? String, String(calibration), "\(name): \(doc)")
        expectEqual(doc["udev_rule"] as? String, String(udev), "\(name): \(doc)")
        let printed = try #require(Self.printedMatrix(text.out))
        let matrix = try #require(doc["matrix"] as? [Double])
        expectEqual(matrix, [printed.a, printed.b, printed.c, printed.d, printed.e, printed.f], "\(name): \(matrix)")
        expect(doc["device"] as? String == "Atmel maXTouch Touchscreen" && doc["node"] as? String == path)

        // The corners in the order asked, where each tap was (as the text's prompts say it, to 3 places).
        let corners = try #require(doc["corners"] as? [[String: Any]])
        expectEqual(corners.map { $0["corner"] as? String }, CornerCalibration.corners.map(\.name))
        for corner in corners {
            let x = try #require(corner["x"] as? Double), y = try #require(corner["y"] as? Double)
            expect(textLines.contains("  \(corner["corner"] as! String): \(String((x * 1000).rounded() / 1000)) \(String((y * 1000).rounded() / 1000)) of the panel"),
                    "\(name): \(corner) vs \(text.out)")
        }
        let turned = [0: 0, 1: 90, 4: 0][index]!
        expect(doc["turned"] as? Int == turned && doc["mirrored"] as? Bool == (index == 4), "\(name): \(doc)")
        expectEqual((doc["residual"] as? Double).map { $0 >= 0 && $0 < CornerCalibration.maximumResidual }, true)
    }

    @Test func jsonRefusalIsAMessageOnStandardError() throws {
        var targets = Self.corners
        targets[2] = (0.6, 0.55)
        let path = try Self.recording(truth: .identity, targets: targets)
        let r = try runEvroute(["calibrate", "--replay", path, "--format", "json"])
        expect(r.status == 1 && r.out.isEmpty, "\(r.out)")
        expect(r.err.contains("bottom right") && r.err.contains("run again"), "\(r.err)")
    }

    @Test func deviceAndReplayExcludeEachOther() throws {
        let r = try runEvroute(["calibrate", "--device", "/dev/input/event0", "--replay", "x.events"])
        expect(r.status == 2 && r.err.contains("exclude each other"), "\(r.err)")
    }

    @Test func tapsOnOnePlaceOrTooFewAreRefused() throws {
        let same = try Self.recording(truth: .identity, targets: [(0, 0), (0.02, 0.01), (1, 1), (0, 1)])
        let r = try runEvroute(["calibrate", "--replay", same])
        expectEqual(r.status, 1)
        expect(r.err.contains("top left and top right taps are at the same place"), "\(r.err)")

        let few = try Self.recording(truth: .identity, targets: Array(Self.corners.prefix(3)))
        let f = try runEvroute(["calibrate", "--replay", few])
        expectEqual(f.status, 1)
        expect(f.err.contains("only 3 of 4 corner taps"), "\(f.err)")

        let line = try Self.recording(truth: .identity, targets: [(0, 0), (0.33, 0.33), (0.66, 0.66), (1, 1)])
        let l = try runEvroute(["calibrate", "--replay", line])
        expectEqual(l.status, 1)
        expect(l.err.contains("one line"), "\(l.err)")
    }

    @Test func solverRecoversAnExactMatrix() throws {
        let truth = CalibrationMatrix(0.9, 0.05, 0.03, -0.04, 1.1, -0.02)
        let det = truth.a * truth.e - truth.b * truth.d
        let taps = CornerCalibration.corners.map { corner -> Point in
            let (cx, cy) = (corner.target.x - truth.c, corner.target.y - truth.f)
            return Point(x: (truth.e * cx - truth.b * cy) / det, y: (truth.a * cy - truth.d * cx) / det)
        }
        let result = try CornerCalibration.solve(taps)
        let m = result.matrix
        for (got, want) in zip([m.a, m.b, m.c, m.d, m.e, m.f], [truth.a, truth.b, truth.c, truth.d, truth.e, truth.f]) {
            expect(abs(got - want) < 1e-9)
        }
        expectEqual(result.orientation, .rotated(.none))
        // A panel turned 90° clockwise gives libinput's own example matrix for that turn.
        let turned = CornerCalibration.corners.map { Point(x: $0.target.y, y: 1 - $0.target.x) }
        let r90 = try CornerCalibration.solve(turned)
        expectEqual(CornerCalibration.formatted(r90.matrix), ["0", "-1", "1", "1", "0", "0"])
        expectEqual(r90.orientation, .rotated(.clockwise90))
        expectEqual(CornerCalibration.formatted(CalibrationMatrix(1, 0, -0.0300000001, 0, 1.25, 0)), ["1", "0", "-0.03", "0", "1.25", "0"])
    }
}
