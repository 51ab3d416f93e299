@testable import EvrouteConfig
import EvrouteCore
@testable import EvrouteInput
import Testing
import EvrouteChecks

/// Contact filters on real recordings with synthesized noise: ghost taps
/// mixed in at a fixed point, jitter on a resting finger, a contact turning MT_TOOL_PALM.
/// Each test fails without its filter (the unfiltered run is checked to hold the noise).

private let screen = Size(width: 1920, height: 1080)

private func frames(_ name: String) throws -> [TouchFrameInput] {
    let recording = try EvemuRecording.load(path: Recordings.path("touchscreens", name))
    let decoder = TouchDecoder(device: DeviceID(1), description: recording.description, displaySize: screen)
    var out = recording.events.compactMap { decoder.feed($0) }
    if let last = decoder.cancelAll(at: recording.events.last?.time ?? .zero) { out.append(last) }
    return out.filter { !$0.contacts.isEmpty }
}

private func rule(_ filters: any ContactFilterOptions...) -> DeviceRuleSpec {
    var rule = DeviceRuleSpec(name: "touch", match: DeviceMatch(kind: .touchscreen))
    rule.filters = filters
    return rule
}

/// Runs frames through the rule's filters as the session does: (frames routed, filtered).
private func run(_ input: [TouchFrameInput], _ rule: DeviceRuleSpec) -> ([TouchFrameInput], [FilteredContact]) {
    var filters = TouchFrameFilters.make(for: rule, displaySize: screen)
    var out: [TouchFrameInput] = []
    var filtered: [FilteredContact] = []
    for var frame in input {
        filters.filter(&frame, &filtered)
        if !frame.contacts.isEmpty { out.append(frame) }
    }
    return (out, filtered)
}

/// Each contact's samples in order.
private func lives(_ frames: [TouchFrameInput]) -> [Int: [ContactSample]] {
    var out: [Int: [ContactSample]] = [:]
    for frame in frames { for s in frame.contacts { out[s.contact, default: []].append(s) } }
    return out
}

/// `frames` with a ghost tap (`duration` µs, contact numbers from 1000) at a fixed point every
/// `every` µs of the recording's time, merged in event-time order.
private func withGhostTaps(_ frames: [TouchFrameInput], at point: Point, every: Int64, duration: Int64) -> [TouchFrameInput] {
    guard let first = frames.first?.time.microseconds, let last = frames.last?.time.microseconds else { return frames }
    var ghosts: [TouchFrameInput] = []
    var t = first + every / 2, n = 1000
    while t + duration < last {
        ghosts.append(TouchFrameInput(device: DeviceID(1), time: Timestamp(microseconds: t),
                                      contacts: [ContactSample(contact: n, change: .began, location: point)]))
        ghosts.append(TouchFrameInput(device: DeviceID(1), time: Timestamp(microseconds: t + duration),
                                      contacts: [ContactSample(contact: n, change: .ended, location: point)]))
        t += every
        n += 1
    }
    return (frames + ghosts).enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(\.element)
}

@Suite("Contact filters")
struct TouchFrameFilterTests {
    static let fastTaps = "Atmel maXTouch Touchscreen.1-finger-fast-taps.events"
    static let drag = "Atmel maXTouch Touchscreen.1-finger-drag-up-down.events"

