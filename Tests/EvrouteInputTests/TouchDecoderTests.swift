import EvrouteCore
@testable import EvrouteInput
import Testing
import EvrouteChecks

private let display = Size(width: 1000, height: 1000)   // with 0...999 axes: display = device units

private func changes(_ frame: TouchFrameInput?) -> [String] {
    (frame?.contacts ?? []).map { "\($0.contact):\($0.change)@\(Int($0.location.x)),\(Int($0.location.y))" }
}

@Suite("Touch decoding: protocol B")
struct ProtocolBTests {
    @Test("Begin, move, stationary frame not reported, lift")
    func basicLifetime() {
        let decoder = TouchDecoder(device: DeviceID(7), description: Devices.protocolB(), displaySize: display)
        expectEqual(decoder.touchProtocol, .slots(count: 10))
        var s = EventScript()
        s.slot(0); s.id(100); s.position(10, 20); s.key(KeyCode.btnTouch, 1); s.abs(AbsCode.x, 10); s.syn()
        s.position(15, 20); s.syn()
        s.abs(AbsCode.x, 15); s.syn()                // only the single-touch axes: no contact change
        s.position(15, 20); s.syn()                  // same values again: not reported
        s.id(-1); s.key(KeyCode.btnTouch, 0); s.syn()
        let frames = s.events.map { decoder.feed($0) }.filter { $0 != nil }
        expectEqual(frames.count, 3)
        expectEqual(changes(frames[0]), ["1:began@10,20"])
        expectEqual(frames[0]?.device, DeviceID(7))
        expectEqual(frames[0]?.time, Timestamp(microseconds: 1_000_000))
        expectEqual(changes(frames[1]), ["1:moved@15,20"])
        expectEqual(changes(frames[2]), ["1:ended@15,20"])
        expectEqual(decoder.liveContactCount, 0)
    }

    @Test("Frames given back: two buffers take turns, and a frame in hand is changed in place, shared with nothing")
    func recycledFrames() {
        let decoder = TouchDecoder(device: DeviceID(7), description: Devices.protocolB(), displaySize: display)
        var s = EventScript()
        s.slot(0); s.id(100); s.position(10, 20); s.key(KeyCode.btnTouch, 1); s.syn()
        for i in 1...6 { s.position(10 + Int32(i), 20); s.syn() }
        var buffers: [Int] = []
        var inPlace: [Bool] = []
        var seen: [String] = []
        for event in s.events {
            guard var frame = decoder.feed(event) else { continue }
            seen += changes(frame)
            let before = frame.contacts.withUnsafeBufferPointer { Int(bitPattern: $0.baseAddress) }
            buffers.append(before)
            frame.contacts[0].change = .cancelled   // as a filter that cancels a palm
            inPlace.append(before == frame.contacts.withUnsafeBufferPointer { Int(bitPattern: $0.baseAddress) })
            decoder.recycle(frame)
        }
        expectEqual(seen, ["1:began@10,20"] + (11...16).map { "1:moved@\($0),20" })
        // The first frame is shared with the builder (nothing was given back yet): its change copies.
        expectEqual(inPlace, [false] + Array(repeating: true, count: 6))
        expectEqual(Set(buffers.dropFirst()).count, 2, "two buffers in turn: \(buffers)")
    }

    @Test("The first events may come without ABS_MT_SLOT (slot 0)")
    func firstEventWithoutSlot() {
        let decoder = TouchDecoder(device: DeviceID(1), description: Devices.protocolB(), displaySize: display)
        var s = EventScript()
        s.id(7); s.position(539, 167); s.syn()
        s.slot(1); s.id(8); s.position(222, 306); s.syn()
        s.slot(0); s.abs(AbsCode.mtPositionY, 177); s.syn()
        let frames = decode(decoder, s.events)
        expectEqual(frames.map(changes), [["1:began@539,167"], ["2:began@222,306"], ["1:moved@539,177"]])
    }

    @Test("A new tracking ID on a live slot ends the old contact and begins a new one in the same frame")
    func trackingIDChange() {
        let decoder = TouchDecoder(device: DeviceID(1), description: Devices.protocolB(), displaySize: display)
        var s = EventScript()
        s.id(1); s.position(100, 100); s.syn()
        s.id(2); s.position(500, 500); s.syn()
        s.id(-1); s.syn()
        let frames = decode(decoder, s.events)
        expectEqual(frames.map(changes), [["1:began@100,100"], ["1:ended@100,100", "2:began@500,500"], ["2:ended@500,500"]])
    }

