/// One read of a device: its raw events, in order (a live device's read, a recording's run of
/// one device). Valid only during the call that hands it on: a batch borrows the reader's
/// buffer, it is not copied.
public struct InputBatch: RandomAccessCollection {
    private let events: UnsafeBufferPointer<InputEvent>

    /// A batch over a reader's buffer; the buffer must outlive every use of the batch.
    package init(borrowing events: UnsafeBufferPointer<InputEvent>) {
        self.events = events
    }

    /// Calls `body` with `events` as one batch.
    public static func with<R>(_ events: [InputEvent], _ body: (InputBatch) throws -> R) rethrows -> R {
        try events.withUnsafeBufferPointer { try body(InputBatch(borrowing: $0)) }
    }

    /// Calls `body` with `event` as a batch of one.
    public static func with<R>(_ event: InputEvent, _ body: (InputBatch) throws -> R) rethrows -> R {
        try withUnsafePointer(to: event) { try body(InputBatch(borrowing: UnsafeBufferPointer(start: $0, count: 1))) }
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { events.count }
    @inline(__always)
    public subscript(position: Int) -> InputEvent { events[position] }
}
