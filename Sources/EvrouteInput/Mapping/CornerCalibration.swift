import EvrouteCore

/// `evroute calibrate`: four taps on the corners of the visible area (top left, top right,
/// bottom right, bottom left, in that order) become a ``CalibrationMatrix`` — libinput's
/// `LIBINPUT_CALIBRATION_MATRIX` convention, the one ``CoordinateMapper`` applies.
///
/// Taps are measured in normalized device coordinates (``CoordinateMapper`` at identity with a
/// 1×1 display: `(v - min) / (max - min + 1)`), the space the matrix works in; the matrix is the
/// least-squares affine map of the four taps onto the corners (0, 0), (1, 0), (1, 1), (0, 1),
/// so it corrects offset, scale, skew and a panel mounted turned or mirrored. A rotation
/// shows as the linear part's sign pattern (libinput's 90° clockwise is `0 -1 1 1 0 0`).
public enum CornerCalibration {
    /// The corners in the order they are asked for, with their names for prompts.
    public static let corners: [(name: String, target: (x: Double, y: Double))] = [
        ("top left", (0, 0)), ("top right", (1, 0)), ("bottom right", (1, 1)), ("bottom left", (0, 1)),
    ]

    /// Two taps closer than this (normalized device units) are the same place.
    public static let minimumTapDistance = 0.1
    /// A fit whose worst corner lands farther than this from it (fraction of the display) means a
    /// tap missed its corner.
    public static let maximumResidual = 0.03

    /// How far outside the device's axis range (a fraction of the range) a tap may lie. A
    /// panel's advertised minimum and maximum are nominal: some report their outermost rows a
    /// little past them (libinput then widens its idea of the range), so a tap at the very edge
    /// may read a few percent out. Farther out, the numbers do not describe this panel (a
    /// recording whose description is another device's, a device misreporting its range), and a
    /// matrix made from them would squeeze the panel into a corner of the display.
    public static let axisMargin = 0.05

    /// Why tap `index` (normalized, as ``TapCollector`` measures) is refused: it lies outside the
    /// axis range of `mapper`'s device by more than ``axisMargin``; nil when it is within.
    public static func outOfRange(_ tap: Point, index: Int, mapper: CoordinateMapper) -> String? {
        let lower = -axisMargin, upper = 1 + axisMargin
        for (value, axis, name) in [(tap.x, mapper.xAxis, "x"), (tap.y, mapper.yAxis, "y")] where value < lower || value > upper {
            let span = Double(max(Int64(axis.maximum) - Int64(axis.minimum) + 1, 1))
            let raw = Int64((value * span).rounded()) + Int64(axis.minimum)
            let percent = Int((axisMargin * 100).rounded())
            return "the \(corners[index].name) tap is at \(name) \(raw), outside the device's \(name) axis range \(axis.minimum)..\(axis.maximum) "
                + "(more than \(percent) % of it beyond): the taps are not this panel's (a recording's description of another device, "
                + "or a device misreporting its range); no calibration made"
        }
        return nil
    }

    /// How the touches came relative to the display.
    public enum Orientation: Sendable, Equatable {
        case rotated(DisplayRotation)
        /// One axis runs backwards, or the axes are swapped without a turn.
        case mirrored
    }

    public struct Result: Sendable, Equatable {
        public var matrix: CalibrationMatrix
        public var orientation: Orientation
        /// The worst corner's distance from where the matrix puts its tap, as a fraction of the display.
        public var residual: Double
    }

    /// Why the taps give no matrix, and what to do (one sentence each).
    public enum Problem: Error, Sendable, Equatable, CustomStringConvertible {
        case tooFewTaps(Int)
        case samePlace(Int, Int)
        case degenerate
        case cornerMissed(Int, Double)

        public var description: String {
            switch self {
            case .tooFewTaps(let n):
                return "only \(n) of 4 corner taps arrived: touch each corner in turn (top left, top right, bottom right, bottom left), one finger, lifting between taps"
            case .samePlace(let i, let j):
                return "the \(corners[i].name) and \(corners[j].name) taps are at the same place: touch each corner of the visible area in turn"
            case .degenerate:
                return "the four taps lie on one line: touch the four corners of the visible area, not one edge"
            case .cornerMissed(let i, let off):
                let percent = (off * 1000).rounded() / 10
                return "the taps do not form the display's corners (the \(corners[i].name) tap is \(percent) % of the display off): run again, touching each corner as close to it as you can"
            }
        }
    }

    /// The matrix for four taps in normalized device coordinates, in the order of ``corners``.
    public static func solve(_ taps: [Point]) throws(Problem) -> Result {
        guard taps.count >= 4 else { throw .tooFewTaps(taps.count) }
        let p = Array(taps.prefix(4))
        for i in 0..<4 {
            for j in (i + 1)..<4 {
                let dx = p[i].x - p[j].x, dy = p[i].y - p[j].y
                if (dx * dx + dy * dy).squareRoot() < minimumTapDistance { throw .samePlace(i, j) }
            }
        }
        // Taps on one line (or nearly): no triangle of three of them covers 2 % of the panel.
        var largest = 0.0
        for (i, j, k) in [(0, 1, 2), (0, 1, 3), (0, 2, 3), (1, 2, 3)] {
            let area = abs((p[j].x - p[i].x) * (p[k].y - p[i].y) - (p[k].x - p[i].x) * (p[j].y - p[i].y)) / 2
            largest = max(largest, area)
        }
        guard largest >= 0.02, let matrix = fit(Array(0..<4), p) else { throw .degenerate }
        var worst = (index: 0, distance: 0.0)
        for (i, t) in p.enumerated() {
            let m = matrix.apply(x: t.x, y: t.y)
            let dx = m.x - corners[i].target.x, dy = m.y - corners[i].target.y
            let distance = (dx * dx + dy * dy).squareRoot()
            if distance > worst.distance { worst = (i, distance) }
        }
        if worst.distance > maximumResidual { throw .cornerMissed(missedCorner(p) ?? worst.index, worst.distance) }
        return Result(matrix: matrix, orientation: orientation(of: matrix), residual: worst.distance)
    }