    @Test("Slot reuse: a lifted slot's next tracking ID is a new contact")
    func slotReuse() {
        let decoder = TouchDecoder(device: DeviceID(1), description: Devices.protocolB(), displaySize: display)
        var s = EventScript()
        s.id(1); s.position(1, 1); s.syn()
        s.id(-1); s.syn()
        s.abs(AbsCode.mtPositionX, 50); s.syn()        // stale values for an empty slot: nothing
        s.id(1); s.position(9, 9); s.syn()             // the device reuses tracking ID 1
        s.id(-1); s.syn()
        let frames = decode(decoder, s.events)
        expectEqual(frames.map(changes), [["1:began@1,1"], ["1:ended@1,1"], ["2:began@9,9"], ["2:ended@9,9"]])
    }

    @Test("Lift and new touch on one slot within one frame")
    func liftAndTouchInOneFrame() {
        let decoder = TouchDecoder(device: DeviceID(1), description: Devices.protocolB(), displaySize: display)
        var s = EventScript()
        s.id(1); s.position(1, 1); s.syn()
        s.id(-1); s.id(3); s.position(4, 4); s.syn()
        let frames = decode(decoder, s.events)
        expectEqual(frames.map(changes), [["1:began@1,1"], ["1:ended@1,1", "2:began@4,4"]])
    }

    @Test("Ten and more slots, all down at once")
    func manySlots() {
        let decoder = TouchDecoder(device: DeviceID(1), description: Devices.protocolB(slots: 16), displaySize: display)
        var s = EventScript()
        for slot in 0..<16 { s.slot(Int32(slot)); s.id(Int32(1000 + slot)); s.position(Int32(slot * 10), Int32(slot * 20)) }
        s.syn()
        for slot in 0..<16 { s.slot(Int32(slot)); s.abs(AbsCode.mtPositionX, Int32(slot * 10 + 1)) }
        s.syn()
        for slot in 0..<16 { s.slot(Int32(slot)); s.id(-1) }
        s.syn()
        let frames = decode(decoder, s.events)
        expectEqual(frames.count, 3)
        expectEqual(frames[0].contacts.count, 16)
        expect(frames[0].contacts.allSatisfy { $0.change == .began })
        expectEqual(frames[0].contacts[15].location, Point(x: 150, y: 300))
        expect(frames[1].contacts.allSatisfy { $0.change == .moved })
        expectEqual(Set(frames[2].contacts.map(\.contact)), Set(1...16))
        expectEqual(decoder.liveContactCount, 0)
        // Slots beyond the device's count are ignored.
        var more = EventScript(time: 5_000_000)
        more.slot(16); more.id(5); more.position(1, 1); more.syn()
        expect(decode(decoder, more.events).isEmpty)
    }

    @Test("Pressure, touch major/minor and tool type when the device reports them")
    func extraAxes() throws {
        let decoder = TouchDecoder(device: DeviceID(1), description: Devices.protocolB(maxX: 499, maxY: 499, pressure: true, major: true, tool: true),
                                   displaySize: display)
        var s = EventScript()
        s.id(1); s.position(10, 10); s.abs(AbsCode.mtPressure, 80); s.abs(AbsCode.mtTouchMajor, 6); s.abs(AbsCode.mtToolType, 2); s.syn()
        s.abs(AbsCode.mtPressure, 90); s.syn()
        let frames = decode(decoder, s.events)
        let first = try #require(frames.first?.contacts.first)
        expectEqual(first.location, Point(x: 20, y: 20))
        expectEqual(first.pressure, 80)
        expectEqual(first.majorRadius, 6)     // 6 device units = 12 display units, radius 6
        expectEqual(first.minorRadius, 6)     // no ABS_MT_TOUCH_MINOR: circular
        expectEqual(first.toolType, 2)
        expectEqual(frames.count, 2)
        expectEqual(frames[1].contacts.first?.change, .moved)
        expectEqual(frames[1].contacts.first?.pressure, 90)
        // Without those axes, they are nil.
        let plain = TouchDecoder(device: DeviceID(1), description: Devices.protocolB(), displaySize: display)
        let sample = try #require(decode(plain, s.events).first?.contacts.first)
        expect(sample.pressure == nil && sample.majorRadius == nil && sample.toolType == nil)
    }

