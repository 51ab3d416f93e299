import EvrouteConfig
import EvrouteCore
import EvrouteInput
import Testing
import EvrouteChecks

/// A device rule's `filters:`: each filter read, defaults, and every error
/// at its file:line:col naming the valid range.
@Suite("Filters of device rules")
struct FilterConfigTests {
    /// A config whose touch rule ends with `extra` (lines 4 spaces in, from line 5).
    func config(_ extra: String) -> String {
        """
        displays: [{ name: main, size: [800, 480] }]
        devices:
          - name: touch
            match: { kind: touchscreen }
        \(extra)
        screens: [{ name: home, root: { name: root, frame: [0, 0, 800, 480] } }]
        """
    }

    @Test func noFiltersByDefault() throws {
        try expect(try parseValid(config("")).deviceRules[0].filters.isEmpty)
    }

    @Test func everyFilterIsRead() throws {
        let rule = try parseValid(config("""
            filters:
              ghost-taps: { max-duration-ms: 40 }
              ignore: [[0, 0, 20, 480], [780, 0, 20, 480]]
              jitter: { hysteresis: 3 }
              palm: { tool: true, size: 30 }
              pressure: { min: 12 }
              stuck-after-s: 600
        """)).deviceRules[0]
        // In the order they run: ignore, pressure, palm, ghost-taps, jitter, stuck-after-s.
        expectEqual(rule.filters.count, 6)
        expectEqual(rule.filters[0] as? IgnoreFilterOptions, IgnoreFilterOptions([Rect(x: 0, y: 0, width: 20, height: 480), Rect(x: 780, y: 0, width: 20, height: 480)]))
        expectEqual(rule.filters[1] as? PressureFilterOptions, PressureFilterOptions(min: 12))
        expectEqual(rule.filters[2] as? PalmFilterOptions, PalmFilterOptions(tool: true, size: 30))
        expectEqual(rule.filters[3] as? GhostTapFilterOptions, GhostTapFilterOptions(maxDurationMs: 40))
        expectEqual(rule.filters[4] as? JitterFilterOptions, JitterFilterOptions(hysteresis: 3))
        expectEqual(rule.filters[5] as? StuckFilterOptions, StuckFilterOptions(seconds: 600))
        // Rules with different filters are different rules (a reload reopens the device).
        try expect(rule != (try parseValid(config("")).deviceRules[0]))
    }

    @Test func emptyMappingsTakeTheDefaults() throws {
        let rule = try parseValid(config("    filters: { ghost-taps: {}, jitter: {}, palm: {} }")).deviceRules[0]
        expectEqual(rule.filters.count, 3)
        expectEqual(rule.filters[0] as? PalmFilterOptions, PalmFilterOptions(tool: true, size: nil))
        expectEqual(rule.filters[1] as? GhostTapFilterOptions, GhostTapFilterOptions(maxDurationMs: GhostTapFilterOptions.defaultMaxDurationMs))
        expectEqual(rule.filters[2] as? JitterFilterOptions, JitterFilterOptions(hysteresis: JitterFilterOptions.defaultHysteresis))
    }

    /// `filters:` lists its keys by name, one per registered filter type.
    @Test func theFiltersAreTheRegisteredTypesByName() {
        let names = LayoutSchema.filters.keyNames
        expectEqual(names, names.sorted())
        for name in ["ghost-taps", "ignore", "jitter", "palm", "pressure", "stuck-after-s"] { expect(names.contains(name)) }
    }

    @Test func unknownFilterHasDidYouMean() {
        expectOne(parseErrors(config("    filters: { ghost-tap: {} }")), line: 5, column: 16,
                  "unknown key 'ghost-tap' in 'filters' (expected one of: \(LayoutSchema.filters.keyNames.joined(separator: ", "))); did you mean 'ghost-taps'?",
                  kind: .unknownKey)
        expectOne(parseErrors(config("    filters: { jitter: { hysterisis: 2 } }")), line: 5, column: 26,
                  "unknown key 'hysterisis' in 'jitter' (expected one of: hysteresis); did you mean 'hysteresis'?",
                  kind: .unknownKey)
    }

    @Test func valuesOutOfRangeNameTheRange() {
        expectOne(parseErrors(config("    filters: { ghost-taps: { max-duration-ms: 5000 } }")), line: 5, column: 47,
                  "'max-duration-ms' must be a whole number of milliseconds from 1 to 1000, found 5000")
        expectOne(parseErrors(config("    filters: { jitter: { hysteresis: 0 } }")), line: 5, column: 38,
                  "'hysteresis' must be between 0.1 and 100, found 0")
        expectOne(parseErrors(config("    filters: { ignore: [[0, 0, 0, 10]] }")), line: 5, column: 25,
                  "each area of 'ignore' must be [x, y, width, height] with width and height > 0")
        expectOne(parseErrors(config("    filters: { ignore: [[0, 0, 10]] }")), line: 5, column: 25,
                  "each area of 'ignore' must be [x, y, width, height] in display units")
        expectOne(parseErrors(config("    filters: { pressure: {} }")), line: 5, column: 26,
                  "'pressure' is missing required key 'min'", kind: .missingKey)
        expectOne(parseErrors(config("    filters: { palm: { size: -3 } }")), line: 5, column: 30,
                  "'size' must be between 1 and 10000, found -3")
        expectOne(parseErrors(config("    filters: { stuck-after-s: 0 }")), line: 5, column: 31,
                  "'stuck-after-s' must be between 1 and 86400, found 0")
    }
}
