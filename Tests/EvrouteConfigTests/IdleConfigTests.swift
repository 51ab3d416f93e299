import EvrouteConfig
import EvrouteCore
import Testing
import EvrouteChecks

/// A display's `idle:`: read, its errors at file:line:col with the valid
/// range and a did-you-mean, and `check`'s warning for idle handlers that can never fire.
@Suite("Idle on displays")
struct IdleConfigTests {
    /// A config whose display ends with `idle` (line 4), and whose screen and root take `on`.
    func config(_ idle: String, screen: String = "[idle, active]", root: String = "[touch]") -> String {
        """
        displays:
          - name: main
            size: [800, 480]
        \(idle)
        devices: [{ name: touch, match: { kind: touchscreen } }]
        screens:
          - name: home
            handlers: [{ plugin: log, on: \(screen) }]
            root:
              name: root
              frame: [0, 0, 800, 480]
              handlers: [{ plugin: log, on: \(root) }]
        """
    }

    func warnings(_ yaml: String) throws -> [String] {
        let (_, layout) = try ConfigLoader.compile(yaml: yaml, file: "test.yaml")
        return ConfigLoader.warnings(of: layout, file: "test.yaml").map { "\($0.line):\($0.column ?? 0): \($0.message)" }
    }

    @Test func idleIsRead() throws {
        let display = try parseValid(config("    idle: { after-s: 120, swallow-wake-touch: true }")).displays[0]
        expect(display.idle?.afterSeconds == 120 && display.idle?.swallowWakeTouch == true)
        expectEqual(display.idle?.after, Timestamp.Duration(microseconds: 120_000_000))
        expectEqual(display.idle?.location?.line, 4)
        let plain = try parseValid(config("    idle: { after-s: 0.5e1 }")).displays[0]
        expect(plain.idle?.afterSeconds == 5 && plain.idle?.swallowWakeTouch == false)
        try expect(try parseValid(config("")).displays[0].idle == nil)
    }

    @Test func errorsNameTheirPlaceAndTheRange() {
        expectOne(parseErrors(config("    idle: { after-s: 0 }")), line: 4, column: 22,
                  "'after-s' must be between 1 and 86400, found 0")
        expectOne(parseErrors(config("    idle: { after-s: 100000 }")), line: 4, column: 22,
                  "'after-s' must be between 1 and 86400, found 100000")
        expectOne(parseErrors(config("    idle: { swallow-wake-touch: true }")), line: 4, column: 11,
                  "'idle' is missing required key 'after-s' (seconds without input before the display goes idle, 1 to 86400)", kind: .missingKey)
        expectOne(parseErrors(config("    idle: { after-s: 60, swallow-wake-touch: 3 }")), line: 4, column: 46, "'swallow-wake-touch'")
        expectOne(parseErrors(config("    idle: { after-s: soon }")), line: 4, column: 22, "'after-s'")
    }

    @Test func unknownKeysHaveDidYouMean() {
        expectOne(parseErrors(config("    idle: { after-s: 60, swallow-wake-tuch: true }")), line: 4, column: 26,
                  "unknown key 'swallow-wake-tuch' in 'idle' (expected one of: after-s, swallow-wake-touch); did you mean 'swallow-wake-touch'?", kind: .unknownKey)
        expectOne(parseErrors(config("    idel: { after-s: 60 }")), line: 4, column: 5,
                  "unknown key 'idel' in display 'main' (expected one of: name, size, screen, idle); did you mean 'idle'?", kind: .unknownKey)
        // An unknown event kind lists idle and active among the kinds.
        expectOne(parseErrors(config("    idle: { after-s: 60 }", screen: "[idel]")), line: 8, column: 36,
                  "unknown event kind 'idel' in 'on' (expected one of: touch, touch-began, touch-moved, touch-ended, touch-cancelled, tap, key, key:KEY_NAME, text, motion, orientation, idle, active, action:NAME, gesture:NAME, any)")
    }

    /// `check` accepts idle and active handlers; without any display's `idle:` they can never
    /// fire, and on a region neither (idle starts at the top screen): a warning at the `on:` item.
    @Test func handlersThatCanNeverFireAreWarnedAbout() throws {
        try expect(try warnings(config("    idle: { after-s: 60 }")).isEmpty)
        try expectEqual(try warnings(config("")), [
            "8:36: a handler on 'idle' never gets an event: no display has 'idle:' (give one 'idle: { after-s: 120 }')",
        ])
        try expectEqual(try warnings(config("    idle: { after-s: 60 }", root: "[touch, active]")), [
            "12:45: a handler on 'active' on a region never gets an event: idle and active start at the display's top screen (put it on the screen, 'application:' or 'fallback:')",
        ])
    }
}