    /// The measurement behind the `ghost-taps` default (docs/config.md, "Noisy panels"; also
    /// scripts/measure-taps.py): the shortest contact (down to up, event time) of every
    /// touchscreen recording of the fixtures. Contacts shorter than the default bound exist only
    /// as the one- and two-frame contacts (8, 10, 16 ms) of the Wacom DTH2242's multi-finger
    /// session; every other contact, real taps included, outlives it.
    @Test func defaultGhostTapBoundIsBelowTheShortestRealTap() throws {
        var shortest = Int64.max
        var contacts = 0
        var taps: [(Int64, String)] = []
        for path in Recordings.eventFiles(in: "touchscreens") {
            let name = String(path.split(separator: "/").last!)
            var began: [Int: Int64] = [:]
            for frame in try frames(name) {
                for s in frame.contacts {
                    switch s.change {
                    case .began: began[s.contact] = frame.time.microseconds
                    case .ended:
                        if let b = began.removeValue(forKey: s.contact) {
                            shortest = min(shortest, frame.time.microseconds - b)
                            contacts += 1
                            taps.append((frame.time.microseconds - b, name))
                        }
                    default: break
                    }
                }
            }
        }
        print("filters: shortest real tap \(Double(shortest) / 1000) ms over \(contacts) contacts; shortest five:",
              taps.sorted { $0.0 < $1.0 }.prefix(5).map { "\(Double($0.0) / 1000) ms (\($0.1))" })
        expect(contacts > 10)
        let bound = Int64(GhostTapFilterOptions.defaultMaxDurationMs) * 1000
        let shorter = taps.filter { $0.0 < bound }
        expectEqual(shorter.count, 3)
        expect(shorter.allSatisfy { $0.1 == "Wacom DTH2242 Finger.events" })
        expect(taps.filter { $0.1 != "Wacom DTH2242 Finger.events" }.allSatisfy { $0.0 > bound })
    }

    @Test func ghostTapsAtAFixedPointAreDroppedAndRealTapsKept() throws {
        let real = try frames(Self.fastTaps)
        let realTouches = lives(real).count
        let ghost = Point(x: 1900, y: 20)
        let noisy = withGhostTaps(real, at: ghost, every: 500_000, duration: 8_000)
        let ghosts = lives(noisy).count - realTouches
        expect(ghosts > 3)
        // Unfiltered, the ghosts would be routed.
        expectEqual(lives(run(noisy, rule()).0).count, realTouches + ghosts)
        let (out, filtered) = run(noisy, rule(GhostTapFilterOptions()))
        let kept = lives(out)
        expectEqual(kept.count, realTouches)
        expect(kept.keys.allSatisfy { $0 < 1000 })
        expectEqual(filtered.count, ghosts)
        expect(filtered.allSatisfy { $0.filter == "ghost-tap" && $0.location == ghost && $0.device == "touch" })
        // Every real touch is delivered whole, its samples in order (began first, one end).
        let original = lives(real)
        for (contact, samples) in kept {
            expectEqual(samples.map(\.location), original[contact]?.map(\.location))
            expectEqual(samples.first?.change, .began)
            expectEqual(samples.filter { $0.change == .ended || $0.change == .cancelled }.count, 1)
        }
    }

    @Test func aHeldContactIsDeliveredWithItsSamplesInOrder() {
        let at = { (ms: Int64, change: ContactChange, x: Double) in
            TouchFrameInput(device: DeviceID(1), time: Timestamp(microseconds: ms * 1000),
                            contacts: [ContactSample(contact: 1, change: change, location: Point(x: x, y: 0))])
        }
        let input = [at(0, .began, 1), at(10, .moved, 2), at(20, .moved, 3), at(30, .moved, 4), at(40, .ended, 4)]
        let (out, filtered) = run(input, rule(GhostTapFilterOptions(maxDurationMs: 25)))
        expect(filtered.isEmpty)
        expectEqual(out.map(\.time.microseconds), [30_000, 40_000])
        expectEqual(out[0].contacts.map(\.change), [.began, .moved, .moved, .moved])
        expectEqual(out[0].contacts.map(\.location.x), [1, 2, 3, 4])
    }

