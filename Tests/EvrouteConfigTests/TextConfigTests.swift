import EvrouteConfig
import EvrouteCore
import EvrouteInput
import Foundation
import Testing
import EvrouteChecks

/// Device rules' text keys: `keymap`, `text`, `line-timeout-ms`, each error at its
/// file:line:col; keymap names checked against xkb-data when it is installed.
@Suite("Text keys of device rules")
struct TextConfigTests {
    static let xkbData = FileManager.default.fileExists(atPath: "/usr/share/X11/xkb/rules/evdev.lst")

    /// A config whose second device rule ends with `extra` (one line, 4 spaces in).
    func config(_ extra: String) -> String {
        """
        displays: [{ name: main, size: [800, 480] }]
        devices:
          - { name: touch, match: { kind: touchscreen } }
          - name: scanner
            match: { kind: keyboard, vendor: 0x05e0 }
        \(extra)
        screens: [{ name: home, root: { name: root, frame: [0, 0, 800, 480] } }]
        """
    }

    @Test func defaultsAreUsTextOn() throws {
        let spec = try parseValid(config(""))
        let rule = spec.deviceRules[1]
        expectEqual(rule.keymap, KeymapSpec(layout: "us"))
        expectEqual(rule.text, .on)
        expectEqual(rule.lineTimeoutMs, 300)
    }

    @Test func keymapTextAndTimeoutAreRead() throws {
        let spec = try parseValid(config("""
            keymap: { layout: de, variant: nodeadkeys, options: [compose:ralt, "ctrl:nocaps"] }
            text: line
            line-timeout-ms: 50
        """))
        let rule = spec.deviceRules[1]
        expectEqual(rule.keymap, KeymapSpec(layout: "de", variant: "nodeadkeys", options: ["compose:ralt", "ctrl:nocaps"]))
        expectEqual(rule.keymap.description, "de(nodeadkeys) +compose:ralt,ctrl:nocaps")
        expectEqual(rule.text, .line)
        expectEqual(rule.lineTimeoutMs, 50)
        expectEqual(rule.keymapLocation?.line, 6)
        // A layout alone; options as one comma-separated string; text as a bool.
        let short = try parseValid(config("    keymap: fr\n    text: false"))
        expectEqual(short.deviceRules[1].keymap, KeymapSpec(layout: "fr"))
        expectEqual(short.deviceRules[1].text, .off)
        let joined = try parseValid(config("    keymap: { layout: \"us,de\", options: \"compose:ralt, ctrl:nocaps\" }\n    text: true"))
        expectEqual(joined.deviceRules[1].keymap.options, ["compose:ralt", "ctrl:nocaps"])
        expectEqual(joined.deviceRules[1].text, .on)
    }

    @Test func rulesDifferWhenTheirTextDiffers() throws {
        let a = try parseValid(config("    keymap: de")).deviceRules[1]
        let b = try parseValid(config("    keymap: us")).deviceRules[1]
        let c = try parseValid(config("    text: line")).deviceRules[1]
        let d = try parseValid(config("")).deviceRules[1]
        expect(a != b && c != d && b == d)
    }

    @Test func unknownKeymapKeyHasDidYouMean() {
        expectOne(parseErrors(config("    keymap: { layuot: de }")), line: 6, column: 15,
                  "unknown key 'layuot' in 'keymap' (expected one of: layout, variant, options); did you mean 'layout'?",
                  kind: .unknownKey)
    }

    @Test func keymapOfTheWrongType() {
        expectOne(parseErrors(config("    keymap: [de]")), line: 6, column: 13,
                  "'keymap' must be a mapping { layout, variant, options } or a layout name, found a list [de]", kind: .wrongType)
    }

    @Test func textMustBeTrueFalseOrLine() {
        expectOne(parseErrors(config("    text: lines")), line: 6, column: 11,
                  "'text' must be true (text events as keys are typed), false (keys only) or line (one text event per line: scanners), found string 'lines'; did you mean 'line'?",
                  kind: .invalidValue)
    }

    @Test func lineTimeoutOnlyWithLinesAndInRange() {
        expectOne(parseErrors(config("    line-timeout-ms: 100")), line: 6, column: 5,
                  "'line-timeout-ms' applies to 'text: line' only", kind: .invalidValue)
        expectOne(parseErrors(config("    text: line\n    line-timeout-ms: 70000")), line: 7, column: 22,
                  "'line-timeout-ms' must be a whole number of milliseconds from 0 (wait for Enter) to 60000, found 70000")
        expectOne(parseErrors(config("    text: line\n    line-timeout-ms: 20ms")), line: 7, column: 22,
                  "'line-timeout-ms' must be an integer, found string '20ms'", kind: .wrongType)
        // A bad `text` is said once, not again for the timeout.
        expectEqual(parseErrors(config("    text: lines\n    line-timeout-ms: 100")).count, 1)
    }

    @Test("An unknown layout is an error naming it, with did-you-mean", .enabled(if: xkbData))
    func unknownLayout() {
        expectOne(parseErrors(config("    keymap: { layout: fre }")), line: 6, column: 23,
                  "unknown keymap layout 'fre' (no such layout in xkb-data under /usr/share/X11/xkb); did you mean 'fr'?",
                  kind: .invalidValue)
        expectOne(parseErrors(config("    keymap: zz9")), line: 6, column: 13, "unknown keymap layout 'zz9'")
        expectOne(parseErrors(config("    keymap: { layout: \"us,dee\" }")), line: 6, column: 23, "unknown keymap layout 'dee'")
    }

    @Test("An unknown variant or option is an error, with did-you-mean", .enabled(if: xkbData))
    func unknownVariantAndOption() {
        expectOne(parseErrors(config("    keymap: { layout: de, variant: nodeadkey }")), line: 6, column: 36,
                  "unknown variant 'nodeadkey' of keymap layout 'de' (it has: ", kind: .invalidValue)
        expectEqual(parseErrors(config("    keymap: { layout: de, variant: nodeadkey }")).first?.message.hasSuffix("did you mean 'nodeadkeys'?"), true)
        expectOne(parseErrors(config("    keymap: { layout: us, options: [ctrl:nocap] }")), line: 6, column: 37,
                  "unknown keymap option 'ctrl:nocap' (xkb-data's options are GROUP:NAME, e.g. compose:ralt, ctrl:nocaps); did you mean 'ctrl:nocaps'?")
        expectOne(parseErrors(config("    keymap: { layout: \"us,de\", variant: \",nodeadkeys,x\" }")), line: 6, column: 41,
                  "keymap 'variant' has 3 variants for 2 layout(s)")
        // Variants that are sections of the layout's file but not listed in evdev.lst are known.
        expect(parseErrors(config("    keymap: { layout: de, variant: basic }")).isEmpty)
        expect(parseErrors(config("    keymap: { layout: \"us,de\", variant: \",nodeadkeys\" }")).isEmpty)
    }
}
