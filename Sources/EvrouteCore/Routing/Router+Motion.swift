/// Per accelerometer: what the router remembers between samples.
struct MotionState {
    /// When a sample last went to the `motion:` handlers (for `motion.rate`).
    var lastDelivered: Timestamp?
    var orientation: Orientation?
    /// Whether the previous sample was a jolt.
    var inJolt = false
    /// Gravity as the last calm sample measured it (jolts are measured against it).
    var gravity: (x: Double, y: Double, z: Double)?
    /// Which way the last jolt pushed (its acceleration less gravity).
    var lastPush: (x: Double, y: Double, z: Double)?
    /// Jolt onsets within the shake window, oldest first.
    var onsets: [Timestamp] = []
    /// The shake in progress: where its phases go, and when it ends without another jolt.
    var shake: ShakeHold?
}

/// A shake in progress, bound like a held key to the responder it began at.
struct ShakeHold {
    var start: ResponderID?
    var region: Int?
    var layout: Layout
    var display: Int
    var deadline: Timestamp
}

extension Router {
    /// Jolt onsets within the window that begin a shake.
    public static let shakeOnsets = 3

    /// Takes one accelerometer sample (docs/config.md, motion): shake detection (routed from the first
    /// responder up the chain), orientation with hysteresis and, at most `motion.rate` times a
    /// second, the sample itself — both to the `motion:` handlers only, never through a region.
    public func handle(_ sample: MotionSample) {
        advanceTime(to: sample.time)
        let spec = layout.spec.motion ?? MotionSpec()
        var state = motionStates[sample.device] ?? MotionState()
        detectShake(sample, spec: spec, state: &state)
        if let o = Self.orientation(of: sample, current: state.orientation, hysteresis: spec.orientationHysteresis),
           o != state.orientation {
            state.orientation = o
            deliverMotion(.orientation(o), device: sample.device, time: sample.time)
        }
        let interval = Timestamp.Duration.seconds(1 / max(spec.rate, 0.001))
        if state.lastDelivered.map({ sample.time - $0 >= interval }) ?? true {
            state.lastDelivered = sample.time
            deliverMotion(.sample(x: sample.x, y: sample.y, z: sample.z), device: sample.device, time: sample.time)
        }
        motionStates[sample.device] = state
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
    /// the window begins a shake; it ends when the window passes without a jolt.
    func detectShake(_ s: MotionSample, spec: MotionSpec, state: inout MotionState) {
        let window = Timestamp.Duration.milliseconds(Int64(spec.shakeWindowMs))
        let jolt = abs(s.magnitude - 1) >= spec.shakeThreshold
        defer { state.inJolt = jolt }
        guard jolt else {
            state.gravity = (s.x, s.y, s.z)
            return
        }
        let g = state.gravity ?? (0, 0, 0)
        let push = (x: s.x - g.x, y: s.y - g.y, z: s.z - g.z)
        let reversed = state.lastPush.map { push.x * $0.x + push.y * $0.y + push.z * $0.z < 0 } ?? false
        state.lastPush = push
        if state.shake != nil {
            state.shake!.deadline = s.time + window
            return
        }
        guard !state.inJolt || reversed else { return }
        state.onsets.removeAll { s.time - $0 > window }
        state.onsets.append(s.time)
        guard state.onsets.count >= Self.shakeOnsets else { return }
        state.onsets.removeAll()
        let display = devices[s.device]?.display ?? 0
        let (start, region) = keyboardStart(display: display)
        let hold = ShakeHold(start: start, region: region, layout: layout, display: display, deadline: s.time + window)
        state.shake = hold
        shakingDevices += 1
        routeShake(.began, hold: hold, device: s.device, time: s.time)
    }

    /// Ends a device's shake (`ended` when its window ran out, `cancelled` when the device went).
    func endShake(of device: DeviceID, _ phase: MotionPhase, at time: Timestamp) {
        guard let hold = motionStates[device]?.shake else { return }
        motionStates[device]?.shake = nil
        shakingDevices -= 1
        routeShake(phase, hold: hold, device: device, time: time)
    }

    func routeShake(_ phase: MotionPhase, hold: ShakeHold, device: DeviceID, time: Timestamp) {
        walk(RoutedEvent(kind: .motion(.shake(phase)), time: time, layout: hold.layout, display: hold.display,
                         start: hold.start, region: hold.region, device: devices[device]?.info))
    }

    /// A sample or an orientation change, to the `motion:` handlers (a chain of one).
    func deliverMotion(_ values: MotionValues, device: DeviceID, time: Timestamp) {
        let info = devices[device]
        walk(RoutedEvent(kind: .motion(values), time: time, layout: layout, display: info?.display,
                         start: .motion, device: info?.info))
    }

    /// The earliest end of a shake in progress, if any.
    var nextShakeDeadline: Timestamp? {
        guard shakingDevices > 0 else { return nil }
        var next: Timestamp?
        for (_, state) in motionStates {
            if let d = state.shake?.deadline, next.map({ d < $0 }) ?? true { next = d }
        }
        return next
    }

    /// The shake due first by `time`, if any (device and deadline).
    func dueShake(by time: Timestamp) -> (device: DeviceID, deadline: Timestamp)? {
        guard shakingDevices > 0 else { return nil }
        var due: (device: DeviceID, deadline: Timestamp)?
        for (id, state) in motionStates {
            if let d = state.shake?.deadline, d <= time, due.map({ d < $0.deadline || (d == $0.deadline && id.rawValue < $0.device.rawValue) }) ?? true {
                due = (id, d)
            }
        }
        return due
    }

    /// A removed device: its shake is cancelled, its state forgotten.
    func forgetMotion(of device: DeviceID, time: Timestamp) {
        endShake(of: device, .cancelled, at: time)
        motionStates[device] = nil
    }
}