    @Test func jitterOnARestingFingerIsNotReported() throws {
        // A real drag, then the finger rests at its last point with ±2 noise for a second.
        var real = try frames(Self.drag)
        let end = real.removeLast()   // its end (or cancel)
        guard let lastSample = end.contacts.first, end.contacts.count == 1 else { Issue.record("one contact ends last"); return }
        var resting: [TouchFrameInput] = []
        let offsets: [(Double, Double)] = [(2, 0), (-2, 1), (1, -2), (0, 2), (-1, -1), (2, 2)]
        for i in 0..<100 {
            let (dx, dy) = offsets[i % offsets.count]
            resting.append(TouchFrameInput(device: DeviceID(1), time: end.time + .milliseconds(Int64(10 * i)),
                contacts: [ContactSample(contact: lastSample.contact, change: .moved,
                                         location: Point(x: lastSample.location.x + dx, y: lastSample.location.y + dy))]))
        }
        var finish = end
        finish.time = end.time + .milliseconds(1000)
        let noisy = real + resting + [finish]
        let moves = { (frames: [TouchFrameInput]) in frames.flatMap(\.contacts).filter { $0.change == .moved }.count }
        let unfiltered = moves(run(noisy, rule()).0)
        let (out, filtered) = run(noisy, rule(JitterFilterOptions(hysteresis: 3)))   // √8 < 3: ±2 in x and y stays in
        let realMoves = moves(run(real + [finish], rule(JitterFilterOptions(hysteresis: 3))).0)
        expect(unfiltered >= realMoves + 100)
        expect(moves(out) <= realMoves + 1)   // at most one move to settle where it rests
        expect(filtered.isEmpty)   // jitter hides moves, it drops no contact
        expect(realMoves > 10)     // the drag itself still moves
    }

    @Test func aContactTurningPalmIsCancelledAndAPalmNeverBegins() throws {
        var real = try frames(Self.drag)
        // From the middle of the drag on, the panel reports the contact as MT_TOOL_PALM.
        let half = real.count / 2
        for i in half..<real.count { for j in real[i].contacts.indices { real[i].contacts[j].toolType = PalmFilter.toolPalm } }
        let unfiltered = lives(run(real, rule()).0)
        expect(unfiltered.values.allSatisfy { $0.last?.change == .ended || $0.last?.change == .cancelled })
        let (out, filtered) = run(real, rule(PalmFilterOptions(tool: true)))
        let kept = lives(out)
        expectEqual(kept.count, unfiltered.count)
        for samples in kept.values {
            expectEqual(samples.last?.change, .cancelled)
            expectEqual(samples.filter { $0.change == .cancelled }.count, 1)
        }
        expect(out.last!.time < real.last!.time)   // nothing after the cancel
        expect(filtered.count == kept.count && filtered.allSatisfy { $0.filter == "palm" })
        // A contact that is a palm from its start (a large touch major) is never begun.
        let big = TouchFrameInput(device: DeviceID(1), time: Timestamp(microseconds: 1),
                                  contacts: [ContactSample(contact: 7, change: .began, location: Point(x: 5, y: 5), majorRadius: 40)])
        var up = big
        up.contacts[0].change = .ended
        let (none, told) = run([big, up], rule(PalmFilterOptions(tool: false, size: 30)))
        expect(none.isEmpty && told.count == 1)
    }

    @Test func ignoredAreaAndLightContactsAreDroppedWhole() throws {
        let real = try frames(Self.fastTaps)
        let noisy = withGhostTaps(real, at: Point(x: 5, y: 540), every: 300_000, duration: 120_000)
        let ghosts = lives(noisy).count - lives(real).count
        let (out, filtered) = run(noisy, rule(IgnoreFilterOptions([Rect(x: 0, y: 0, width: 10, height: 1080)])))
        expectEqual(lives(out).count, lives(real).count)
        expect(filtered.count == ghosts && filtered.allSatisfy { $0.filter == "ignore" })
        // Pressure: a light contact is dropped, one without pressure kept.
        let light = TouchFrameInput(device: DeviceID(1), time: .zero, contacts: [
            ContactSample(contact: 1, change: .began, location: Point(x: 1, y: 1), pressure: 3),
            ContactSample(contact: 2, change: .began, location: Point(x: 1, y: 1), pressure: nil),
        ])
        let (kept, told) = run([light], rule(PressureFilterOptions(min: 10)))
        expectEqual(kept.flatMap(\.contacts).map(\.contact), [2])
        expectEqual(told.map(\.filter), ["pressure"])
    }

