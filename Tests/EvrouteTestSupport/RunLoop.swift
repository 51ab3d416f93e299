import EvrouteCore
import EvrouteSystem

/// The one "run the loop until" of the tests: runs `loop` until `done()` holds (checked every
/// 5 ms of the loop's timers) or `seconds` pass (a guard against a hung test, not a
/// measurement). Returns `done()`.
@discardableResult
public func runLoop(_ loop: EventLoop, upTo seconds: Double = 5, until done: @escaping () -> Bool) -> Bool {
    let deadline = MonotonicClock.now() + .seconds(seconds)
    func check() {
        if done() || MonotonicClock.now() >= deadline { loop.stop(); return }
        loop.schedule(after: .milliseconds(5)) { check() }
    }
    loop.schedule(after: .milliseconds(1)) { check() }
    loop.run()
    return done()
}

/// Runs `loop` for `seconds` (to let things that should not happen have their chance).
public func runLoop(_ loop: EventLoop, for seconds: Double) {
    runLoop(loop, upTo: seconds) { false }
}
