import Testing
import EvrouteChecks
@testable import EvrouteDaemon
import EvrouteCore
import EvrouteInput
import EvrouteConfig
import EvrouteTestSupport

/// The frames the `forward` plugin writes to a virtual touchscreen, read as evtest would print
/// them (one line per frame), and a reader that keeps slot state as the kernel and libevdev do.
private func lines(_ f: ForwardTouchFrames) -> [String] {
    var out: [String] = []
    var line: [String] = []
    for e in f.frame.queued {
        switch (e.type, e.code) {
        case (EventType.syn, _): out.append(line.joined(separator: " ")); line = []
        case (EventType.key, KeyCode.btnTouch): line.append("BTN_TOUCH=\(e.value)")
        case (_, AbsCode.mtSlot): line.append("SLOT=\(e.value)")
        case (_, AbsCode.mtTrackingID): line.append("ID=\(e.value)")
        case (_, AbsCode.mtToolType): line.append("TOOL=\(e.value)")
        case (_, AbsCode.mtPositionX): line.append("MTX=\(e.value)")
        case (_, AbsCode.mtPositionY): line.append("MTY=\(e.value)")
        case (_, AbsCode.x): line.append("X=\(e.value)")
        case (_, AbsCode.y): line.append("Y=\(e.value)")
        default: line.append("\(e.type):\(e.code)=\(e.value)")
        }
    }
    if !line.isEmpty { out.append(line.joined(separator: " ") + " (no SYN_REPORT)") }
    return out
}

private func t(_ ms: Int) -> Timestamp { Timestamp(microseconds: Int64(ms) * 1000) }

/// What libinput's fallback dispatch decides at each new tracking id: whether the slot's tool
/// type, as the kernel and libevdev hold it at that event (events equal to the slot's value
/// dropped, as the kernel does), makes the new touch a palm that is never reported.
private func newTouchesSeenAsPalm(_ f: ForwardTouchFrames) -> [Bool] {
    var slot = 0
    var tool: [Int: Int32] = [:]
    var seen: [Bool] = []
    for e in f.frame.queued where e.type == EventType.abs {
        switch e.code {
        case AbsCode.mtSlot: slot = Int(e.value)
        case AbsCode.mtToolType: tool[slot] = e.value
        case AbsCode.mtTrackingID where e.value >= 0: seen.append(tool[slot, default: 0] == VirtualDeviceSpec.toolPalm)
        default: break
        }
    }
    return seen
}

@Suite struct ForwardTouchFramesTests {
    /// The kernel keeps the selected slot across frames and passes no `ABS_MT_SLOT` on: a slot
    /// is selected when another was selected last, and again after frames that were not written.
    @Test func aSlotIsSelectedOnlyWhenAnotherWasSelectedLast() {
        var f = ForwardTouchFrames(slots: 10, hasPressure: false)
        f.start(time: t(0))
        f.begin(slot: 0, touch: 1, trackingID: 1, x: 1, y: 2, pressure: nil)
        f.start(time: t(10))
        f.move(slot: 0, x: 3, y: 4, pressure: nil)
        f.start(time: t(20))
        f.begin(slot: 1, touch: 2, trackingID: 2, x: 5, y: 6, pressure: nil)
        f.move(slot: 0, x: 7, y: 8, pressure: nil)
        f.start(time: t(30))
        f.move(slot: 0, x: 9, y: 10, pressure: nil)
        f.endFrame()
        expectEqual(lines(f), [
            "SLOT=0 ID=1 TOOL=0 MTX=1 MTY=2 BTN_TOUCH=1 X=1 Y=2",
            "MTX=3 MTY=4 X=3 Y=4",
            "SLOT=1 ID=2 TOOL=0 MTX=5 MTY=6 SLOT=0 MTX=7 MTY=8 X=7 Y=8",
            "MTX=9 MTY=10 X=9 Y=10",
        ])
        f.dropQueued()
        f.start(time: t(40))
        f.move(slot: 0, x: 11, y: 12, pressure: nil)
        f.endFrame()
        expectEqual(lines(f), ["SLOT=0 MTX=11 MTY=12 X=11 Y=12"])
    }

