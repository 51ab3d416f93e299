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

    /// Whether one rule's match holds for a device.
    public static func matches(_ match: DeviceMatch, name: String, vendor: UInt16, product: UInt16,
                               kind: DeviceKind, udevProperties: [String: String]) -> Bool {
        if let wanted = match.kind, wanted != kind { return false }
        if let pattern = match.name, !globMatches(pattern, name) { return false }
        if let wanted = match.vendor, wanted != Int(vendor) { return false }
        if let wanted = match.product, wanted != Int(product) { return false }
        for (key, pattern) in match.udev {
            guard let value = udevProperties[key], globMatches(pattern, value) else { return false }
        }
        return true
    }

    /// Shell-style glob match of the whole `text` (`fnmatch(3)` without flags).
    public static func globMatches(_ pattern: String, _ text: String) -> Bool {
        fnmatch(pattern, text, 0) == 0
    }
}
