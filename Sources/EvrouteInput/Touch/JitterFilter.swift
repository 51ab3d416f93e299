import EvrouteCore

/// `jitter: { hysteresis }`: a move that stays within `hysteresis` display units of the
/// contact's last reported point is not reported (a resting finger's noise); a move past it is
/// reported where it is, and becomes the new reference. Begins, ends and cancels always pass.
final class JitterFilter: TouchFrameFilter {
    let hysteresis: Double
    /// The last reported point of each contact that is down.
    private var reported: [Int: Point] = [:]

    init(hysteresis: Double) {
        self.hysteresis = hysteresis
    }

    func filter(_ frame: inout TouchFrameInput, _ filtered: inout [FilteredContact]) {
        frame.contacts.removeAll { sample in
            switch sample.change {
            case .began:
                reported[sample.contact] = sample.location
                return false
            case .ended, .cancelled:
                reported[sample.contact] = nil
                return false
            case .moved:
                guard let last = reported[sample.contact] else {
                    reported[sample.contact] = sample.location
                    return false
                }
                let dx = sample.location.x - last.x, dy = sample.location.y - last.y
                if dx * dx + dy * dy <= hysteresis * hysteresis { return true }
                reported[sample.contact] = sample.location
                return false
            }
        }
    }
}
