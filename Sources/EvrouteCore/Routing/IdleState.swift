/// The displays' idle watches (one per display with `idle:`), the earliest deadline among
/// them, and the contacts held on filtered devices (one holds its display's idle off).
///
/// Invariants: ``isWatching`` is whether some watch exists; with none, no contact is held;
/// ``deadline`` is the earliest of the watches' deadlines after ``updateDeadline()``.
struct IdleState {
    /// Per display: its idle watch when it has `idle:`, else nil.
    var watches: [IdleWatch?] = []
    /// Whether some display has `idle:`: the one test input pays when none has.
    var isWatching = false
    /// The earliest deadline of an active display's idle watch, if any.
    var deadline: Timestamp?
    /// Contacts down on devices with filters, as they came before the filters: one holds its
    /// display's idle off. Each leaves at its end, at a filter's cancel of it, or with its device.
    var heldContacts: Set<Router.TouchKey> = []

    /// Puts `watches` in place and finds the next deadline.
    mutating func set(_ watches: [IdleWatch?]) {
        self.watches = watches
        isWatching = watches.contains { $0 != nil }
        if !isWatching { heldContacts.removeAll() }
        updateDeadline()
    }

    mutating func updateDeadline() {
        var next: Timestamp?
        for case let w? in watches {
            if let d = w.deadline, next.map({ d < $0 }) ?? true { next = d }
        }
        deadline = next
    }

    /// A device came on `display`: its countdown begins, if it had not.
    mutating func beginCountdown(display d: Int, time: Timestamp) {
        guard d < watches.count, watches[d] != nil, watches[d]!.lastInput == nil else { return }
        watches[d]!.lastInput = time
        watches[d]!.activeSince = time
        updateDeadline()
    }
}
