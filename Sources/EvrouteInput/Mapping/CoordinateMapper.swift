import EvrouteCore

/// Maps a touch device's absolute coordinates to display coordinates.
///
/// Order, per axis value `v` of an axis `min...max`:
/// 1. normalize: `n = (v - min) / (max - min + 1)` — libinput's scaling, so at identity calibration
///    and no rotation the result is exactly libinput's `(v - min) * size / (max - min + 1)`;
/// 2. calibration matrix on the normalized point — the space libinput applies
///    `LIBINPUT_CALIBRATION_MATRIX` in (it normalizes, multiplies, and un-normalizes around the
///    matrix; scaling to the screen afterwards gives the same numbers as this);
/// 3. rotation of the normalized point (clockwise, see `DisplayRotation`);
/// 4. scale by the display's width and height.
///
/// Calibration comes before rotation because a calibration matrix describes the *device*
/// (it is a udev property of the device, measured on the device's own axes, as libinput
/// applies it), while the rotation describes how that device is mounted on the display.
/// Every call is pure arithmetic: no allocation.
public struct CoordinateMapper: Sendable, Equatable {
    public let xAxis: AbsInfo
    public let yAxis: AbsInfo
    public let displaySize: Size
    public let rotation: DisplayRotation
    public let calibration: CalibrationMatrix

    private let xSpan: Double
    private let ySpan: Double
    /// `!calibration.isIdentity`, decided once rather than per point.
    private let calibrates: Bool

    public init(xAxis: AbsInfo, yAxis: AbsInfo, displaySize: Size,
                rotation: DisplayRotation = .none, calibration: CalibrationMatrix = .identity) {
        self.xAxis = xAxis
        self.yAxis = yAxis
        self.displaySize = displaySize
        self.rotation = rotation
        self.calibration = calibration
        xSpan = Double(max(Int64(xAxis.maximum) - Int64(xAxis.minimum) + 1, 1))
        ySpan = Double(max(Int64(yAxis.maximum) - Int64(yAxis.minimum) + 1, 1))
        calibrates = !calibration.isIdentity
    }

    /// The display point for device coordinates (x, y).
    @inline(__always)
    public func map(x: Int32, y: Int32) -> Point {
        let nx = Double(Int64(x) - Int64(xAxis.minimum)) / xSpan
        let ny = Double(Int64(y) - Int64(yAxis.minimum)) / ySpan
        let calibrated = calibrates ? calibration.apply(x: nx, y: ny) : (x: nx, y: ny)
        let turned = rotation.apply(x: calibrated.x, y: calibrated.y)
        return Point(x: turned.x * displaySize.width, y: turned.y * displaySize.height)
    }

    /// The device coordinates that map to `point` (``map(x:y:)`` undone, rounded to the nearest
    /// device unit): exact for every point ``map(x:y:)`` made, so a touch forwarded in device
    /// units is where the source reported it. Nil when the calibration cannot be
    /// undone (a singular matrix) or the point lies beyond the axes' integers.
    public func unmap(_ point: Point) -> (x: Int32, y: Int32)? {
        let calibrated = rotation.undo(x: point.x / displaySize.width, y: point.y / displaySize.height)
        guard let (nx, ny) = calibrates ? calibration.undo(x: calibrated.x, y: calibrated.y) : calibrated else { return nil }
        let x = (nx * xSpan + Double(xAxis.minimum)).rounded()
        let y = (ny * ySpan + Double(yAxis.minimum)).rounded()
        guard x.isFinite, y.isFinite, abs(x) <= Double(Int32.max), abs(y) <= Double(Int32.max) else { return nil }
        return (Int32(x), Int32(y))
    }

    /// Display units per device unit along the device's x axis (after rotation, that axis may run
    /// along the display's height).
    public var xScale: Double { (rotation.swapsAxes ? displaySize.height : displaySize.width) / xSpan }
    /// Display units per device unit along the device's y axis.
    public var yScale: Double { (rotation.swapsAxes ? displaySize.width : displaySize.height) / ySpan }

    /// A length in device units (e.g. `ABS_MT_TOUCH_MAJOR`) in display units. The contact ellipse
    /// may point any way, so the length is scaled by the geometric mean of the two axis scales
    /// (exact when both axes have the same scale, as on most panels).
    @inline(__always)
    public func length(_ deviceUnits: Int32) -> Double {
        Double(deviceUnits) * (xScale * yScale).squareRoot()
    }
}
