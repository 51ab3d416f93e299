import EvrouteCore

/// An accelerometer's input stage (docs/config.md, motion): decodes its axes into samples
/// (``MotionDecoder``) and makes of each sample what the router routes, ``MotionSignals``:
/// at most `motion.rate` samples a second, orientation changes (with hysteresis) and shakes.
/// The device's chain runs it before the router; the router only routes what it returns (a
/// shake from the first responder up the chain, the rest to the `motion:` handlers).
///
/// Event time only: a sample's time is its `SYN_REPORT`'s. A shake lasts until its deadline
/// (the window after its last jolt) passes in event time; the router ends it there (its timer),
/// and the stage counts it over from the first sample at or after the deadline — the same
/// instant, since the router moves its time to a sample's before it routes it.
///
/// A reference: the session checks whether a device has one at every event.
public final class MotionStage {
    public private(set) var decoder: MotionDecoder
    /// When a sample last went out (for `motion.rate`).
    private var lastDelivered: Timestamp?
    private var orientation: Orientation?
    /// Whether the previous sample was a jolt.
    private var inJolt = false
    /// Gravity as the last calm sample measured it (jolts are measured against it).
    private var gravity: (x: Double, y: Double, z: Double)?
    /// Which way the last jolt pushed (its acceleration less gravity).
    private var lastPush: (x: Double, y: Double, z: Double)?
    /// Jolt onsets within the shake window, oldest first.
    private var onsets: [Timestamp] = []
    /// The end of the shake in progress, if any.
    private var shakeDeadline: Timestamp?

    /// Jolt onsets within the window that begin a shake.
    public static let shakeOnsets = 3

    public init(decoder: MotionDecoder) {
        self.decoder = decoder
    }

    /// Feeds one raw event; the signals of the sample its `SYN_REPORT` completes, if any (with
    /// `spec`, the current layout's `motion:` section).
    @inline(__always)
    public func feed(_ event: InputEvent, spec: MotionSpec?) -> MotionSignals? {
        guard let sample = decoder.feed(event) else { return nil }
        return process(sample, spec: spec ?? MotionSpec())
    }

    /// One sample → what it means: a shake's beginning or continuation, a new orientation, the
    /// sample itself at most `motion.rate` times a second.
    public func process(_ sample: MotionSample, spec: MotionSpec) -> MotionSignals {
        var out = MotionSignals(device: sample.device, time: sample.time)
        if let d = shakeDeadline, d <= sample.time { shakeDeadline = nil }   // ended at its deadline
        out.shake = detectShake(sample, spec: spec)
        if let o = Self.orientation(of: sample, current: orientation, hysteresis: spec.orientationHysteresis),
           o != orientation {
            orientation = o
            out.orientation = o
        }
        let interval = Timestamp.Duration.seconds(1 / max(spec.rate, 0.001))
        if lastDelivered.map({ sample.time - $0 >= interval }) ?? true {
            lastDelivered = sample.time
            out.sample = sample
        }
        return out
    }

    /// The orientation a sample shows: the nearest of the four to gravity's direction in the
    /// x-y plane; a change needs gravity within 45° − `hysteresis` of the new orientation's
    /// axis; the current one (no opinion) while the device lies flat or is moving (its length
    /// more than ``MotionSpec/restTolerance`` from 1 g).
    public static func orientation(of s: MotionSample, current: Orientation?, hysteresis: Double) -> Orientation? {
        guard abs(s.magnitude - 1) <= MotionSpec.restTolerance else { return current }
        let planar = (s.x * s.x + s.y * s.y).squareRoot()
        guard planar >= MotionSpec.flatLimit else { return current }
        let angle = gestureAtan2(s.y, s.x)
        func distance(_ o: Orientation) -> Double {
            var d = abs(angle - o.angle)
            if d > Double.pi { d = 2 * Double.pi - d }
            return d
        }
        let nearest = Orientation.allCases.min { distance($0) < distance($1) }!
        guard let current else { return nearest }
        if nearest == current { return current }
        let limit = (45 - hysteresis) * Double.pi / 180
        return distance(nearest) <= limit ? nearest : current
    }

    /// A jolt is a sample whose length differs from 1 g by at least the threshold. Its onset is
    /// a jolt after a calm sample, or one that pushes the other way than the jolt before it
    /// (a shake's reversals, even without a calm sample between them). The third onset within
    /// the window begins a shake; each jolt during it moves its end to a window after it.
    private func detectShake(_ s: MotionSample, spec: MotionSpec) -> MotionSignals.Shake? {
        let window = Timestamp.Duration.milliseconds(Int64(spec.shakeWindowMs))
        let jolt = abs(s.magnitude - 1) >= spec.shakeThreshold
        defer { inJolt = jolt }
        guard jolt else {
            gravity = (s.x, s.y, s.z)
            return nil
        }
        let g = gravity ?? (0, 0, 0)
        let push = (x: s.x - g.x, y: s.y - g.y, z: s.z - g.z)
        let reversed = lastPush.map { push.x * $0.x + push.y * $0.y + push.z * $0.z < 0 } ?? false
        lastPush = push
        if shakeDeadline != nil {
            shakeDeadline = s.time + window
            return .continues(until: s.time + window)
        }
        guard !inJolt || reversed else { return nil }
        onsets.removeAll { s.time - $0 > window }
        onsets.append(s.time)
        guard onsets.count >= Self.shakeOnsets else { return nil }
        onsets.removeAll()
        shakeDeadline = s.time + window
        return .began(until: s.time + window)
    }
}
