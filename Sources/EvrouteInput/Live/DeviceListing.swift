import EvrouteCore
import EvrouteSystem
#if canImport(Glibc)
import Glibc
#endif

/// One row of `evroute devices`.
public struct DeviceListingRow: Sendable, Hashable {
    /// `/dev/input/event3`.
    public var node: String
    /// The kernel's name ("" if unknown).
    public var name: String
    /// ``DeviceKind/of(_:)``: udev's kind, else the capability-based one; nil when neither
    /// is known (a device that could not be opened and that udev did not classify).
    public var kind: DeviceKind?
    public var vendor: UInt16?
    public var product: UInt16?
    /// The name of the first matching rule, nil when none matches (or unknown).
    public var rule: String?
    /// Why the node could not be opened (`EACCES` …); the row then uses udev's data only.
    public var problem: String?
    /// One of evroute's own virtual devices (forwarding): one this process made
    /// (``OwnVirtualDevices``), or, made by another process, so named and virtual
    /// (``VirtualDeviceNames/looksLikeEvroutes(name:syspath:)``). No rule takes it.
    public var isEvroutes: Bool

    public init(node: String, name: String, kind: DeviceKind?, vendor: UInt16?, product: UInt16?,
                rule: String?, problem: String? = nil, isEvroutes: Bool = false) {
        self.node = node
        self.name = name
        self.kind = kind
        self.vendor = vendor
        self.product = product
        self.rule = rule
        self.problem = problem
        self.isEvroutes = isEvroutes
    }

    /// `045e:00db` (lower-case hex), or `-` when unknown.
    public var vendorProduct: String {
        guard let vendor, let product else { return "-" }
        return "\(Self.hex4(Int(vendor))):\(Self.hex4(Int(product)))"
    }

    /// The kind's name, or `-`.
    public var kindColumn: String { kind?.rawValue ?? "-" }

    /// The rule's name, `(evroute's own)` for evroute's virtual devices, or `-`.
    public var ruleColumn: String { isEvroutes ? "(evroute's own)" : rule ?? "-" }

    /// A USB/Bluetooth id as lsusb writes it: 4 lower-case hex digits (`046d`). The one id
    /// formatter: the listing, its JSON and the rule matcher's reasons use it.
    public static func hex4(_ value: Int) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}

/// The data behind `evroute devices`: every evdev node udev knows, its kind, ids, and the
/// device rule that takes it.
public enum DeviceListing {
    /// Lists the present devices: enumerates with udev, opens each node read-only (no grab)
    /// for its description. A node that cannot be opened still gets a row from udev's data,
    /// with ``DeviceListingRow/problem`` set.
    public static func rows(rules: [DeviceRuleSpec]) throws(SystemError) -> [DeviceListingRow] {
        let devices = try UdevContext().inputDevices()
        return rows(devices: devices, rules: rules) { device in
            guard let node = device.devnode else {
                return .failure(SystemError(errno: ENODEV, call: "open", path: device.syspath))
            }
            do throws(SystemError) {
                let evdev = try EvdevDevice(path: node, monotonicClock: false)
                defer { evdev.close() }
                return .success(evdev.description)
            } catch {
                return .failure(error)
            }
        }
    }

    /// The rows for given udev devices, describing each with `describe` (pure apart from
    /// `describe`; tests pass a fake).
    public static func rows(devices: [UdevInputDevice], rules: [DeviceRuleSpec],
                            describe: (UdevInputDevice) -> Result<DeviceDescription, SystemError>) -> [DeviceListingRow] {
        let matcher = DeviceRuleMatcher(rules: rules)
        return devices.map { device in
            let node = device.devnode ?? device.syspath
            switch describe(device) {
            case .success(var description):
                description.udevProperties = device.properties
                let kind = DeviceKind.of(description)
                // evroute never reads its own virtual devices: no rule takes them. A device only
                // named like them (not virtual) is matched like any other.
                let own = OwnVirtualDevices.contains(syspath: device.syspath)
                    || VirtualDeviceNames.looksLikeEvroutes(name: description.name, syspath: device.syspath)
                let rule = own ? nil : matcher.firstMatch(for: description, kind: kind)?.name
                return DeviceListingRow(node: node, name: description.name, kind: kind,
                                        vendor: description.vendor, product: description.product, rule: rule, isEvroutes: own)
            case .failure(let error):
                // Judge kind and rule from udev's data when it has everything a rule could test.
                let description = device.udevOnlyDescription
                let kind = description.map { DeviceKind.of($0) }
                let rule = description.flatMap { matcher.firstMatch(for: $0, kind: DeviceKind.of($0))?.name }
                return DeviceListingRow(node: node, name: device.name ?? "", kind: kind,
                                        vendor: device.vendor, product: device.product,
                                        rule: rule, problem: error.description)
            }
        }
    }
}