    @Test func palmCancelIsItsOwnFrameAndLeavesTheSlotAFinger() {
        var f = ForwardTouchFrames(slots: 10, hasPressure: false)
        f.start(time: t(0))
        f.begin(slot: 0, touch: 1, trackingID: 13, x: 400, y: 240, pressure: nil)
        f.start(time: t(10))
        f.cancel(slot: 0, mode: .palm)
        f.endFrame()
        expectEqual(lines(f), [
            "SLOT=0 ID=13 TOOL=0 MTX=400 MTY=240 BTN_TOUCH=1 X=400 Y=240",
            "TOOL=2 X=400 Y=240",
            "ID=-1 TOOL=0 BTN_TOUCH=0",
        ])
    }

    @Test func theNextTapAfterAPalmCancelIsAFinger() {
        var f = ForwardTouchFrames(slots: 10, hasPressure: false)
        f.start(time: t(0))
        f.begin(slot: 0, touch: 1, trackingID: 13, x: 400, y: 240, pressure: nil)
        f.start(time: t(10))
        f.cancel(slot: 0, mode: .palm)
        f.start(time: t(20))
        f.begin(slot: 0, touch: 2, trackingID: 14, x: 100, y: 100, pressure: nil)
        f.start(time: t(60))
        f.end(slot: 0)
        f.endFrame()
        expectEqual(newTouchesSeenAsPalm(f), [false, false])
        expectEqual(lines(f).last, "ID=-1 BTN_TOUCH=0")
    }

    @Test func liftModeEndsWithAPlainLift() {
        var f = ForwardTouchFrames(slots: 10, hasPressure: false)
        f.start(time: t(0))
        f.begin(slot: 1, touch: 1, trackingID: 5, x: 10, y: 20, pressure: nil)
        f.start(time: t(10))
        f.cancel(slot: 1, mode: .lift)
        f.endFrame()
        expectEqual(lines(f), [
            "SLOT=1 ID=5 TOOL=0 MTX=10 MTY=20 BTN_TOUCH=1 X=10 Y=20",
            "ID=-1 BTN_TOUCH=0",
        ])
        expect(f.slots.allSatisfy { $0 == nil })
    }

    /// A delayed tap: began, moved and ended handed over at one time still make three frames.
    @Test func aBeginAndAnEndOfOneSlotNeverShareAFrame() {
        var f = ForwardTouchFrames(slots: 10, hasPressure: false)
        f.start(time: t(500))
        f.begin(slot: 0, touch: 1, trackingID: 13, x: 400, y: 240, pressure: nil)
        f.start(time: t(500))
        f.move(slot: 0, x: 401, y: 241, pressure: nil)
        f.start(time: t(500))
        f.end(slot: 0)
        f.endFrame()
        expectEqual(lines(f), [
            "SLOT=0 ID=13 TOOL=0 MTX=400 MTY=240 BTN_TOUCH=1 X=400 Y=240",
            "MTX=401 MTY=241 X=401 Y=241",
            "ID=-1 BTN_TOUCH=0",
        ])
    }

    @Test func aCancelInTheFrameOfItsBeginStillComesAfterIt() {
        for mode in [ForwardCancel.palm, .lift] {
            var f = ForwardTouchFrames(slots: 10, hasPressure: false)
            f.start(time: t(0))
            f.begin(slot: 0, touch: 1, trackingID: 13, x: 400, y: 240, pressure: nil)
            f.cancel(slot: 0, mode: mode)
            f.endFrame()
            let frames = lines(f)
            expectEqual(frames.first, "SLOT=0 ID=13 TOOL=0 MTX=400 MTY=240 BTN_TOUCH=1 X=400 Y=240")
            expectEqual(frames.count, (mode == .palm ? 3 : 2))
            expectEqual(frames.last?.hasPrefix("ID=-1"), true)
        }
    }

    /// Two slots in one frame stay one frame (a real two-finger frame).
    @Test func twoSlotsShareAFrame() {
        var f = ForwardTouchFrames(slots: 10, hasPressure: false)
        f.start(time: t(0))
        f.begin(slot: 0, touch: 1, trackingID: 1, x: 1, y: 2, pressure: nil)
        f.begin(slot: 1, touch: 2, trackingID: 2, x: 3, y: 4, pressure: nil)
        f.endFrame()
        expectEqual(lines(f).count, 1)
    }