    @Test("SYN_DROPPED: events up to the next SYN_REPORT are dropped, then every live contact is cancelled")
    func droppedWithoutResync() {
        let decoder = TouchDecoder(device: DeviceID(1), description: Devices.protocolB(), displaySize: display)
        var s = EventScript()
        s.id(1); s.position(10, 10); s.slot(1); s.id(2); s.position(20, 20); s.syn()
        s.syn(SynCode.dropped)
        s.slot(0); s.position(99, 99); s.id(-1); s.slot(2); s.id(3)   // lost
        s.syn()
        s.slot(1); s.position(25, 25); s.syn()          // the cancelled contact's slot: stays quiet
        s.slot(0); s.id(4); s.position(5, 5); s.syn()   // a new tracking ID: a new contact
        let frames = decode(decoder, s.events)
        expectEqual(frames.map(changes), [
            ["1:began@10,10", "2:began@20,20"],
            ["1:cancelled@10,10", "2:cancelled@20,20"],
            ["3:began@5,5"],
        ])
        let life = lifecycle(frames)
        expect(life.problems.isEmpty)
        expectEqual(life.open, 1)
    }

    /// A protocol B decoder of a stream as libevdev delivers it (a resync after a drop).
    func resyncingDecoder() -> TouchDecoder {
        var live = Devices.protocolB()
        live.resyncsAfterDrop = true
        return TouchDecoder(device: DeviceID(1), description: live, displaySize: display)
    }

    /// Touches 1–3 down in slots 0–2 (one frame), then a `SYN_DROPPED`.
    func threeFingersThenDropped() -> EventScript {
        var s = EventScript()
        s.slot(0); s.id(1); s.position(10, 10)
        s.slot(1); s.id(2); s.position(20, 20)
        s.slot(2); s.id(3); s.position(30, 30)
        s.syn()
        s.syn(SynCode.dropped)
        return s
    }

    @Test("SYN_DROPPED in a libevdev stream: the resync events are applied; only lost contacts are cancelled")
    func droppedInALibevdevStream() {
        let decoder = resyncingDecoder()
        var s = threeFingersThenDropped()
        // libevdev's resync delta: slot 0 moved, slot 1 lifted and a new finger took it, slot 2
        // lifted, slot 3 is new.
        s.slot(0); s.position(11, 10)
        s.slot(1); s.id(-1); s.id(9); s.position(70, 70)
        s.slot(2); s.id(-1)
        s.slot(3); s.id(4); s.position(40, 40)
        s.syn()
        s.slot(0); s.position(12, 10); s.syn()          // live again
        let frames = decode(decoder, s.events)
        expectEqual(frames.map(changes), [
            ["1:began@10,10", "2:began@20,20", "3:began@30,30"],
            ["1:moved@11,10", "2:cancelled@20,20", "4:began@70,70", "3:cancelled@30,30", "5:began@40,40"],
            ["1:moved@12,10"],
        ])
        expect(lifecycle(frames).problems.isEmpty)
        // The same bytes from a recording (a raw stream) cancel everything instead.
        let raw = TouchDecoder(device: DeviceID(1), description: Devices.protocolB(), displaySize: display)
        expect(decode(raw, s.events)[1].contacts.allSatisfy { $0.change == .cancelled })
    }

    @Test("SYN_DROPPED in a libevdev stream, single-touch: a finger still down keeps its identity")
    func droppedInALibevdevStreamSingleTouch() {
        var live = Devices.singleTouch()
        live.resyncsAfterDrop = true
        let decoder = TouchDecoder(device: DeviceID(1), description: live, displaySize: display)
        var s = EventScript()
        s.key(KeyCode.btnTouch, 1); s.abs(AbsCode.x, 10); s.abs(AbsCode.y, 10); s.syn()
        s.syn(SynCode.dropped)
        s.abs(AbsCode.x, 30); s.syn()
        s.key(KeyCode.btnTouch, 0); s.syn()
        expectEqual(decode(decoder, s.events).map(changes), [["1:began@10,10"], ["1:moved@30,10"], ["1:ended@30,10"]])
    }

