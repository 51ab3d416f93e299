import EvrouteConfig
import EvrouteTestSupport
import EvrouteCore
import Testing
import EvrouteChecks

/// Every number of a config has a valid range (docs/config.md, "Limits"), checked where it is
/// read, with file:line:col. Each of these values passed `check` before and then
/// trapped (Double → Int64 of 1e13 s, 1e16 sizes in the trace and plugin encoding) or misrouted
/// (a 1e308 calibration made every coordinate null).
@Suite("Config number ranges")
struct NumberRangeTests {
    func messages(_ yaml: String) -> [String] { compileErrors(yaml).map(\.description) }

    @Test func outOfRangeNumbersAreErrorsAtTheirValue() {
        let yaml = """
            displays: [{ name: main, size: [1e16, 800] }]
            devices: [{ name: t, match: {}, calibration: [1e308, 0, 0, 0, 1, -1001] }]
            screens:
              - name: home
                root:
                  name: root
                  frame: [0, 0, 1280, 1e16]
                  hit-insets: -1e9
                  gestures:
                    - { name: lp, type: long-press, minimum-duration: 1e13, allowable-movement: 1e7 }
                    - { name: sw, type: swipe, maximum-duration: 1e13, minimum-distance: 2e6 }
                    - { name: tp, type: tap, taps: 1000, touches: 300 }
                    - { name: pn, type: pan, maximum-touches: 257 }
                  regions:
                    - { name: a, frame: [-1000001, 0, 10, 10], hit-insets: [0, 0, 0, 1e300] }
                    - { name: b, frame: [0, 0, 10, 10], shape: { rounded-rectangle: 1e7 } }
                    - { name: c, frame: [0, 0, 10, 10], shape: { polygon: [[0, 0], [2e6, 0], [0, 10]] } }
            """
        expectEqual(messages(yaml), [
            "test.yaml:1:33: error: each element of 'size' must be between -1000000 and 1000000, found 1e16",
            "test.yaml:2:47: error: each element of 'calibration' must be between -1000 and 1000, found 1e308",
            "test.yaml:2:66: error: each element of 'calibration' must be between -1000 and 1000, found -1001",
            "test.yaml:7:27: error: each element of 'frame' must be between -1000000 and 1000000, found 1e16",
            "test.yaml:8:19: error: 'hit-insets' must be between -1000000 and 1000000, found -1e9",
            "test.yaml:10:59: error: 'minimum-duration' must be > 0 and ≤ 3600 seconds, found 1e13",
            "test.yaml:10:85: error: 'allowable-movement' must be between 0 and 1000000, found 1e7",
            "test.yaml:11:54: error: 'maximum-duration' must be > 0 and ≤ 3600 seconds, found 1e13",
            "test.yaml:11:78: error: 'minimum-distance' must be between 0 and 1000000, found 2e6",
            "test.yaml:12:40: error: 'taps' must be between 1 and 100, found 1000",
            "test.yaml:12:55: error: 'touches' must be between 1 and 256, found 300",
            "test.yaml:13:51: error: 'maximum-touches' must be between 'touches' (1) and 256, found 257",
            "test.yaml:15:30: error: each element of 'frame' must be between -1000000 and 1000000, found -1000001",
            "test.yaml:15:74: error: each element of 'hit-insets' must be between -1000000 and 1000000, found 1e300",
            "test.yaml:16:73: error: 'rounded-rectangle' radius must be between 0 and 1000000, found 1e7",
            "test.yaml:17:73: error: each element of each polygon point must be between -1000000 and 1000000, found 2e6",
        ])
    }

    @Test func theLimitsThemselvesAreAccepted() throws {
        let yaml = """
            displays: [{ name: main, size: [1000000, 1000000] }]
            devices: [{ name: t, match: {}, calibration: [1000, 0, -1000, 0, 1, 0] }]
            screens:
              - name: home
                root:
                  name: root
                  frame: [-1000000, -1000000, 1000000, 1000000]
                  hit-insets: [1000000, -1000000, 0, 0]
                  shape: { rounded-rectangle: 1000000 }
                  gestures:
                    - { name: lp, type: long-press, minimum-duration: 3600, allowable-movement: 1000000 }
                    - { name: sw, type: swipe, maximum-duration: 0.000001, minimum-distance: 1000000 }
                    - { name: tp, type: tap, taps: 100, touches: 256 }
                    - { name: pn, type: pan, touches: 2, maximum-touches: 256 }
            """
        expectEqual(messages(yaml), [])
    }

    @Test func regionsDocumentsHaveTheSameRanges() {
        // `evroute ctl regions` reads regions as the config does.
        do {
            _ = try ConfigLoader.parseRegions(yaml: "- { name: x, frame: [0, 0, 1e16, 10] }", file: "new.yaml")
            Issue.record("accepted a 1e16 frame")
        } catch {
            expectEqual(error.errors.map(\.description), [
                "new.yaml:1:28: error: each element of 'frame' must be between -1000000 and 1000000, found 1e16",
            ])
        }
    }

    @Test func aConfigWithoutDisplaysIsAnError() {
        let expected = "test.yaml:1:1: error: \(ConfigLoader.noDisplayMessage)"
        expectEqual(messages(""), [expected])
        expectEqual(messages("# only a comment\n"), [expected])
        expectEqual(messages("displays: []\nplugins: [{ name: x, type: log }]\n"), [expected])
        // A screen or device rule without a display says so itself, once.
        expectEqual(messages("screens: [{ name: s, root: { name: r, frame: [0, 0, 1, 1] } }]\n"), [
            "test.yaml:1:19: error: screen 's' needs a display, and none is declared",
        ])
    }
}
