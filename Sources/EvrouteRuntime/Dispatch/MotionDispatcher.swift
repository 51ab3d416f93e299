import EvrouteCore
import EvrouteInput

/// An accelerometer: axes → samples in g → paced samples, orientation and shakes
/// (``MotionStage``, on the layout's `motion` settings), with its keys, if any, as a key device's.
final class MotionDispatcher: DeviceDispatcher {
    let stage: MotionStage
    let keys: KeyDispatcher?

    init(stage: MotionStage, keys: KeyDispatcher?) {
        self.stage = stage
        self.keys = keys
    }

    func dispatch(_ batch: InputBatch, in session: RoutingSession) {
        for i in batch.indices {
            let event = batch[i]
            // An axis event only updates the stage (samples go out on `SYN_REPORT`).
            if event.type != EventType.abs { session.advanceTime(to: event.time) }
            if let signals = stage.feed(event, spec: session.layout.spec.motion) { session.router.handle(signals) }
            if event.type == EventType.key, let keys { keys.key(event, in: session) }
        }
    }

    var hasDeadlines: Bool { keys?.hasDeadlines ?? false }

    var deadline: Timestamp? { keys?.deadline }

    func expire(at time: Timestamp, in session: RoutingSession) {
        keys?.expire(at: time, in: session)
    }

    func removeAll(at time: Timestamp, in session: RoutingSession) {
        keys?.removeAll(at: time, in: session)
    }
}
