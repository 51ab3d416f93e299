import EvrouteCore
import EvrouteSystem

/// Events a plugin has taken and whose answer is still due, each with a deadline. One loop
/// timer is armed at a time, for the earliest deadline (deadlines come in dispatch order).
final class PendingAnswers {
    struct Entry {
        let id: UInt64
        let event: RoutedEvent
        let handler: HandlerBinding
        let deadline: Timestamp
    }

    private let loop: EventLoop
    let timeout: Timestamp.Duration
    private var entries: [UInt64: Entry] = [:]
    private var order: [UInt64] = []
    private var head = 0
    private var timer: EventLoop.TimerID?
    /// Called for each entry whose deadline passed (it is already removed).
    var onExpired: (Entry) -> Void = { _ in }

    init(loop: EventLoop, timeout: Timestamp.Duration) {
        self.loop = loop
        self.timeout = timeout
    }

    var count: Int { entries.count }

    func add(id: UInt64, event: RoutedEvent, handler: HandlerBinding) {
        entries[id] = Entry(id: id, event: event, handler: handler, deadline: MonotonicClock.now() + timeout)
        order.append(id)
        if timer == nil { arm() }
    }

    /// Takes the entry for an answer; nil when unknown or already expired/answered.
    func resolve(_ id: UInt64) -> Entry? {
        guard let e = entries.removeValue(forKey: id) else { return nil }
        if entries.isEmpty { reset() }
        return e
    }

    /// Takes every entry (oldest first), cancelling the timer.
    func removeAll() -> [Entry] {
        let out = order[head...].compactMap { entries[$0] }
        entries.removeAll()
        reset()
        return out
    }

    private func reset() {
        order.removeAll(keepingCapacity: true)
        head = 0
        if let t = timer { loop.cancel(t); timer = nil }
    }

    private func arm() {
        while head < order.count, entries[order[head]] == nil { head += 1 }
        if head > 256 && head * 2 > order.count {
            order.removeFirst(head)
            head = 0
        }
        guard head < order.count, let first = entries[order[head]] else { timer = nil; return }
        timer = loop.schedule(at: first.deadline) { [weak self] in self?.fire() }
    }

    private func fire() {
        timer = nil
        let now = MonotonicClock.now()
        var expired: [Entry] = []
        while head < order.count {
            guard let e = entries[order[head]] else { head += 1; continue }
            guard e.deadline <= now else { break }
            entries[e.id] = nil
            expired.append(e)
            head += 1
        }
        if entries.isEmpty { reset() } else { arm() }
        for e in expired { onExpired(e) }
    }
}
