/// The valid range of every number a layout holds (docs/config.md, "Limits"). The config
/// reader checks them where it reads each value (an error at `file:line:col`), the run-time
/// `frame` change where it takes one; within them no arithmetic of the router, the hit-test,
/// the input mapping or the trace can overflow, lose finiteness or trap.
public enum LayoutLimits {
    /// The largest coordinate, size, inset, radius or distance, in display units (either
    /// sign for coordinates and insets). A kiosk display is a few thousand units wide; this
    /// leaves room for any layout and keeps sums of 256 nested frames far from overflow.
    public static let coordinate: Double = 1_000_000
    /// Coordinates and insets: `-coordinate ... coordinate`.
    public static let coordinates: ClosedRange<Double> = -coordinate...coordinate
    /// Sizes, radii and distances: `0 ... coordinate`.
    public static let lengths: ClosedRange<Double> = 0...coordinate
    /// Each entry of a calibration matrix (libinput's are near ±1; the translation is in
    /// multiples of the device's size).
    public static let calibrationEntry: Double = 1_000
    public static let calibrationEntries: ClosedRange<Double> = -calibrationEntry...calibrationEntry
    /// The longest gesture duration (`minimum-duration`, `maximum-duration`), in seconds.
    public static let gestureDuration: Double = 3_600
    /// The most taps a tap gesture may require.
    public static let maximumTaps = 100
    /// The most touches a gesture may require or allow (the most contacts the input layer
    /// tracks per device: EvrouteInput's `TouchProtocol.maximumSlots`).
    public static let maximumGestureTouches = 256

    /// Whether every number of `frame` is in range (x, y: coordinates; width, height: lengths).
    public static func contains(frame f: Rect) -> Bool {
        coordinates.contains(f.minX) && coordinates.contains(f.minY) && lengths.contains(f.width) && lengths.contains(f.height)
    }

    /// A limit as written in messages and docs: `1000000`, `-1000`, `0.5`.
    public static func text(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e15 ? String(Int64(v)) : String(v)
    }
}
