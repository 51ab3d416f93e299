import EvrouteConfig
import EvrouteCore
import Testing
import EvrouteChecks

@Suite struct GestureTests {
    func gestures(_ yaml: String) throws -> [GestureSpec] {
        try parseValid(withRegions("""
                - name: a
                  frame: [0, 0, 100, 100]
                  gestures:
        \(yaml)
        """)).screens[0].root.regions[0].gestures
    }

    @Test func everyKindWithItsKeys() throws {
        let g = try gestures("""
                    - { name: t, type: tap, taps: 2, touches: 2, allowable-movement: 5 }
                    - { name: lp, type: long-press, minimum-duration: 3, allowable-movement: 20, action: open-admin }
                    - { name: sw, type: swipe, direction: [left, up], minimum-distance: 80, maximum-duration: 0.4 }
                    - { name: pan, type: pan, touches: 2, maximum-touches: 3, minimum-distance: 5 }
                    - { name: pinch, type: pinch, cancels-touches: false, delays-touches-began: true, delays-touches-ended: false }
                    - { name: rot, type: rotation, simultaneous-with: [pinch] }
                    - { name: edge, type: screen-edge-pan, edges: [left, right] }
                    - { name: edge2, type: screen-edge-pan, edge: top, require-to-fail: edge }
        """)
        expectEqual(g.map(\.name), ["t", "lp", "sw", "pan", "pinch", "rot", "edge", "edge2"])
        expectEqual(g.map(\.kind), [.tap, .longPress, .swipe, .pan, .pinch, .rotation, .screenEdgePan, .screenEdgePan])
        expect(g[0].taps == 2 && g[0].touches == 2 && g[0].allowableMovement == 5)
        expect(g[1].minimumDuration == 3 && g[1].allowableMovement == 20 && g[1].action == "open-admin")
        expect(g[2].directions == [.left, .up] && g[2].minimumDistance == 80 && g[2].maximumDuration == 0.4)
        expect(g[3].touches == 2 && g[3].maximumTouches == 3 && g[3].minimumDistance == 5)
        expect(!g[4].cancelsTouches && g[4].delaysTouchesBegan && !g[4].delaysTouchesEnded)
        expectEqual(g[5].simultaneousWith, ["pinch"])
        expectEqual(g[6].edges, [.left, .right])
        expect(g[7].edges == [.top] && g[7].requireToFail == ["edge"])
        expectEqual(g[0].location, EvrouteCore.SourceLocation(file: "test.yaml", line: 12, column: 23))
    }

    @Test func defaultsAreUIKits() throws {
        let g = try gestures("""
                    - { name: t, type: tap }
                    - name: s
                      type: swipe
                      direction: down
        """)
        expect(g[0].taps == 1 && g[0].touches == 1 && g[0].cancelsTouches && !g[0].delaysTouchesBegan && g[0].delaysTouchesEnded)
        expect(g[0].action == nil && g[0].requireToFail.isEmpty)
        expectEqual(g[1].directions, [.down])
    }

    @Test func rangesAreChecked() {
        func errors(_ yaml: String) -> [Diagnostic] {
            parseErrors(withRegions("""
                    - name: a
                      frame: [0, 0, 100, 100]
                      gestures:
            \(yaml)
            """))
        }
        expectOne(errors("            - { name: t, type: tap, taps: 0 }"), line: 12, column: 43, "'taps' must be between 1 and 100, found 0")
        expectOne(errors("            - { name: t, type: long-press, minimum-duration: 0 }"), line: 12, column: 62,
                  "'minimum-duration' must be > 0 and ≤ 3600 seconds, found 0")
        expectOne(errors("            - { name: t, type: swipe, maximum-duration: -1 }"), line: 12, column: 57,
                  "'maximum-duration' must be > 0 and ≤ 3600 seconds")
        expectOne(errors("            - { name: t, type: pan, touches: 3, maximum-touches: 2 }"), line: 12, column: 66,
                  "'maximum-touches' must be between 'touches' (3) and 256, found 2")
        expectOne(errors("            - { name: t, type: tap, taps: two }"), line: 12, column: 43,
                  "'taps' must be an integer, found string 'two'", kind: .wrongType)
        expectOne(errors("            - { name: t, type: swipe, direction: sideways }"), line: 12, column: 50,
                  "unknown swipe direction 'sideways' (expected one of: left, right, up, down)")
    }

    @Test func unknownTypeAndMisplacedKeys() {
        expectOne(parseErrors(withRegions("""
                - name: a
                  frame: [0, 0, 100, 100]
                  gestures:
                    - { name: t, type: dbl-tap }
        """)), line: 12, column: 32, "unknown gesture type 'dbl-tap' (expected one of: tap, long-press, swipe,")
        expectOne(parseErrors(withRegions("""
                - name: a
                  frame: [0, 0, 100, 100]
                  gestures:
                    - { name: t, type: swipe, taps: 2 }
        """)), line: 12, column: 39, "'taps' does not apply to a swipe gesture (it applies to: tap)")
    }

    /// Another toolkit's name of a gesture key gets a did-you-mean (`fingers: 2` was
    /// only "unknown key"), as does UIKit's camelCase spelling.
    @Test func gestureKeysOfOtherToolkitsGetADidYouMean() {
        func error(_ gesture: String) -> Diagnostic? {
            let errors = parseErrors(withRegions("""
                    - name: a
                      frame: [0, 0, 100, 100]
                      gestures:
                        - \(gesture)
            """))
            expectEqual(errors.count, 1, "\(errors)")
            return errors.first
        }
        let fingers = error("{ name: two, type: tap, fingers: 2 }")
        expectEqual(fingers?.message.hasSuffix("did you mean 'touches'?"), true, "\(String(describing: fingers))")
        expect(fingers?.kind == .unknownKey && fingers?.line == 12 && fingers?.column == 39, "\(String(describing: fingers))")
        expectEqual(error("{ name: lp, type: long-press, minimumPressDuration: 2 }")?.message.hasSuffix("did you mean 'minimum-duration'?"), true)
        expectEqual(error("{ name: t2, type: tap, numberOfTapsRequired: 2 }")?.message.hasSuffix("did you mean 'taps'?"), true)
        expectEqual(error("{ name: p, type: pan, max_fingers: 3 }")?.message.hasSuffix("did you mean 'maximum-touches'?"), true)
        expectEqual(error("{ name: t3, type: tap, tolerance: 3 }")?.message.hasSuffix("did you mean 'allowable-movement'?"), true)
        expectEqual(error("{ name: t4, type: tap, zorp: 3 }")?.message.contains("did you mean"), false)
    }

    @Test func screenEdgePanNeedsEdges() {
        expectOne(parseErrors(withRegions("""
                - name: a
                  frame: [0, 0, 100, 100]
                  gestures:
                    - name: e
                      type: screen-edge-pan
        """)), line: 12, column: 15, "missing required key 'edges'", kind: .missingKey)
    }
}