    /// `ABS_X`/`ABS_Y` follow the first contact: when the lowest slot lifts, the next one
    /// holding a touch is the first (its last position); when the last lifts, `BTN_TOUCH` 0
    /// and no position.
    @Test func theSingleTouchPositionFollowsTheLowestSlotHeld() {
        var f = ForwardTouchFrames(slots: 10, hasPressure: false)
        f.start(time: t(0))
        f.begin(slot: 0, touch: 1, trackingID: 1, x: 1, y: 2, pressure: nil)
        f.begin(slot: 3, touch: 2, trackingID: 2, x: 30, y: 40, pressure: nil)
        f.start(time: t(10))
        f.move(slot: 3, x: 31, y: 41, pressure: nil)
        f.start(time: t(20))
        f.end(slot: 0)
        f.start(time: t(30))
        f.end(slot: 3)
        f.endFrame()
        expectEqual(lines(f), [
            "SLOT=0 ID=1 TOOL=0 MTX=1 MTY=2 SLOT=3 ID=2 TOOL=0 MTX=30 MTY=40 BTN_TOUCH=1 X=1 Y=2",
            "MTX=31 MTY=41 X=1 Y=2",
            "SLOT=0 ID=-1 X=31 Y=41",
            "SLOT=3 ID=-1 BTN_TOUCH=0",
        ])
    }

    /// A new touch takes the lowest free slot; none is free while every slot holds one, and a
    /// slot is free again once its touch ends (lifted or cancelled).
    @Test func aNewTouchTakesTheLowestFreeSlot() {
        var f = ForwardTouchFrames(slots: 3, hasPressure: false)
        f.start(time: t(0))
        for slot in 0..<3 {
            expectEqual(f.freeSlot(), slot)
            f.begin(slot: slot, touch: slot + 1, trackingID: Int32(slot + 1), x: 0, y: 0, pressure: nil)
        }
        expect(f.freeSlot() == nil)
        f.start(time: t(10))
        f.end(slot: 1)
        expectEqual(f.freeSlot(), 1)
        f.cancel(slot: 0, mode: .palm)
        expectEqual(f.freeSlot(), 0)
        f.begin(slot: 0, touch: 4, trackingID: 4, x: 0, y: 0, pressure: nil)
        expectEqual(f.freeSlot(), 1)
    }
}

/// What a reader of the device sees, as the kernel's input core passes a device's events on when
/// its axes have no fuzz: an absolute value or key equal to the one it holds (a slot's own, for
/// a multi-touch axis) dropped; no `ABS_MT_SLOT` passed as written (the core states the slot
/// before a value of another slot than the last it passed on); a frame with no value left
/// dropped. One line per frame, as ``lines(_:)`` prints them.
private func seenByReader(_ f: ForwardTouchFrames) -> [String] {
    var slot: Int32 = 0
    var slotValues: [Int32: [UInt16: Int32]] = [:]
    var values: [UInt16: Int32] = [:]
    var keys: [UInt16: Int32] = [:]
    var lastPassedSlot: Int32?
    var out: [String] = []
    var line: [String] = []
    let names: [UInt16: String] = [AbsCode.mtTrackingID: "ID", AbsCode.mtToolType: "TOOL", AbsCode.mtPositionX: "MTX",
                                   AbsCode.mtPositionY: "MTY", AbsCode.mtPressure: "P", AbsCode.x: "X", AbsCode.y: "Y"]
    for e in f.frame.queued {
        switch e.type {
        case EventType.syn:
            if !line.isEmpty { out.append(line.joined(separator: " ")) }
            line = []
        case EventType.key:
            if keys[e.code, default: 0] == e.value { continue }
            keys[e.code] = e.value
            line.append("BTN_TOUCH=\(e.value)")
        default:
            if e.code == AbsCode.mtSlot { slot = e.value; continue }
            if e.code > AbsCode.mtSlot {
                let held = slotValues[slot, default: [:]][e.code] ?? (e.code == AbsCode.mtTrackingID ? -1 : 0)
                if held == e.value { continue }
                slotValues[slot, default: [:]][e.code] = e.value
                if lastPassedSlot != slot { line.append("SLOT=\(slot)"); lastPassedSlot = slot }
            } else {
                if values[e.code, default: 0] == e.value { continue }
                values[e.code] = e.value
            }
            line.append("\(names[e.code] ?? "\(e.code)")=\(e.value)")
        }
    }
    return out
}