    @Test("SYN_DROPPED is told as a warning: the count so far, how evroute recovered, the touches it cancelled; at most once per 10 s of event time, the drops in between folded into the next")
    func droppedIsToldAtMostEveryTenSeconds() {
        let decoder = resyncingDecoder()
        var s = threeFingersThenDropped()
        s.slot(1); s.id(-1); s.id(9); s.position(70, 70)   // replaced during the drop
        s.slot(2); s.id(-1)                                  // lifted during the drop
        s.syn()
        _ = decode(decoder, s.events)
        expectEqual(decoder.takeWarnings(), [.eventsDropped(total: 1, folded: 0, recovery: .resynced, cancelled: 2)])
        // Two more within 10 s: counted, not told.
        for _ in 0..<2 {
            var again = EventScript(time: s.time + 4_000_000)
            again.syn(SynCode.dropped); again.syn()
            s.time = again.time
            _ = decode(decoder, again.events)
            expect(!decoder.hasWarnings)
        }
        expectEqual(decoder.synDropped, 3)
        // 10 s after the one told: the next is told, with the two folded into it.
        var later = EventScript(time: s.time + 2_000_000)
        later.syn(SynCode.dropped); later.syn()
        _ = decode(decoder, later.events)
        let told = decoder.takeWarnings()
        expectEqual(told, [.eventsDropped(total: 4, folded: 2, recovery: .resynced, cancelled: 0)])
        expectEqual(told.first.map { "\($0)" }?.hasPrefix("the kernel dropped its events (SYN_DROPPED: evroute read too slowly and the kernel's buffer overflowed), 4 times so far (2 of them folded into this line: one line per 10 s); resynced from the device's state: touches still down go on, 0 touches cancelled"), true)

        // A recording (a raw stream) discards; protocol A has nothing to resync from.
        let raw = TouchDecoder(device: DeviceID(2), description: Devices.protocolB(), displaySize: display)
        var r = EventScript()
        r.slot(0); r.id(1); r.position(10, 10); r.syn()
        r.syn(SynCode.dropped); r.slot(0); r.position(50, 50); r.syn()
        _ = decode(raw, r.events)
        expectEqual(raw.takeWarnings(), [.eventsDropped(total: 1, folded: 0, recovery: .discarded, cancelled: 1)])
        var liveA = Devices.protocolA()
        liveA.resyncsAfterDrop = true
        let a = TouchDecoder(device: DeviceID(3), description: liveA, displaySize: display)
        var e = EventScript()
        e.abs(AbsCode.mtPositionX, 10); e.abs(AbsCode.mtPositionY, 10); e.syn(SynCode.mtReport); e.syn()
        e.syn(SynCode.dropped); e.syn()
        _ = decode(a, e.events)
        expectEqual(a.takeWarnings(), [.eventsDropped(total: 1, folded: 0, recovery: .cancelledAll, cancelled: 1)])
    }

    @Test("SYN_DROPPED with a resync: changed or vanished tracking IDs are cancelled, the rest continue")
    func droppedWithResync() {
        let decoder = TouchDecoder(device: DeviceID(1), description: Devices.protocolB(), displaySize: display)
        var s = EventScript()
        s.slot(0); s.id(1); s.position(10, 10)
        s.slot(1); s.id(2); s.position(20, 20)
        s.slot(2); s.id(3); s.position(30, 30)
        s.syn()
        s.syn(SynCode.dropped)
        var frames = decode(decoder, s.events)
        expectEqual(frames.count, 1)
        let snapshot = TouchSnapshot(slots: [
            TouchSnapshot.Slot(trackingID: 1, x: 11, y: 10),   // same contact, moved
            TouchSnapshot.Slot(trackingID: 9, x: 70, y: 70),   // replaced
            TouchSnapshot.Slot(trackingID: -1),                // lifted during the drop
            TouchSnapshot.Slot(trackingID: 4, x: 40, y: 40),   // new
        ], currentSlot: 3)
        let resynced = decoder.resync(snapshot, at: Timestamp(microseconds: 2_000_000))
        expectEqual(changes(resynced), ["1:moved@11,10", "2:cancelled@20,20", "4:began@70,70", "3:cancelled@30,30", "5:began@40,40"])
        frames.append(resynced!)
        // The drop is over: later events are live again, on the snapshot's current slot.
        var after = EventScript(time: 3_000_000)
        after.abs(AbsCode.mtPositionX, 41); after.syn()
        after.slot(0); after.id(-1); after.syn()
        let later = decode(decoder, after.events)
        expectEqual(later.map(changes), [["5:moved@41,40"], ["1:ended@11,10"]])
        frames += later
        let final = decoder.cancelAll(at: Timestamp(microseconds: 9_000_000))
        expectEqual(Set(final?.contacts.map(\.contact) ?? []), [4, 5])
        frames.append(final!)
        let life = lifecycle(frames)
        expect(life.problems.isEmpty)
        expectEqual(life.open, 0)
        expectEqual(life.touches, 5)
    }

