/// A 2×3 affine matrix `[a b c; d e f]` in normalized device coordinates, with the semantics of
/// libinput's `LIBINPUT_CALIBRATION_MATRIX` udev property: a point (x, y) in [0, 1)², measured
/// from the device's minimum along each axis, becomes (a·x + b·y + c, d·x + e·y + f); the
/// translation c, f is in multiples of the device's width and height. Identity is `1 0 0 0 1 0`;
/// `0 -1 1 1 0 0` turns the input 90° clockwise, as in libinput's documentation.
public struct CalibrationMatrix: Hashable, Sendable {
    public var a, b, c, d, e, f: Double

    public init(_ a: Double, _ b: Double, _ c: Double, _ d: Double, _ e: Double, _ f: Double) {
        (self.a, self.b, self.c, self.d, self.e, self.f) = (a, b, c, d, e, f)
    }

    public static let identity = CalibrationMatrix(1, 0, 0, 0, 1, 0)

    /// Parses the udev property's value: six floating-point numbers separated by spaces
    /// (tabs and commas are accepted too). Nil when there are not exactly six numbers, each
    /// within ±1000 (the range a config's `calibration` has, docs/config.md "Limits").
    public init?(udevProperty text: String) {
        var values: [Double] = []
        for token in text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "," || $0 == "\n" }) {
            guard let value = Double(token), value.isFinite, abs(value) <= 1000 else { return nil }
            values.append(value)
        }
        guard values.count == 6 else { return nil }
        self.init(values[0], values[1], values[2], values[3], values[4], values[5])
    }

    public var isIdentity: Bool { self == .identity }

    /// Applies the matrix to a normalized point.
    @inline(__always)
    public func apply(x: Double, y: Double) -> (x: Double, y: Double) {
        (a * x + b * y + c, d * x + e * y + f)
    }

    /// The normalized point `apply(x:y:)` took to (x, y); nil when the matrix cannot be undone
    /// (its linear part is singular).
    public func undo(x: Double, y: Double) -> (x: Double, y: Double)? {
        let det = a * e - b * d
        guard det != 0, det.isFinite else { return nil }
        return ((e * (x - c) - b * (y - f)) / det, (a * (y - f) - d * (x - c)) / det)
    }
}