/// Values the device already holds are left out (axes without fuzz), and so is a frame left
/// with no value: what a reader sees is the same.
@Suite struct ForwardUnchangedValuesTests {
    /// Two fingers: the first moves along x, then along y, then not at all while the second
    /// moves; then both rest (a frame of nothing), the first lifts, the second lifts.
    private func play(_ f: inout ForwardTouchFrames) {
        f.start(time: t(0))
        f.begin(slot: 0, touch: 1, trackingID: 1, x: 10, y: 20, pressure: 30)
        f.start(time: t(10))
        f.move(slot: 0, x: 11, y: 20, pressure: 30)
        f.start(time: t(20))
        f.move(slot: 0, x: 11, y: 21, pressure: 31)
        f.begin(slot: 1, touch: 2, trackingID: 2, x: 50, y: 60, pressure: 30)
        f.start(time: t(30))
        f.move(slot: 0, x: 11, y: 21, pressure: 31)
        f.move(slot: 1, x: 51, y: 60, pressure: 30)
        f.start(time: t(40))
        f.move(slot: 0, x: 11, y: 21, pressure: 31)
        f.move(slot: 1, x: 51, y: 60, pressure: 30)
        f.start(time: t(50))
        f.end(slot: 0)
        f.move(slot: 1, x: 51, y: 60, pressure: 30)
        f.start(time: t(60))
        f.end(slot: 1)
        f.endFrame()
    }

    @Test func unchangedValuesAndEmptyFramesAreLeftOut() {
        var f = ForwardTouchFrames(slots: 10, hasPressure: true, skipsUnchanged: true)
        play(&f)
        expectEqual(lines(f), [
            "SLOT=0 ID=1 TOOL=0 MTX=10 MTY=20 3:58=30 BTN_TOUCH=1 X=10 Y=20",
            "MTX=11 X=11",
            "MTY=21 3:58=31 SLOT=1 ID=2 TOOL=0 MTX=50 MTY=60 3:58=30 Y=21",
            "MTX=51",
            "SLOT=0 ID=-1 X=51 Y=60",
            "SLOT=1 ID=-1 BTN_TOUCH=0",
        ])
    }

    @Test func aReaderSeesWhatItSawWhenEveryValueWasWritten() {
        var every = ForwardTouchFrames(slots: 10, hasPressure: true)
        var changed = ForwardTouchFrames(slots: 10, hasPressure: true, skipsUnchanged: true)
        play(&every)
        play(&changed)
        expect(!seenByReader(every).isEmpty)
        expectEqual(seenByReader(changed), seenByReader(every))
        expect(changed.frame.count < every.frame.count)
    }

    /// A frame with nothing to say is not written; the next frame selects its slot as though
    /// it had never been queued.
    @Test func aFrameOfNothingIsNotWritten() {
        var f = ForwardTouchFrames(slots: 10, hasPressure: false, skipsUnchanged: true)
        f.start(time: t(0))
        f.begin(slot: 0, touch: 1, trackingID: 1, x: 1, y: 2, pressure: nil)
        f.begin(slot: 1, touch: 2, trackingID: 2, x: 3, y: 4, pressure: nil)
        f.start(time: t(10))
        f.move(slot: 0, x: 1, y: 2, pressure: nil)
        f.start(time: t(20))
        f.move(slot: 1, x: 5, y: 4, pressure: nil)
        f.endFrame()
        expectEqual(lines(f), [
            "SLOT=0 ID=1 TOOL=0 MTX=1 MTY=2 SLOT=1 ID=2 TOOL=0 MTX=3 MTY=4 BTN_TOUCH=1 X=1 Y=2",
            "MTX=5",
        ])
        expectEqual(seenByReader(f), ["SLOT=0 ID=1 MTX=1 MTY=2 SLOT=1 ID=2 MTX=3 MTY=4 BTN_TOUCH=1 X=1 Y=2", "MTX=5"])
    }

    /// After a failed write nothing the device holds is known: the next frame says everything.
    @Test func afterAFailedWriteEveryValueIsWrittenAgain() {
        var f = ForwardTouchFrames(slots: 10, hasPressure: false, skipsUnchanged: true)
        f.start(time: t(0))
        f.begin(slot: 0, touch: 1, trackingID: 1, x: 1, y: 2, pressure: nil)
        f.endFrame()
        f.dropQueued()
        f.start(time: t(10))
        f.move(slot: 0, x: 1, y: 2, pressure: nil)
        f.endFrame()
        expectEqual(lines(f), ["SLOT=0 MTX=1 MTY=2 X=1 Y=2"])
    }