    @Test("cancelAll cancels every live contact once and leaves nothing down")
    func cancelAll() {
        let decoder = TouchDecoder(device: DeviceID(1), description: Devices.protocolB(), displaySize: display)
        var s = EventScript()
        s.id(1); s.position(1, 2); s.slot(3); s.id(2); s.position(3, 4); s.syn()
        _ = decode(decoder, s.events)
        let frame = decoder.cancelAll(at: Timestamp(microseconds: 42))
        expectEqual(changes(frame), ["1:cancelled@1,2", "2:cancelled@3,4"])
        expectEqual(frame?.time, Timestamp(microseconds: 42))
        expect(decoder.cancelAll(at: Timestamp(microseconds: 43)) == nil)
        expectEqual(decoder.liveContactCount, 0)
    }
}

@Suite("Touch decoding: protocol A and single-touch")
struct ProtocolAAndSingleTouchTests {
    @Test("Protocol A contacts keep their identity by nearest distance while down")
    func protocolA() {
        let decoder = TouchDecoder(device: DeviceID(2), description: Devices.protocolA(), displaySize: display)
        expectEqual(decoder.touchProtocol, .contactReports)
        var s = EventScript()
        func contact(_ x: Int32, _ y: Int32) { s.position(x, y); s.syn(SynCode.mtReport) }
        contact(100, 100); s.key(KeyCode.btnTouch, 1); s.syn()
        contact(102, 100); contact(800, 800); s.syn()          // second finger lands
        contact(790, 790); contact(104, 100); s.syn()          // reported in the other order
        contact(104, 100); contact(790, 790); s.syn()          // nothing moved
        contact(780, 780); s.syn()                              // the first finger lifts
        s.syn(SynCode.mtReport); s.key(KeyCode.btnTouch, 0); s.syn()   // empty report: all lifted
        let frames = decode(decoder, s.events)
        expectEqual(frames.map(changes), [
            ["1:began@100,100"],
            ["1:moved@102,100", "2:began@800,800"],
            ["2:moved@790,790", "1:moved@104,100"],
            ["1:ended@104,100", "2:moved@780,780"],
            ["2:ended@780,780"],
        ])
    }

    @Test("Protocol A contacts with tracking IDs match by ID")
    func protocolAWithIDs() {
        var d = Devices.protocolA()
        d.events[EventType.abs]!.insert(AbsCode.mtTrackingID)
        let decoder = TouchDecoder(device: DeviceID(2), description: d, displaySize: display)
        var s = EventScript()
        func contact(_ id: Int32, _ x: Int32, _ y: Int32) { s.id(id); s.position(x, y); s.syn(SynCode.mtReport) }
        contact(5, 100, 100); contact(6, 110, 100); s.syn()
        contact(5, 111, 100); contact(6, 99, 100); s.syn()     // crossed: IDs win over distance
        let frames = decode(decoder, s.events)
        expectEqual(frames.map(changes), [["1:began@100,100", "2:began@110,100"], ["1:moved@111,100", "2:moved@99,100"]])
    }

    @Test("A protocol-A frame may lift all 32 contacts and land 32 new ones: ended first, then began in report order")
    func protocolAFullFrameReplaced() {
        var d = Devices.protocolA()
        d.events[EventType.abs]!.insert(AbsCode.mtTrackingID)
        let decoder = TouchDecoder(device: DeviceID(2), description: d, displaySize: display)
        var s = EventScript()
        for base: Int32 in [0, 100, 200] {
            for i: Int32 in 0..<32 { s.id(base + i); s.position(10 * i, base); s.syn(SynCode.mtReport) }
            s.syn()
        }
        s.syn(SynCode.mtReport); s.syn()
        let frames = decode(decoder, s.events)
        expectEqual(frames.count, 4)
        expectEqual(frames[1].contacts.map { "\($0.contact):\($0.change)" }, (1...32).map { "\($0):ended" } + (33...64).map { "\($0):began" })
        expectEqual(frames[2].contacts.map { "\($0.contact):\($0.change)" }, (33...64).map { "\($0):ended" } + (65...96).map { "\($0):began" })
        expectEqual(changes(frames[2]).last, "96:began@310,200")
        expect(frames[3].contacts.count == 32 && decoder.liveContactCount == 0)
        expect(lifecycle(frames).problems.isEmpty)
    }