    /// The least-squares affine map of the taps `indices` onto their corners (exact for three);
    /// nil when the taps lie on one line.
    static func fit(_ indices: [Int], _ p: [Point]) -> CalibrationMatrix? {
        // Normal equations, shared by both rows: N·(a, b, c) = r.
        var n = [[Double]](repeating: [0, 0, 0], count: 3)
        var rx = [0.0, 0, 0], ry = [0.0, 0, 0]
        for i in indices {
            let v = [p[i].x, p[i].y, 1]
            for r in 0..<3 {
                for c in 0..<3 { n[r][c] += v[r] * v[c] }
                rx[r] += v[r] * corners[i].target.x
                ry[r] += v[r] * corners[i].target.y
            }
        }
        func det(_ m: [[Double]]) -> Double {
            m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
                - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
                + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
        }
        let d = det(n)
        guard d.isFinite, abs(d) > 1e-12 else { return nil }
        func cramer(_ rhs: [Double]) -> [Double] {
            (0..<3).map { col in
                var m = n
                for r in 0..<3 { m[r][col] = rhs[r] }
                return det(m) / d
            }
        }
        let top = cramer(rx), bottom = cramer(ry)
        return CalibrationMatrix(top[0], top[1], top[2], bottom[0], bottom[1], bottom[2])
    }

    /// With four taps that are no affine image of the corners, residuals alone cannot say
    /// which tap is off (a least-squares fit spreads the error evenly): the corner whose three
    /// others give the squarest map (least shear, most even scale) is the one that missed.
    static func missedCorner(_ p: [Point]) -> Int? {
        var best: (index: Int, score: Double)?
        for i in 0..<4 {
            guard let m = fit((0..<4).filter { $0 != i }, p) else { continue }
            let u = (m.a, m.d), v = (m.b, m.e)
            let lu = (u.0 * u.0 + u.1 * u.1).squareRoot(), lv = (v.0 * v.0 + v.1 * v.1).squareRoot()
            guard lu > 0, lv > 0 else { continue }
            let score = abs(u.0 * v.0 + u.1 * v.1) / (lu * lv) + abs(lu / lv - 1)
            if best == nil || score < best!.score { best = (i, score) }
        }
        return best?.index
    }

    /// The turn (or mirror) the matrix's linear part is closest to.
    public static func orientation(of m: CalibrationMatrix) -> Orientation {
        if abs(m.a) + abs(m.e) >= abs(m.b) + abs(m.d) {
            if m.a > 0 && m.e > 0 { return .rotated(.none) }
            if m.a < 0 && m.e < 0 { return .rotated(.clockwise180) }
        } else {
            if m.b < 0 && m.d > 0 { return .rotated(.clockwise90) }
            if m.b > 0 && m.d < 0 { return .rotated(.clockwise270) }
        }
        return .mirrored
    }

    /// The six values as printed: `calibration: [a, b, c, d, e, f]` and the udev property take
    /// the same numbers, rounded to 6 places (a millionth of the panel is below any panel's resolution).
    public static func formatted(_ m: CalibrationMatrix) -> [String] {
        [m.a, m.b, m.c, m.d, m.e, m.f].map { value in
            let rounded = (value * 1_000_000).rounded() / 1_000_000
            let text = rounded == 0 ? "0" : String(rounded)
            return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
        }
    }

    /// Collects corner taps from decoded touch frames (decoded with a 1×1 display, identity
    /// calibration and no rotation, so locations are normalized device coordinates): a tap is a
    /// single contact from touch-down to lift, at the mean of its samples. A contact that was
    /// cancelled, or was down while another was, is no tap.
    public struct TapCollector: Sendable {
        public private(set) var taps: [Point] = []
        /// Why the last contact was not taken, if it was not (for a prompt).
        public private(set) var rejected: String?
        private var sums: [Int: (x: Double, y: Double, n: Double)] = [:]
        private var crowded = false

        public init() {}

        /// Takes a frame; returns the new tap's index when a contact completed a tap.
        public mutating func feed(_ frame: TouchFrameInput) -> Int? {
            var completed: Int?
            for sample in frame.contacts {
                switch sample.change {
                case .began, .moved:
                    var s = sums[sample.contact] ?? (0, 0, 0)
                    s.x += sample.location.x
                    s.y += sample.location.y
                    s.n += 1
                    sums[sample.contact] = s
                    if sums.count > 1 { crowded = true }
                case .ended, .cancelled:
                    guard let s = sums.removeValue(forKey: sample.contact) else { continue }
                    if sample.change == .cancelled {
                        rejected = "a touch was cancelled (the device dropped events): touch that corner again"
                    } else if crowded {
                        rejected = "more than one finger was down: touch that corner again with one finger"
                    } else if s.n > 0 {
                        rejected = nil
                        taps.append(Point(x: s.x / s.n, y: s.y / s.n))
                        completed = taps.count - 1
                    }
                    if sums.isEmpty { crowded = false }
                }
            }
            return completed
        }
    }
}
