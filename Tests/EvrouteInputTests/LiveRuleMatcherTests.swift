import EvrouteCore
@testable import EvrouteInput
import Testing
import EvrouteChecks

@Suite struct LiveRuleMatcherTests {
    let panel = DeviceDescription(name: "ELAN Touchscreen", vendor: 0x04f3, product: 0x2a1c,
                                  udevProperties: ["ID_INPUT": "1", "ID_INPUT_TOUCHSCREEN": "1",
                                                   "ID_PATH": "platform-i2c-1", "ID_BUS": "i2c"])

    func rule(_ name: String, _ match: DeviceMatch) -> DeviceRuleSpec { DeviceRuleSpec(name: name, match: match) }

    @Test func emptyMatchTakesEverything() {
        let matcher = DeviceRuleMatcher(rules: [rule("any", DeviceMatch())])
        expectEqual(matcher.firstMatch(for: panel, kind: .touchscreen)?.name, "any")
        expectEqual(matcher.firstMatch(for: DeviceDescription(name: ""), kind: .other)?.name, "any")
    }

    @Test func matchHandsOnTheFirstRuleThatTakesTheDeviceWithItsIndex() throws {
        let matcher = DeviceRuleMatcher(rules: [rule("keys", DeviceMatch(kind: .keyboard)),
                                                rule("panel", DeviceMatch(kind: .touchscreen)), rule("any", DeviceMatch())])
        let panelMatch = try #require(matcher.match(DeviceID(7), panel, kind: .touchscreen))
        expect(panelMatch.id == DeviceID(7) && panelMatch.kind == .touchscreen && panelMatch.description.name == panel.name)
        expect(panelMatch.ruleIndex == 1 && panelMatch.rule.name == "panel")
        expectEqual(matcher.match(DeviceID(8), panel, kind: .other)?.ruleIndex, 2)
        expect(DeviceRuleMatcher(rules: [rule("keys", DeviceMatch(kind: .keyboard))]).match(DeviceID(9), panel, kind: .touchscreen) == nil)
    }

    /// A recorded stream reaches a sink as a live source feeds it: an added device matched once,
    /// handed on with its rule, or ignored with why no rule takes it.
    @Test func aRecordedStreamReachesTheSinkMatchedOnce() {
        final class Recorder: InputSink {
            var lines: [String] = []
            func deviceAdded(_ device: MatchedDevice, at time: Timestamp) {
                lines.append("added \(device.id.rawValue) rule \(device.ruleIndex) \(device.rule.name) at \(time.microseconds)")
            }
            func deviceIgnored(_ id: DeviceID, _ description: DeviceDescription, kind: DeviceKind,
                               reason: DeviceIgnoreReason, at time: Timestamp) {
                lines.append("ignored \(id.rawValue) \(kind.rawValue): \(reason)")
            }
            func events(_ batch: InputBatch, from device: DeviceID) {
                var events: [String] = []
                for i in batch.indices { events.append("\(batch[i].type):\(batch[i].code)=\(batch[i].value)") }
                lines.append("events \(device.rawValue) \(events)")
            }
            func deviceRemoved(_ device: DeviceID, at time: Timestamp) { lines.append("removed \(device.rawValue)") }
        }
        let matcher = DeviceRuleMatcher(rules: [rule("keys", DeviceMatch(kind: .keyboard)), rule("elan", DeviceMatch(name: "ELAN*"))])
        let sink = Recorder()
        let other = DeviceDescription(name: "Other Touchscreen", udevProperties: ["ID_INPUT": "1", "ID_INPUT_TOUCHSCREEN": "1"])
        let t = Timestamp(microseconds: 5)
        for item: InputItem in [.added(DeviceID(1), panel, t), .added(DeviceID(2), other, t),
                                .event(DeviceID(1), InputEvent(time: t, type: EventType.syn, code: SynCode.report, value: 0)),
                                .removed(DeviceID(1), t)] {
            sink.take(item, matching: matcher)
        }
        let why = matcher.whyNone(for: other, kind: DeviceKind.of(other))
        expectEqual(sink.lines, ["added 1 rule 1 elan at 5", "ignored 2 touchscreen: \(why)",
                               "events 1 [\"\(EventType.syn):\(SynCode.report)=0\"]", "removed 1"])
    }

    @Test func kindMustBeEqual() {
        let matcher = DeviceRuleMatcher(rules: [rule("keys", DeviceMatch(kind: .keyboard))])
        expect(matcher.firstMatch(for: panel, kind: .touchscreen) == nil)
        expectEqual(matcher.firstMatch(for: panel, kind: .keyboard)?.name, "keys")
    }

