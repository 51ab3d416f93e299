@testable import EvrouteConfig
import EvrouteCore
@testable import EvrouteInput
import EvrouteTestSupport
import Testing
import EvrouteChecks

/// `edge-reject: { margin }` on real recordings: a contact that begins within the margin of the
/// display's edge is dropped whole; one that begins farther in is kept, even where it moves
/// near the edge. And its config errors, at file:line:col.
@Suite("Edge-reject filter")
struct EdgeRejectFilterTests {
    static let screen = Size(width: 1920, height: 1080)

    /// The recording's touch frames on a 1920×1080 display, as the session decodes them.
    func frames(_ name: String) throws -> [TouchFrameInput] {
        let recording = try EvemuRecording.load(path: Recordings.path("touchscreens", name))
        let decoder = TouchDecoder(device: DeviceID(1), description: recording.description, displaySize: Self.screen)
        var out = recording.events.compactMap { decoder.feed($0) }
        if let last = decoder.cancelAll(at: recording.events.last?.time ?? .zero) { out.append(last) }
        return out.filter { !$0.contacts.isEmpty }
    }

    /// The frames through `filters` as the session runs them: (samples routed, filtered).
    func run(_ input: [TouchFrameInput], _ filters: [any ContactFilterOptions]) -> ([ContactSample], [FilteredContact]) {
        var rule = DeviceRuleSpec(name: "touch", match: DeviceMatch(kind: .touchscreen))
        rule.filters = filters
        var stages = TouchFrameFilters.make(for: rule, displaySize: Self.screen)
        var out: [ContactSample] = []
        var filtered: [FilteredContact] = []
        for var frame in input {
            stages.filter(&frame, &filtered)
            out += frame.contacts
        }
        return (out, filtered)
    }

    @Test func aContactBeginningAtTheEdgeIsDroppedWhole() throws {
        // A finger put down near the panel's left edge (x ≈ 127 of 1920).
        let input = try frames("QUANTA OpticalTouchScreen.touch-on-left.events")
        let (plain, none) = run(input, [])
        let began = try #require(plain.first { $0.change == .began })
        expect(began.location.x > 100 && began.location.x < 150 && none.isEmpty)
        let (out, filtered) = run(input, [EdgeRejectFilterOptions(margin: 150)])
        expect(out.isEmpty, "\(out.count) samples of a contact that began at the edge were routed")
        expect(filtered.count == 1 && filtered[0].filter == "edge-reject" && filtered[0].device == "touch")
        expectEqual(filtered[0].location, began.location)
        // A narrower margin takes it.
        expectEqual(run(input, [EdgeRejectFilterOptions(margin: 100)]).0, plain)
    }

    @Test func aContactBeginningInsideIsKeptWhereverItMoves() throws {
        // A drag that begins at y ≈ 191 and moves up to y ≈ 177: inside the margin, after it began.
        let input = try frames("EP0430M09.1-finger-drag-up-down.events")
        let (plain, _) = run(input, [])
        let margin = 185.0
        expectEqual(plain.first { $0.change == .began }.map { $0.location.y > margin }, true)
        expect(plain.contains { $0.location.y < margin }, "the recording never comes near the edge")
        let (out, filtered) = run(input, [EdgeRejectFilterOptions(margin: margin)])
        expect(out == plain && filtered.isEmpty)
    }

    @Test func itsRemovalsAreCountedUnderItsName() {
        expectEqual(TouchFrameFilters.removalNames([EdgeRejectFilterOptions(margin: 10)]), ["edge-reject"])
    }

    func layout(_ filters: String, size: String = "[800, 480]") -> String {
        """
        displays: [{ name: main, size: \(size) }]
        devices:
          - name: touch
            match: { kind: touchscreen }
            display: main
            filters: \(filters)
        screens: [{ name: home, root: { name: root, frame: [0, 0, 800, 480] } }]
        """
    }

    func errors(_ yaml: String) -> [String] {
        do {
            _ = try ConfigLoader.parse(yaml: yaml, file: "test.yaml")
            return []
        } catch {
            return error.errors.map(\.description)
        }
    }

    @Test func marginIsRead() throws {
        let rule = try ConfigLoader.parse(yaml: layout("{ edge-reject: { margin: 12 } }"), file: "test.yaml").deviceRules[0]
        expect(rule.filters.count == 1 && (rule.filters[0] as? EdgeRejectFilterOptions)?.margin == 12)
    }

    @Test func marginErrorsAreAtTheValue() {
        expectEqual(errors(layout("{ edge-reject: { margin: 0 } }")), ["test.yaml:6:39: error: 'margin' must be a distance in display units, more than 0, found 0"])
        expectEqual(errors(layout("{ edge-reject: { margin: wide } }")), ["test.yaml:6:39: error: 'margin' must be a number, found string 'wide'"])
        expectEqual(errors(layout("{ edge-reject: {} }")), ["test.yaml:6:29: error: 'edge-reject' is missing required key 'margin' (the distance from the display's edges, in display units)"])
        // Half of 480 is 240: no contact could begin anywhere.
        expectEqual(errors(layout("{ edge-reject: { margin: 240 } }")), ["test.yaml:6:39: error: 'margin' must be less than half the smaller side of display 'main' (800x480: less than 240), found 240"])
        expect(errors(layout("{ edge-reject: { margin: 239 } }")).isEmpty)
        expectEqual(errors(layout("{ edge-reject: { margin: 12, width: 3 } }")), ["test.yaml:6:43: error: unknown key 'width' in 'edge-reject' (expected one of: margin)"])
    }
}
