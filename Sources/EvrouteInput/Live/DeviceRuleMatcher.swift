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
        firstMatchIndex(for: description, kind: kind, udevProperties: udevProperties).map { rules[$0] }
    }

    /// The index in ``rules`` of the first rule that matches, or nil.
    public func firstMatchIndex(for description: DeviceDescription, kind: DeviceKind,
                                udevProperties: [String: String]? = nil) -> Int? {
        let properties = udevProperties ?? description.udevProperties
        return rules.firstIndex {
            Self.matches($0.match, name: description.name, vendor: description.vendor,
                         product: description.product, kind: kind, udevProperties: properties)
        }
    }

    /// Why no rule takes a device (`evroute monitor`, the daemon's log): each rule with the
    /// first of its fields that does not hold, or that the layout has no device rules. Call it
    /// for a device ``firstMatch(for:kind:udevProperties:)`` found no rule for.
    public func whyNone(for description: DeviceDescription, kind: DeviceKind, udevProperties: [String: String]? = nil) -> DeviceIgnoreReason {
        guard !rules.isEmpty else { return .noRules }
        let properties = udevProperties ?? description.udevProperties
        return .noRuleTakesIt(rules.compactMap { rule in
            Self.mismatch(rule.match, name: description.name, vendor: description.vendor, product: description.product,
                          kind: kind, udevProperties: properties).map { RuleMismatch(rule: rule.name, mismatch: $0) }
        })
    }

    /// Whether one rule's match holds for a device.
    public static func matches(_ match: DeviceMatch, name: String, vendor: UInt16, product: UInt16,
                               kind: DeviceKind, udevProperties: [String: String]) -> Bool {
        mismatch(match, name: name, vendor: vendor, product: product, kind: kind, udevProperties: udevProperties) == nil
    }

    /// The first field of `match` that does not hold for a device, or nil when the match holds:
    /// the one place the match fields are tested.
    public static func mismatch(_ match: DeviceMatch, name: String, vendor: UInt16, product: UInt16,
                                kind: DeviceKind, udevProperties: [String: String]) -> DeviceMismatch? {
        if let wanted = match.kind, wanted != kind { return .kind(wanted: wanted, actual: kind) }
        if let pattern = match.name, !globMatches(pattern, name) { return .name(pattern: pattern, actual: name) }
        if let wanted = match.vendor, wanted != Int(vendor) { return .vendor(wanted: wanted, actual: Int(vendor)) }
        if let wanted = match.product, wanted != Int(product) { return .product(wanted: wanted, actual: Int(product)) }
        for (key, pattern) in match.udev.sorted(by: { $0.key < $1.key }) {
            guard let value = udevProperties[key] else { return .udevPropertyMissing(key: key) }
            if !globMatches(pattern, value) { return .udevProperty(key: key, pattern: pattern, actual: value) }
        }
        return nil
    }

    /// `0x046d`, as the config writes ids.
    static func hex(_ v: Int) -> String { "0x" + DeviceListingRow.hex4(v) }

    /// Shell-style glob match of the whole `text` (`fnmatch(3)` without flags).
    public static func globMatches(_ pattern: String, _ text: String) -> Bool {
        fnmatch(pattern, text, 0) == 0
    }
}

/// The first field of a rule's `match` that a device does not satisfy.
public enum DeviceMismatch: Sendable, Hashable, CustomStringConvertible {
    case kind(wanted: DeviceKind, actual: DeviceKind)
    /// The name glob does not match the kernel name.
    case name(pattern: String, actual: String)
    case vendor(wanted: Int, actual: Int)
    case product(wanted: Int, actual: Int)
    /// The rule tests a udev property the device does not have.
    case udevPropertyMissing(key: String)
    /// The udev property's value does not match the rule's glob.
    case udevProperty(key: String, pattern: String, actual: String)

    /// `wants kind touchscreen, not keyboard`.
    public var description: String {
        switch self {
        case .kind(let wanted, let actual): "wants kind \(wanted.rawValue), not \(actual.rawValue)"
        case .name(let pattern, _): "wants a name matching \"\(pattern)\""
        case .vendor(let wanted, let actual):
            "wants vendor \(DeviceRuleMatcher.hex(wanted)), not \(DeviceRuleMatcher.hex(actual))"
        case .product(let wanted, let actual):
            "wants product \(DeviceRuleMatcher.hex(wanted)), not \(DeviceRuleMatcher.hex(actual))"
        case .udevPropertyMissing(let key): "wants udev property \(key) (the device has none)"
        case .udevProperty(let key, let pattern, let actual): "wants udev \(key) matching \"\(pattern)\", not \"\(actual)\""
        }
    }
}

/// One device rule and why it does not take a device.
public struct RuleMismatch: Sendable, Hashable, CustomStringConvertible {
    /// The rule's name.
    public var rule: String
    public var mismatch: DeviceMismatch

    public init(rule: String, mismatch: DeviceMismatch) {
        self.rule = rule
        self.mismatch = mismatch
    }

    /// `rule touch wants kind touchscreen, not keyboard`.
    public var description: String { "rule \(rule) \(mismatch)" }
}

/// Why a device is not routed: what `evroute monitor` says beside it and the daemon logs.
public enum DeviceIgnoreReason: Sendable, Hashable, CustomStringConvertible {
    /// The layout declares no device rules.
    case noRules
    /// No rule takes it: every rule, in declaration order, with the first thing it wants that
    /// the device is not.
    case noRuleTakesIt([RuleMismatch])
    /// The node cannot be opened (`EACCES`: not root and not in group `input`).
    case cannotOpen(SystemError)

    /// `no device rule takes it: rule touch wants kind touchscreen, not keyboard; rule keys …`.
    public var description: String {
        switch self {
        case .noRules: "the layout has no device rules"
        case .noRuleTakesIt(let rules): "no device rule takes it: " + rules.map(\.description).joined(separator: "; ")
        case .cannotOpen(let error): "cannot be opened: \(error)"
        }
    }
}