    @Test(arguments: [
        ("ELAN Touchscreen", true), ("ELAN*", true), ("*Touch*", true), ("*touch*", false),
        ("ELAN?Touchscreen", true), ("[DE]LAN *", true), ("[!E]LAN *", false), ("ELAN", false),
        ("*screen", true), ("Touchscreen", false), ("ELAN\\ Touchscreen", true),
    ])
    func nameIsAWholeStringShellGlob(pattern: String, matches: Bool) {
        let matcher = DeviceRuleMatcher(rules: [rule("r", DeviceMatch(name: pattern))])
        expectEqual((matcher.firstMatch(for: panel, kind: .touchscreen) != nil), matches)
    }

    @Test func vendorAndProductMustBeEqual() {
        let both = DeviceRuleMatcher(rules: [rule("r", DeviceMatch(vendor: 0x04f3, product: 0x2a1c))])
        expect(both.firstMatch(for: panel, kind: .touchscreen) != nil)
        let wrongProduct = DeviceRuleMatcher(rules: [rule("r", DeviceMatch(vendor: 0x04f3, product: 0x2a1d))])
        expect(wrongProduct.firstMatch(for: panel, kind: .touchscreen) == nil)
        let wrongVendor = DeviceRuleMatcher(rules: [rule("r", DeviceMatch(vendor: 0x046d))])
        expect(wrongVendor.firstMatch(for: panel, kind: .touchscreen) == nil)
        let vendorOnly = DeviceRuleMatcher(rules: [rule("r", DeviceMatch(vendor: 0x04f3))])
        expect(vendorOnly.firstMatch(for: panel, kind: .touchscreen) != nil)
    }

    @Test func everyUdevPropertyGlobMustMatch() {
        let one = DeviceRuleMatcher(rules: [rule("r", DeviceMatch(udev: ["ID_PATH": "platform-*"]))])
        expect(one.firstMatch(for: panel, kind: .touchscreen) != nil)
        let two = DeviceRuleMatcher(rules: [rule("r", DeviceMatch(udev: ["ID_PATH": "platform-*", "ID_BUS": "usb"]))])
        expect(two.firstMatch(for: panel, kind: .touchscreen) == nil)
        let missing = DeviceRuleMatcher(rules: [rule("r", DeviceMatch(udev: ["ID_SERIAL": "*"]))])
        expect(missing.firstMatch(for: panel, kind: .touchscreen) == nil, "a missing property does not match even *")
        let exact = DeviceRuleMatcher(rules: [rule("r", DeviceMatch(udev: ["ID_INPUT_TOUCHSCREEN": "1"]))])
        expect(exact.firstMatch(for: panel, kind: .touchscreen) != nil)
    }

    @Test func explicitUdevPropertiesOverrideTheDescriptions() {
        let matcher = DeviceRuleMatcher(rules: [rule("r", DeviceMatch(udev: ["ID_BUS": "usb"]))])
        expect(matcher.firstMatch(for: panel, kind: .touchscreen) == nil)
        expect(matcher.firstMatch(for: panel, kind: .touchscreen, udevProperties: ["ID_BUS": "usb"]) != nil)
    }

    @Test func allFieldsTogetherAndFirstMatchWins() {
        let matcher = DeviceRuleMatcher(rules: [
            rule("keyboard", DeviceMatch(kind: .keyboard)),
            rule("other-panel", DeviceMatch(kind: .touchscreen, name: "Goodix*")),
            rule("panel", DeviceMatch(kind: .touchscreen, name: "ELAN*", vendor: 0x04f3, product: 0x2a1c,
                                      udev: ["ID_PATH": "platform-i2c-?"])),
            rule("any-touchscreen", DeviceMatch(kind: .touchscreen)),
        ])
        expectEqual(matcher.firstMatch(for: panel, kind: .touchscreen)?.name, "panel")
        var goodix = panel
        goodix.name = "Goodix Capacitive TouchScreen"
        expectEqual(matcher.firstMatch(for: goodix, kind: .touchscreen)?.name, "other-panel")
        var elsewhere = panel
        elsewhere.udevProperties["ID_PATH"] = "platform-i2c-10"
        expectEqual(matcher.firstMatch(for: elsewhere, kind: .touchscreen)?.name, "any-touchscreen")
        expect(DeviceRuleMatcher(rules: []).firstMatch(for: panel, kind: .touchscreen) == nil)
    }

    @Test func kindComesFromUdevWhenUdevClassifiedTheDevice() {
        // No capabilities at all: only udev's tags can make this a touchscreen.
        expectEqual(DeviceKind.of(panel), .touchscreen)
        let keyboard = DeviceDescription(name: "kbd", udevProperties: ["ID_INPUT": "1", "ID_INPUT_KEYBOARD": "1", "ID_INPUT_KEY": "1"])
        expectEqual(DeviceKind.of(keyboard), .keyboard)
    }

