/// The router's gesture state: its recognizers (by layout and region gesture, and in creation
/// order), the touches they see, their pending timers, what changed in the frame being handled,
/// and the accelerometers shaking now.
///
/// Invariants: ``list`` holds the recognizers of ``byKey`` in creation order; ``timers`` is
/// sorted by deadline, then by scheduling order (a timer whose token its recognizer moved past
/// is stale and skipped).
struct GestureTracking {
    var byKey: [GestureKey: GestureRecognizer] = [:]
    /// The same recognizers in creation order, for deterministic iteration.
    var list: [GestureRecognizer] = []
    var order = 0
    /// Touches seen by recognizers, by touch id.
    var touches: [Int: GestureTouch] = [:]
    /// Pending recognizer timers, by deadline then scheduling order.
    var timers: [GestureTimer] = []
    var timerSequence = 0
    /// Continuous recognizers that changed during the frame being handled.
    var changed: [GestureRecognizer] = []
    /// Recognizers whose touches moved during the frame being handled.
    var moved: [GestureRecognizer] = []
    var inFrame = false
    /// Shakes in progress, by accelerometer (see Router+Motion).
    var shakes: [DeviceID: ShakeHold] = [:]
    /// Devices shaking now (their shakes' ends are timers).
    var shakingDevices = 0

    /// Queues `rec`'s timer for `deadline` behind those due no later (its token: the recognizer's
    /// current one).
    mutating func schedule(_ rec: GestureRecognizer, at deadline: Timestamp) {
        timerSequence += 1
        let timer = GestureTimer(deadline: deadline, sequence: timerSequence, recognizer: rec, token: rec.timerToken)
        let at = timers.firstIndex { $0.deadline > deadline } ?? timers.count
        timers.insert(timer, at: at)
    }

    /// Drops stale timers at the head of the queue.
    mutating func purgeStaleTimers() {
        while let first = timers.first, first.token != first.recognizer.timerToken { timers.removeFirst() }
    }

    /// The next recognizer's creation number.
    mutating func nextOrder() -> Int {
        order += 1
        return order
    }
}