    @Test("Protocol A applies the position fuzz like the kernel")
    func protocolAFuzz() {
        var d = Devices.protocolA()
        d.absinfo[AbsCode.mtPositionX]?.fuzz = 8
        d.absinfo[AbsCode.mtPositionY]?.fuzz = 8
        let decoder = TouchDecoder(device: DeviceID(2), description: d, displaySize: display)
        var s = EventScript()
        func contact(_ x: Int32, _ y: Int32) { s.position(x, y); s.syn(SynCode.mtReport) }
        contact(100, 100); s.syn()
        contact(103, 100); s.syn()      // within fuzz/2: dropped
        contact(106, 100); s.syn()      // within fuzz: (3·100 + 106) / 4 = 101
        contact(200, 100); s.syn()      // far: taken as is
        let frames = decode(decoder, s.events)
        expectEqual(frames.map(changes), [["1:began@100,100"], ["1:moved@101,100"], ["1:moved@200,100"]])
    }

    @Test("Single-touch: BTN_TOUCH with ABS_X/ABS_Y")
    func singleTouch() {
        var d = Devices.singleTouch()
        d.events[EventType.abs]!.insert(AbsCode.pressure)
        d.absinfo[AbsCode.pressure] = AbsInfo(minimum: 0, maximum: 255)
        let decoder = TouchDecoder(device: DeviceID(3), description: d, displaySize: display)
        expectEqual(decoder.touchProtocol, .singleTouch)
        var s = EventScript()
        s.position(10, 20, mt: false); s.abs(AbsCode.pressure, 50); s.key(KeyCode.btnTouch, 1); s.syn()
        s.position(12, 20, mt: false); s.syn()
        s.syn()
        s.key(KeyCode.btnTouch, 0); s.syn()
        s.position(30, 40, mt: false); s.syn()        // hovering: no contact
        s.key(KeyCode.btnTouch, 1); s.syn()
        let frames = decode(decoder, s.events)
        expectEqual(frames.map(changes), [["1:began@10,20"], ["1:moved@12,20"], ["1:ended@12,20"], ["2:began@30,40"]])
        expectEqual(frames[0].contacts[0].pressure, 50)
        let resync = decoder.resync(TouchSnapshot(touching: false, x: 30, y: 40), at: Timestamp(microseconds: 9))
        expectEqual(changes(resync), ["2:cancelled@30,40"])
    }

    @Test("Devices with MT axes ignore ABS_X/ABS_Y; devices without touch axes decode nothing")
    func protocolChoice() {
        expectEqual(TouchProtocol.of(Devices.protocolB(slots: 12)), .slots(count: 12))
        expectEqual(TouchProtocol.of(Devices.protocolA()), .contactReports)
        expectEqual(TouchProtocol.of(Devices.singleTouch()), .singleTouch)
        let keyboard = DeviceDescription(name: "kbd", events: [EventType.key: [1, 2, 3]])
        expectEqual(TouchProtocol.of(keyboard), .none)
        let decoder = TouchDecoder(device: DeviceID(1), description: keyboard, displaySize: display)
        var s = EventScript()
        s.key(KeyCode.btnTouch, 1); s.position(1, 1, mt: false); s.syn()
        expect(decode(decoder, s.events).isEmpty)
        expect(decoder.cancelAll(at: .zero) == nil)

        let mt = TouchDecoder(device: DeviceID(1), description: Devices.protocolB(), displaySize: display)
        var st = EventScript()
        st.key(KeyCode.btnTouch, 1); st.position(5, 5, mt: false); st.syn()
        expect(decode(mt, st.events).isEmpty)
    }
}

@Suite("Contacts already down when a device is opened")
struct OpenedWithFingersDownTests {
    @Test("a libevdev snapshot stated as resync events begins the touches that are down")
    func snapshotBeginsTouches() {
        var live = Devices.protocolB()
        live.resyncsAfterDrop = true
        let decoder = TouchDecoder(device: DeviceID(1), description: live, displaySize: display)
        let snapshot = TouchSnapshot(slots: [TouchSnapshot.Slot(trackingID: -1), TouchSnapshot.Slot(trackingID: 7, x: 30, y: 40)],
                                     currentSlot: 1)
        var events = snapshot.resyncEvents(at: Timestamp(microseconds: 5_000_000))
        var after = EventScript(time: 6_000_000)
        after.position(31, 40); after.syn()
        after.id(-1); after.syn()
        events += after.events
        expectEqual(decode(decoder, events).map(changes), [["1:began@30,40"], ["1:moved@31,40"], ["1:ended@31,40"]])
        expect(TouchSnapshot(slots: [TouchSnapshot.Slot(trackingID: -1)]).resyncEvents(at: .zero).isEmpty)
    }
}