    @Test func kindFallsBackToCapabilitiesWithoutUdev() {
        // A direct multi-touch device, as udev's input_id would classify it.
        let builder = EvdevDescriptionBuilder(name: "panel without udevd")
        builder.enableProperty(0x01)                                            // INPUT_PROP_DIRECT
        builder.enable(type: 0x01, code: 0x14a)                                 // BTN_TOUCH
        builder.enableAbsolute(0x00, AbsInfo(minimum: 0, maximum: 4095))        // ABS_X
        builder.enableAbsolute(0x01, AbsInfo(minimum: 0, maximum: 4095))        // ABS_Y
        builder.enableAbsolute(0x2f, AbsInfo(minimum: 0, maximum: 9))           // ABS_MT_SLOT
        builder.enableAbsolute(0x35, AbsInfo(minimum: 0, maximum: 4095))        // ABS_MT_POSITION_X
        builder.enableAbsolute(0x36, AbsInfo(minimum: 0, maximum: 4095))        // ABS_MT_POSITION_Y
        builder.enableAbsolute(0x39, AbsInfo(minimum: 0, maximum: 65535))       // ABS_MT_TRACKING_ID
        var description = builder.build()
        expectEqual(DeviceKind.of(description), .touchscreen)
        // udev properties without any ID_INPUT tag do not count as a classification.
        description.udevProperties = ["ID_PATH": "platform-x", "ID_INPUT_TOUCHSCREEN": "0"]
        expectEqual(DeviceKind.of(description), .touchscreen)
    }
}

/// Why no rule takes a device: one typed reason per rule, from the same test as the match.
@Suite struct RuleMismatchTests {
    let panel = DeviceDescription(name: "ELAN Touchscreen", vendor: 0x04f3, product: 0x2a1c,
                                  udevProperties: ["ID_BUS": "i2c"])

    @Test func eachRuleSaysTheFirstThingItWantsThatTheDeviceIsNot() {
        let matcher = DeviceRuleMatcher(rules: [
            DeviceRuleSpec(name: "keys", match: DeviceMatch(kind: .keyboard, name: "ELAN*")),
            DeviceRuleSpec(name: "ilitek", match: DeviceMatch(kind: .touchscreen, name: "ILITEK*")),
            DeviceRuleSpec(name: "vendor", match: DeviceMatch(vendor: 0x222a)),
            DeviceRuleSpec(name: "product", match: DeviceMatch(vendor: 0x04f3, product: 0x0001)),
            DeviceRuleSpec(name: "usb", match: DeviceMatch(udev: ["ID_BUS": "usb"])),
            DeviceRuleSpec(name: "path", match: DeviceMatch(udev: ["ID_PATH": "*"])),
        ])
        expect(matcher.firstMatch(for: panel, kind: .touchscreen) == nil)
        let reason = matcher.whyNone(for: panel, kind: .touchscreen)
        expectEqual(reason, .noRuleTakesIt([
            RuleMismatch(rule: "keys", mismatch: .kind(wanted: .keyboard, actual: .touchscreen)),
            RuleMismatch(rule: "ilitek", mismatch: .name(pattern: "ILITEK*", actual: "ELAN Touchscreen")),
            RuleMismatch(rule: "vendor", mismatch: .vendor(wanted: 0x222a, actual: 0x04f3)),
            RuleMismatch(rule: "product", mismatch: .product(wanted: 0x0001, actual: 0x2a1c)),
            RuleMismatch(rule: "usb", mismatch: .udevProperty(key: "ID_BUS", pattern: "usb", actual: "i2c")),
            RuleMismatch(rule: "path", mismatch: .udevPropertyMissing(key: "ID_PATH")),
        ]))
        expectEqual(reason.description, "no device rule takes it: rule keys wants kind keyboard, not touchscreen; "
                + "rule ilitek wants a name matching \"ILITEK*\"; rule vendor wants vendor 0x222a, not 0x04f3; "
                + "rule product wants product 0x0001, not 0x2a1c; rule usb wants udev ID_BUS matching \"usb\", not \"i2c\"; "
                + "rule path wants udev property ID_PATH (the device has none)")
    }

    @Test func aLayoutWithoutRulesSaysSo() {
        expectEqual(DeviceRuleMatcher(rules: []).whyNone(for: panel, kind: .touchscreen), .noRules)
        expectEqual(DeviceRuleMatcher(rules: []).whyNone(for: panel, kind: .touchscreen).description, "the layout has no device rules")
    }
}
