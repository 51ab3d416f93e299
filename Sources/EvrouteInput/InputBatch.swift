/// One read of a device: its raw events, in order (a live device's read, a recording's run of
/// one device), as a span of the memory they are in — an array's, or a reader's buffer's
/// (``InputBuffer``). Valid only during the call it is handed to (a span cannot outlive what it
/// borrows): nothing is copied.
public typealias InputBatch = Span<InputEvent>

extension Span where Element == InputEvent {
    /// Calls `body` with `events` as one batch.
    public static func with<R>(_ events: [InputEvent], _ body: (InputBatch) throws -> R) rethrows -> R {
        try body(events.span)
    }

    /// Calls `body` with `event` as a batch of one.
    public static func with<R>(_ event: InputEvent, _ body: (InputBatch) throws -> R) rethrows -> R {
        let one = InlineArray<1, InputEvent>(repeating: event)
        return try body(one.span)
    }

    /// The last event, if any. (Inlined into the session's read: public API of the span only.)
    @inlinable
    public var lastEvent: InputEvent? { isEmpty ? nil : self[count &- 1] }
}

/// A device reader's events, converted from what a `read(2)` filled: allocated once for
/// `capacity` events, written in place (``fill(count:_:)``: one access to the buffer per read),
/// handed on as a batch of the first ones (``withBatch(count:_:)``) — nothing is copied or
/// allocated per read.
package final class InputBuffer {
    private var events: [InputEvent]
    package let capacity: Int

    package init(capacity: Int) {
        self.capacity = capacity
        events = Array(repeating: InputEvent(time: .zero, type: 0, code: 0, value: 0), count: capacity)
    }

    package subscript(index: Int) -> InputEvent {
        get { events[index] }
        set { events[index] = newValue }
    }

    /// Writes up to `count` events, the `i`th from `convert(i)`, stopping at the first nil;
    /// returns how many were written.
    package func fill(count: Int, _ convert: (Int) -> InputEvent?) -> Int {
        precondition(count >= 0 && count <= capacity, "\(count) events into a buffer of \(capacity)")
        return InputBuffer.fill(&events, count: count, convert)
    }

    /// (One access to the buffer for a whole read, not one per event.)
    private static func fill(_ events: inout [InputEvent], count: Int, _ convert: (Int) -> InputEvent?) -> Int {
        for i in 0..<count {
            guard let event = convert(i) else { return i }
            events[i] = event
        }
        return count
    }

    /// Calls `body` with the first `count` events as one batch (valid during the call only).
    package func withBatch<R>(count: Int, _ body: (InputBatch) throws -> R) rethrows -> R {
        precondition(count >= 0 && count <= capacity, "a batch of \(count) events of a buffer of \(capacity)")
        return try InputBuffer.withBatch(of: events, count: count, body)
    }

    /// (The buffer's events read for the whole call: the span lives as long as the access.)
    private static func withBatch<R>(of events: borrowing [InputEvent], count: Int, _ body: (InputBatch) throws -> R) rethrows -> R {
        try body(events.span.extracting(0..<count))
    }
}
