import Testing
import EvrouteChecks
@testable import EvrouteCore

/// Idle watches on their own: the earliest deadline, and when a countdown begins.
@Suite("Idle state")
struct IdleStateTests {
    func watch(_ seconds: Double) -> IdleWatch { IdleWatch(IdleSpec(afterSeconds: seconds, swallowWakeTouch: false)) }

    @Test func deadlineIsTheEarliestOfTheCountingDisplays() {
        var s = IdleState()
        s.set([watch(60), nil, watch(10)])
        expect(s.isWatching && s.deadline == nil)
        s.beginCountdown(display: 0, time: Timestamp(microseconds: 1_000_000))
        expectEqual(s.deadline, Timestamp(microseconds: 61_000_000))
        s.beginCountdown(display: 2, time: Timestamp(microseconds: 5_000_000))
        expectEqual(s.deadline, Timestamp(microseconds: 15_000_000))
        // A countdown begins once; a display without a watch, or out of range, has none.
        s.beginCountdown(display: 2, time: Timestamp(microseconds: 9_000_000))
        s.beginCountdown(display: 1, time: Timestamp(microseconds: 1))
        s.beginCountdown(display: 7, time: Timestamp(microseconds: 1))
        expectEqual(s.deadline, Timestamp(microseconds: 15_000_000))
        // An idle display has no deadline.
        s.watches[2]!.idleSince = Timestamp(microseconds: 15_000_000)
        s.updateDeadline()
        expectEqual(s.deadline, Timestamp(microseconds: 61_000_000))
    }

    @Test func noWatchesHoldNoContacts() {
        var s = IdleState()
        s.set([watch(1)])
        s.heldContacts.insert(Router.TouchKey(device: DeviceID(1), contact: 0))
        s.set([watch(1)])
        expectEqual(s.heldContacts.count, 1)
        s.set([nil])
        expect(!s.isWatching && s.heldContacts.isEmpty && s.deadline == nil)
    }
}
