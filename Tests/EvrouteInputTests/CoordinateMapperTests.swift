import EvrouteCore
@testable import EvrouteInput
import Testing
import EvrouteChecks

@Suite("Coordinate mapping")
struct CoordinateMapperTests {
    let x = AbsInfo(minimum: 0, maximum: 799)
    let y = AbsInfo(minimum: 0, maximum: 479)
    let display = Size(width: 1600, height: 960)

    @Test("libinput scaling: (v - min) * size / (max - min + 1)")
    func scaling() {
        let m = CoordinateMapper(xAxis: x, yAxis: y, displaySize: display)
        expectEqual(m.map(x: 0, y: 0), Point(x: 0, y: 0))
        expectEqual(m.map(x: 400, y: 240), Point(x: 800, y: 480))
        expectEqual(m.map(x: 799, y: 479), Point(x: 1598, y: 958))
        let offset = CoordinateMapper(xAxis: AbsInfo(minimum: 100, maximum: 1123), yAxis: AbsInfo(minimum: -50, maximum: 973),
                                      displaySize: Size(width: 1024, height: 512))
        expectEqual(offset.map(x: 100, y: -50), Point(x: 0, y: 0))
        expectEqual(offset.map(x: 612, y: 462), Point(x: 512, y: 256))
        expectEqual(offset.map(x: 1123, y: 973), Point(x: 1023, y: 511.5))
    }

    @Test("Rotation, clockwise, for each angle", arguments: DisplayRotation.allCases)
    func rotation(_ rotation: DisplayRotation) {
        // A square device onto a 1000×500 display: corners and a point off-centre.
        let axis = AbsInfo(minimum: 0, maximum: 99)
        let m = CoordinateMapper(xAxis: axis, yAxis: axis, displaySize: Size(width: 1000, height: 500), rotation: rotation)
        let topLeft = m.map(x: 0, y: 0), point = m.map(x: 25, y: 10)
        switch rotation {
        case .none:
            expectEqual(topLeft, Point(x: 0, y: 0))
            expectEqual(point, Point(x: 250, y: 50))
        case .clockwise90:
            expectEqual(topLeft, Point(x: 1000, y: 0))
            expect(close(point, Point(x: 900, y: 125)))
        case .clockwise180:
            expectEqual(topLeft, Point(x: 1000, y: 500))
            expect(close(point, Point(x: 750, y: 450)))
        case .clockwise270:
            expectEqual(topLeft, Point(x: 0, y: 500))
            expect(close(point, Point(x: 100, y: 375)))
        }
    }

    @Test("Rotation degrees normalize")
    func degrees() {
        expectEqual(DisplayRotation(degrees: -90), .clockwise270)
        expectEqual(DisplayRotation(degrees: 450), .clockwise90)
        expect(DisplayRotation(degrees: 45) == nil)
    }

    @Test("Calibration matrix in normalized coordinates, as LIBINPUT_CALIBRATION_MATRIX")
    func calibration() throws {
        let axis = AbsInfo(minimum: 0, maximum: 99)
        let size = Size(width: 1000, height: 500)
        // libinput's documented 90° clockwise matrix.
        let rotate = try #require(CalibrationMatrix(udevProperty: "0 -1 1 1 0 0"))
        let m = CoordinateMapper(xAxis: axis, yAxis: axis, displaySize: size, calibration: rotate)
        expect(close(m.map(x: 25, y: 10), Point(x: 900, y: 125)))
        // Scale to the left half and shift down by a quarter.
        let squeeze = try #require(CalibrationMatrix(udevProperty: "0.5 0 0 0 1 0.25"))
        let s = CoordinateMapper(xAxis: axis, yAxis: axis, displaySize: size, calibration: squeeze)
        expectEqual(s.map(x: 50, y: 25), Point(x: 250, y: 250))
        // Calibration first (device space), then rotation.
        let both = CoordinateMapper(xAxis: axis, yAxis: axis, displaySize: size, rotation: .clockwise90, calibration: squeeze)
        // normalized (0.5, 0.25) → calibrated (0.25, 0.5) → rotated (0.5, 0.25)
        expectEqual(both.map(x: 50, y: 25), Point(x: 500, y: 125))
    }