    /// The forwarder's own rounding of a position in device units is `rounded()`'s.
    @Test func devicePositionsRoundAsRoundedDoes() {
        let values: [Double] = [0, 0.5, 1.5, 2.5, -0.5, -1.5, 0.49999999999999994, -0.49999999999999994, 4647.5, 4647.499999999999,
                                2555.5000000000005, 1_000_000_000.5, -1_000_000_000.5, 7.25, -7.75, 1e-300]
        for v in values {
            expectEqual(ForwardOutputs.Screen.nearest(v), Int32(v.rounded()), "\(v)")
        }
        expect(ForwardOutputs.Screen.nearest(.nan) == nil)
        expect(ForwardOutputs.Screen.nearest(.infinity) == nil)
        expect(ForwardOutputs.Screen.nearest(3e9) == nil)
        var g = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let v = Double.random(in: -5000...5000, using: &g)
            expectEqual(ForwardOutputs.Screen.nearest(v), Int32(v.rounded()), "\(v)")
        }
    }
}

@Suite struct VirtualTouchscreenFuzzTests {
    private func source(_ udev: [String: String]) -> DeviceDescription {
        DeviceDescription(name: "Wacom", absinfo: [
            AbsCode.x: AbsInfo(minimum: 0, maximum: 1919),
            AbsCode.y: AbsInfo(minimum: 0, maximum: 1079),
            AbsCode.mtSlot: AbsInfo(minimum: 0, maximum: 9),
            AbsCode.mtPositionX: AbsInfo(minimum: 0, maximum: 1919, fuzz: 0),
            AbsCode.mtPositionY: AbsInfo(minimum: 0, maximum: 1079, fuzz: 0),
        ], udevProperties: udev)
    }

    @Test func takesLibinputsFuzzFromUdev() {
        let spec = VirtualDeviceSpec.touchscreen(mirroring: source(["LIBINPUT_FUZZ_35": "8", "LIBINPUT_FUZZ_36": "6",
                                                                    "LIBINPUT_FUZZ_00": "8", "LIBINPUT_FUZZ_01": "6"]))
        expectEqual(spec.absinfo[AbsCode.mtPositionX]?.fuzz, 8)
        expectEqual(spec.absinfo[AbsCode.mtPositionY]?.fuzz, 6)
    }

    @Test func keepsTheKernelsFuzzWithoutUdevs() {
        var s = source([:])
        s.absinfo[AbsCode.mtPositionX]?.fuzz = 4
        let spec = VirtualDeviceSpec.touchscreen(mirroring: s)
        expectEqual(spec.absinfo[AbsCode.mtPositionX]?.fuzz, 4)
        expectEqual(spec.absinfo[AbsCode.mtPositionY]?.fuzz, 0)
        let bad = VirtualDeviceSpec.touchscreen(mirroring: source(["LIBINPUT_FUZZ_35": "x"]))
        expectEqual(bad.absinfo[AbsCode.mtPositionX]?.fuzz, 0)
    }

    @Test func displayCoordinatesTakeNoFuzz() {
        let spec = VirtualDeviceSpec.touchscreen(mirroring: source(["LIBINPUT_FUZZ_35": "8"]), displaySize: Size(width: 1280, height: 720))
        expectEqual(spec.absinfo[AbsCode.mtPositionX]?.fuzz, 0)
    }
}

@Suite struct ForwardCancelOptionTests {
    private func diagnostics(_ plugin: String) -> [String] {
        let yaml = """
        displays:
          - { name: main, size: [1000, 1000] }
        plugins:
        \(plugin)
        screens:
          - name: home
            root:
              name: root
              frame: [0, 0, 1000, 1000]
              handlers: [{ plugin: desktop, on: touch }]
        """
        do {
            let (_, layout) = try ConfigLoader.compile(yaml: yaml, file: "test.yaml")
            return ConfigLoader.warnings(of: layout, file: "test.yaml").map(\.description)
        } catch {
            return error.errors.map(\.description)
        }
    }

    @Test func cancelIsPalmOrLift() {
        expectEqual(diagnostics("  - { name: desktop, type: forward, cancel: lift }"), [])
        expectEqual(diagnostics("  - { name: desktop, type: forward, cancel: palm }"), [])
        expectEqual(diagnostics("  - { name: desktop, type: forward, cancel: up }"), [
            "test.yaml:4:45: error: plugin desktop: `cancel` must be `palm` or `lift`",
        ])
    }
}
