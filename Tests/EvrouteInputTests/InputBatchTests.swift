import Testing
import EvrouteChecks
import EvrouteCore
@testable import EvrouteInput

/// A read's events as a batch: a span of the array or reader's buffer they are in.
@Suite struct InputBatchTests {
    static func event(_ i: Int) -> InputEvent {
        InputEvent(time: Timestamp(microseconds: Int64(i)), type: EventType.abs, code: UInt16(i), value: Int32(i))
    }

    @Test func aReadersBufferIsFilledUntilTheFirstEventLeftOut() {
        let buffer = InputBuffer(capacity: 8)
        let written = buffer.fill(count: 6) { i in i == 4 ? nil : Self.event(i) }
        expectEqual(written, 4)
        let codes = buffer.withBatch(count: written) { batch in
            var codes: [UInt16] = []
            for i in batch.indices { codes.append(batch[i].code) }
            return codes
        }
        expectEqual(codes, [0, 1, 2, 3])
        expectEqual(buffer.fill(count: 8) { Self.event($0 + 10) }, 8)
        expectEqual(buffer.withBatch(count: 8) { $0.lastEvent?.code }, 17)
        expect(buffer.withBatch(count: 0) { $0.lastEvent } == nil)
    }

    @Test func anArrayOrOneEventIsABatch() {
        let events = (0..<5).map(Self.event)
        expectEqual(InputBatch.with(events) { $0.count }, 5)
        expectEqual(InputBatch.with(events) { $0.lastEvent }, Self.event(4))
        expect(InputBatch.with(Self.event(7)) { ($0.count, $0[0]) } == (1, Self.event(7)))
    }
}
