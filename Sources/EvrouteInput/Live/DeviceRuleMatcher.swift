import EvrouteCore
import EvrouteSystem
#if canImport(Glibc)
import Glibc
#endif

/// Picks the device rule that takes a device: the first rule, in declaration order,
/// whose every given match field holds. Pure; no I/O.
///
/// - `kind`: equal to the device's kind.
/// - `name`: a shell glob (`fnmatch`, no flags: `*`, `?`, `[…]`, `\` escapes) on the
///   kernel name, case-sensitive.
/// - `vendor`, `product`: equal to the device's ids.
/// - `udev`: for every key, the device has that udev property and its value matches
///   the glob (`ID_INPUT_TOUCHSCREEN: "1"`, `ID_PATH: "platform-*"`).
public struct DeviceRuleMatcher: Sendable {
    public var rules: [DeviceRuleSpec]

    public init(rules: [DeviceRuleSpec]) { self.rules = rules }

    /// The first rule that matches, or nil.
    ///
    /// - Parameter udevProperties: the device's udev properties; by default
    ///   `description.udevProperties`.
    public func firstMatch(for description: DeviceDescription, kind: DeviceKind,
                           udevProperties: [String: String]? = nil) -> DeviceRuleSpec? {
        let properties = udevProperties ?? description.udevProperties
        return rules.first {
            Self.matches($0.match, name: description.name, vendor: description.vendor,
                         product: description.product, kind: kind, udevProperties: properties)
        }
    }

    /// Why no rule takes a device, for people (`evroute monitor`): each rule's first field that
    /// does not hold, or that the layout has no device rules.
    public func whyNone(for description: DeviceDescription, kind: DeviceKind, udevProperties: [String: String]? = nil) -> String {
        guard !rules.isEmpty else { return "the layout has no device rules" }
        let properties = udevProperties ?? description.udevProperties
        let reasons = rules.compactMap { rule in
            Self.mismatch(rule.match, name: description.name, vendor: description.vendor, product: description.product,
                          kind: kind, udevProperties: properties).map { "rule \(rule.name) \($0)" }
        }
        return "no device rule takes it: " + reasons.joined(separator: "; ")
    }

    /// Whether one rule's match holds for a device.
    public static func matches(_ match: DeviceMatch, name: String, vendor: UInt16, product: UInt16,
                               kind: DeviceKind, udevProperties: [String: String]) -> Bool {
        mismatch(match, name: name, vendor: vendor, product: product, kind: kind, udevProperties: udevProperties) == nil
    }

    /// The first field of `match` that does not hold for a device (`wants kind touchscreen, not
    /// keyboard`), or nil when the match holds: the one place the match fields are tested.
    public static func mismatch(_ match: DeviceMatch, name: String, vendor: UInt16, product: UInt16,
                                kind: DeviceKind, udevProperties: [String: String]) -> String? {
        if let wanted = match.kind, wanted != kind { return "wants kind \(wanted.rawValue), not \(kind.rawValue)" }
        if let pattern = match.name, !globMatches(pattern, name) { return "wants a name matching \"\(pattern)\"" }
        if let wanted = match.vendor, wanted != Int(vendor) { return "wants vendor \(hex(wanted)), not \(hex(Int(vendor)))" }
        if let wanted = match.product, wanted != Int(product) { return "wants product \(hex(wanted)), not \(hex(Int(product)))" }
        for (key, pattern) in match.udev.sorted(by: { $0.key < $1.key }) {
            guard let value = udevProperties[key] else { return "wants udev property \(key) (the device has none)" }
            if !globMatches(pattern, value) { return "wants udev \(key) matching \"\(pattern)\", not \"\(value)\"" }
        }
        return nil
    }

    /// `0x046d`, as lsusb and the config write ids.
    static func hex(_ v: Int) -> String {
        let digits = String(v, radix: 16)
        return "0x" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    /// Shell-style glob match of the whole `text` (`fnmatch(3)` without flags).
    public static func globMatches(_ pattern: String, _ text: String) -> Bool {
        fnmatch(pattern, text, 0) == 0
    }
}
