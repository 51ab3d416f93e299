/// A shake in progress, bound like a held key to the responder it began at.
struct ShakeHold {
    var start: ResponderID?
    var region: Int?
    var layout: Layout
    var display: Int
    var deadline: Timestamp
}

extension Router {
    /// Routes what an accelerometer's input stage made of one sample (EvrouteInput's
    /// `MotionStage` paces samples, tracks orientation and detects shakes; docs/config.md,
    /// motion): a shake from the first responder up the chain (it ends, `ended`, when its
    /// deadline passes: a timer), an orientation change and the sample to the `motion:`
    /// handlers only, never through a region.
    public func handle(_ signals: MotionSignals) {
        advanceTime(to: signals.time)
        // A shake or an orientation change is input; a resting accelerometer's
        // samples are not (they come all the time).
        if idleState.isWatching, signals.orientation != nil || signals.shake != nil {
            _ = noteInput(device: signals.device, time: signals.time)
        }
        switch signals.shake {
        case .began(let until)?:
            let display = devices[signals.device]?.display ?? 0
            let (start, region) = keyboardStart(display: display)
            let hold = ShakeHold(start: start, region: region, layout: layout, display: display, deadline: until)
            if gestures.shakes.updateValue(hold, forKey: signals.device) != nil { gestures.shakingDevices -= 1 }
            gestures.shakingDevices += 1
            routeShake(.began, hold: hold, device: signals.device, time: signals.time)
        case .continues(let until)?:
            gestures.shakes[signals.device]?.deadline = until
        case nil:
            break
        }
        if let o = signals.orientation {
            deliverMotion(.orientation(o), device: signals.device, time: signals.time)
        }
        if let s = signals.sample {
            deliverMotion(.sample(x: s.x, y: s.y, z: s.z), device: signals.device, time: signals.time)
        }
    }

    /// Ends a device's shake (`ended` when its window ran out, `cancelled` when the device went).
    func endShake(of device: DeviceID, _ phase: MotionPhase, at time: Timestamp) {
        guard let hold = gestures.shakes.removeValue(forKey: device) else { return }
        gestures.shakingDevices -= 1
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
        guard gestures.shakingDevices > 0 else { return nil }
        var next: Timestamp?
        for (_, hold) in gestures.shakes {
            if next.map({ hold.deadline < $0 }) ?? true { next = hold.deadline }
        }
        return next
    }

    /// The shake due first by `time`, if any (device and deadline).
    func dueShake(by time: Timestamp) -> (device: DeviceID, deadline: Timestamp)? {
        guard gestures.shakingDevices > 0 else { return nil }
        var due: (device: DeviceID, deadline: Timestamp)?
        for (id, hold) in gestures.shakes {
            let d = hold.deadline
            if d <= time, due.map({ d < $0.deadline || (d == $0.deadline && id.rawValue < $0.device.rawValue) }) ?? true {
                due = (id, d)
            }
        }
        return due
    }
}
