/// One read of a device: its raw events, in order (a live device's read, a recording's run of
/// one device). Valid only during the call that hands it on: a batch borrows the events of the
/// array or reader's buffer (``InputBuffer``) it was made from, it does not copy them.
public struct InputBatch: RandomAccessCollection {
    // The events where they are: an array's storage or a reader's buffer, for the duration of
    // the call the batch is handed to (``with(_:_:)-swift.type.method``,
    // ``InputBuffer/withBatch(count:_:)``).
    private let events: UnsafeBufferPointer<InputEvent>

    private init(events: UnsafeBufferPointer<InputEvent>) {
        self.events = events
    }

    /// Calls `body` with `events` as one batch.
    public static func with<R>(_ events: [InputEvent], _ body: (InputBatch) throws -> R) rethrows -> R {
        try events.withUnsafeBufferPointer { try body(InputBatch(events: $0)) }
    }

    /// Calls `body` with `event` as a batch of one.
    public static func with<R>(_ event: InputEvent, _ body: (InputBatch) throws -> R) rethrows -> R {
        try withUnsafePointer(to: event) { try body(InputBatch(events: UnsafeBufferPointer(start: $0, count: 1))) }
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { events.count }
    @inline(__always)
    public subscript(position: Int) -> InputEvent { events[position] }

    fileprivate static func over<R>(_ events: UnsafeBufferPointer<InputEvent>, _ body: (InputBatch) throws -> R) rethrows -> R {
        try body(InputBatch(events: events))
    }
}

/// A device reader's events, converted from what a `read(2)` filled: allocated once for
/// `capacity` events, written in place, handed on as a batch of the first ones
/// (``withBatch(count:_:)``) — nothing is copied or allocated per read.
package final class InputBuffer {
    private let base: UnsafeMutablePointer<InputEvent>
    package let capacity: Int

    package init(capacity: Int) {
        self.capacity = capacity
        base = .allocate(capacity: capacity)
        base.initialize(repeating: InputEvent(time: .zero, type: 0, code: 0, value: 0), count: capacity)
    }

    deinit {
        base.deinitialize(count: capacity)
        base.deallocate()
    }

    package subscript(index: Int) -> InputEvent {
        get {
            precondition(index >= 0 && index < capacity, "event \(index) of a buffer of \(capacity)")
            return base[index]
        }
        set {
            precondition(index >= 0 && index < capacity, "event \(index) of a buffer of \(capacity)")
            base[index] = newValue
        }
    }

    /// Calls `body` with the first `count` events as one batch (valid during the call only).
    package func withBatch<R>(count: Int, _ body: (InputBatch) throws -> R) rethrows -> R {
        precondition(count >= 0 && count <= capacity, "a batch of \(count) events of a buffer of \(capacity)")
        return try InputBatch.over(UnsafeBufferPointer(start: base, count: count), body)
    }
}