    @Test func aContactHeldStillIsDeliveredAtItsDeadline() {
        // Evdev sends nothing while a finger rests still: the bound runs out on the event clock.
        var filters = TouchFrameFilters.make(for: rule(GhostTapFilterOptions(maxDurationMs: 20)), displaySize: screen)
        var filtered: [FilteredContact] = []
        var down = TouchFrameInput(device: DeviceID(1), time: Timestamp(microseconds: 1_000_000),
                                   contacts: [ContactSample(contact: 3, change: .began, location: Point(x: 9, y: 9))])
        filters.filter(&down, &filtered)
        expect(down.contacts.isEmpty)
        expectEqual(filters.deadline, Timestamp(microseconds: 1_020_000))
        expect(filters.expire(device: DeviceID(1), at: Timestamp(microseconds: 1_019_999), &filtered) == nil)
        let due = filters.expire(device: DeviceID(1), at: Timestamp(microseconds: 1_020_000), &filtered)
        expectEqual(due?.time, Timestamp(microseconds: 1_020_000))
        expectEqual(due?.contacts.map(\.change), [.began])
        expect(filters.deadline == nil && filtered.isEmpty)
    }

    @Test func aContactThatNeverMovesIsCancelledAtItsStuckDeadlineAndThenIgnored() throws {
        // A real drag, then a contact that lands and stays (±1 unit of jitter, under the
        // hysteresis) — dirt on an IR frame. Without the filter it stays down to the end.
        let real = try frames(Self.drag)
        let t0 = (real.last?.time.microseconds ?? 0) + 100_000
        var stuck: [TouchFrameInput] = [TouchFrameInput(device: DeviceID(1), time: Timestamp(microseconds: t0),
                                                        contacts: [ContactSample(contact: 900, change: .began, location: Point(x: 500, y: 500))])]
        for i in 1...40 {   // 2 s of jitter, a frame every 50 ms
            stuck.append(TouchFrameInput(device: DeviceID(1), time: Timestamp(microseconds: t0 + Int64(i) * 50_000),
                                         contacts: [ContactSample(contact: 900, change: .moved, location: Point(x: 500 + Double(i % 2), y: 500))]))
        }
        let input = real + stuck
        let (plain, _) = run(input, rule())
        expectEqual(lives(plain)[900]?.last?.change, .moved)            // never ends without the filter
        let (out, told) = run(input, rule(StuckFilterOptions(seconds: 1)))
        let life = lives(out)[900] ?? []
        expect(life.first?.change == .began && life.last?.change == .cancelled)
        expectEqual(life.filter { $0.change == .cancelled }.count, 1)
        expectEqual(told.map(\.filter), ["stuck"])
        // The drag moved past the hysteresis all along: untouched.
        expect(lives(out).filter { $0.key != 900 }.values.allSatisfy { $0.last?.change != .cancelled })
        // A contact resting with no frame at all is cancelled on the deadline (the session's timer).
        var filters = TouchFrameFilters.make(for: rule(StuckFilterOptions(seconds: 2)), displaySize: screen)
        var filtered: [FilteredContact] = []
        var down = TouchFrameInput(device: DeviceID(1), time: Timestamp(microseconds: 5_000_000),
                                   contacts: [ContactSample(contact: 7, change: .began, location: Point(x: 1, y: 1))])
        filters.filter(&down, &filtered)
        expectEqual(filters.deadline, Timestamp(microseconds: 7_000_000))
        let due = filters.expire(device: DeviceID(1), at: Timestamp(microseconds: 7_000_000), &filtered)
        expect(due?.contacts.map(\.change) == [.cancelled] && filtered.map(\.filter) == ["stuck"])
    }

    @Test func noFiltersMakeAnEmptyList() {
        expect(TouchFrameFilters.make(for: rule(), displaySize: screen).isEmpty)
    }
}