    @Test("Calibration property parsing")
    func calibrationParsing() {
        expectEqual(CalibrationMatrix(udevProperty: "1 0 0 0 1 0"), .identity)
        expectEqual(CalibrationMatrix(udevProperty: "  1.5\t0 -0.25 0 1e0 0 "), CalibrationMatrix(1.5, 0, -0.25, 0, 1, 0))
        expect(CalibrationMatrix(udevProperty: "1 0 0 0 1") == nil)
        expect(CalibrationMatrix(udevProperty: "1 0 0 0 1 0 0") == nil)
        expect(CalibrationMatrix(udevProperty: "1 0 x 0 1 0") == nil)
        expect(CalibrationMatrix(udevProperty: "1 0 nan 0 1 0") == nil)
    }

    @Test("Lengths scale with the axes")
    func lengths() {
        let m = CoordinateMapper(xAxis: x, yAxis: y, displaySize: display)
        expectEqual(m.length(10), 20)
        let rotated = CoordinateMapper(xAxis: AbsInfo(minimum: 0, maximum: 99), yAxis: AbsInfo(minimum: 0, maximum: 49),
                                       displaySize: Size(width: 200, height: 400), rotation: .clockwise90)
        expectEqual(rotated.xScale, 4)
        expectEqual(rotated.yScale, 4)
        expectEqual(rotated.length(3), 12)
    }

    @Test("unmap undoes map exactly: forwarding in device units (every rotation, a skewed calibration, odd ranges)")
    func unmapIsExact() throws {
        let skew = try #require(CalibrationMatrix(udevProperty: "0.93 0.04 0.02 -0.03 1.07 -0.05"))
        let axes = [(AbsInfo(minimum: 0, maximum: 799), AbsInfo(minimum: 0, maximum: 479)),
                    (AbsInfo(minimum: -2047, maximum: 2048), AbsInfo(minimum: 12, maximum: 32767))]
        for (ax, ay) in axes {
            for rotation in DisplayRotation.allCases {
                for calibration in [CalibrationMatrix.identity, skew] {
                    let m = CoordinateMapper(xAxis: ax, yAxis: ay, displaySize: Size(width: 1280, height: 800),
                                             rotation: rotation, calibration: calibration)
                    var misses = 0
                    for vx in stride(from: ax.minimum, through: ax.maximum, by: 37) {
                        for vy in stride(from: ay.minimum, through: ay.maximum, by: 41) {
                            let back = m.unmap(m.map(x: vx, y: vy))
                            if back?.x != vx || back?.y != vy { misses += 1 }
                        }
                    }
                    expectEqual(misses, 0, "rotation \(rotation), calibration \(calibration)")
                }
            }
        }
        // A singular calibration cannot be undone: no point rather than a wrong one.
        let flat = CoordinateMapper(xAxis: x, yAxis: y, displaySize: display, calibration: CalibrationMatrix(1, 1, 0, 1, 1, 0))
        expect(flat.unmap(Point(x: 10, y: 10)) == nil)
    }

    @Test("The decoder takes LIBINPUT_CALIBRATION_MATRIX from udev properties")
    func decoderCalibrationFromUdev() throws {
        var d = Devices.protocolB(maxX: 99, maxY: 99)
        d.udevProperties["LIBINPUT_CALIBRATION_MATRIX"] = "0 -1 1 1 0 0"
        let decoder = TouchDecoder(device: DeviceID(1), description: d, displaySize: Size(width: 1000, height: 500))
        expectEqual(decoder.mapper?.calibration, CalibrationMatrix(0, -1, 1, 1, 0, 0))
        var s = EventScript()
        s.id(1); s.position(25, 10); s.syn()
        let frame = try #require(decode(decoder, s.events).first)
        expect(close(frame.contacts.first!.location, Point(x: 900, y: 125)))
    }
}

/// Equal within rounding of a few operations.
func close(_ a: Point, _ b: Point) -> Bool { abs(a.x - b.x) < 1e-9 && abs(a.y - b.y) < 1e-9 }
