import EvrouteConfig
import EvrouteCore
import Testing

/// Every number of a layout has a valid range, checked where the config is read, with
/// file:line:col (issue 16): sizes, frames and distances within ±1,000,000; gesture durations
/// > 0 and ≤ 3600 s; calibration entries within ±1000; and a layout needs a display. Each of
/// these passed `check` before and trapped or misrouted at run time.
@Suite("Config limits")
struct LimitsTests {
    func errors(_ yaml: String) -> [String] {
        do {
            _ = try ConfigLoader.compile(yaml: yaml, file: "t.yaml")
            return []
        } catch {
            return error.errors.map(\.description)
        }
    }

    @Test func hugeSizesFramesDurationsAndCalibrationsAreErrorsAtTheirValue() {
        let yaml = """
            displays: [{ name: main, size: [1e16, 800] }]
            devices: [{ name: t, match: {}, calibration: [1e308, 0, 0, 0, 1, 0] }]
            screens:
              - name: home
                root:
                  name: root
                  frame: [0, 0, 1280, 1e16]
                  hit-insets: -1e9
                  gestures:
                    - { name: lp, type: long-press, minimum-duration: 1e13 }
                    - { name: sw, type: swipe, maximum-duration: 1e13 }
            """
        #expect(errors(yaml) == [
            "t.yaml:1:33: error: each element of 'size' must be between -1000000 and 1000000, found 1e16",
            "t.yaml:2:47: error: each element of 'calibration' must be between -1000 and 1000, found 1e308",
            "t.yaml:7:27: error: each element of 'frame' must be between -1000000 and 1000000, found 1e16",
            "t.yaml:8:19: error: 'hit-insets' must be between -1000000 and 1000000, found -1e9",
            "t.yaml:10:59: error: 'minimum-duration' must be > 0 and ≤ 3600 seconds, found 1e13",
            "t.yaml:11:54: error: 'maximum-duration' must be > 0 and ≤ 3600 seconds, found 1e13",
        ])
    }

    @Test func theLimitsThemselvesAreAccepted() {
        let yaml = """
            displays: [{ name: main, size: [1000000, 1000000] }]
            devices: [{ name: t, match: {}, calibration: [1000, 0, -1000, 0, 1, 0] }]
            screens:
              - name: home
                root:
                  name: root
                  frame: [-1000000, 0, 1000000, 1000000]
                  gestures: [{ name: lp, type: long-press, minimum-duration: 3600 }]
            """
        #expect(errors(yaml) == [])
    }

    @Test func anEmptyConfigIsRefused() {
        #expect(errors("") == ["t.yaml:1:1: error: the layout declares no display: give at least one under 'displays:' (e.g. displays: [{ name: main, size: [1280, 800] }])"])
        #expect(errors("# nothing but a comment\n").count == 1)
    }
}
