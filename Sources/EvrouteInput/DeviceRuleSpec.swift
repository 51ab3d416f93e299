import EvrouteCore

/// Which devices a device rule takes. Every given field must match.
public struct DeviceMatch: Sendable, Hashable {
    public var kind: DeviceKind?
    /// A shell-style glob on the kernel name (`*`, `?`, `[…]`).
    public var name: String?
    public var vendor: Int?
    public var product: Int?
    /// udev properties, each value a glob.
    public var udev: [String: String]

    public init(kind: DeviceKind? = nil, name: String? = nil, vendor: Int? = nil, product: Int? = nil,
                udev: [String: String] = [:]) {
        self.kind = kind
        self.name = name
        self.vendor = vendor
        self.product = product
        self.udev = udev
    }
}

/// A device rule: which devices, mapped onto which display, how. Routing sees a rule through
/// its ``route`` (``LayoutSpec/devices``); the rest is read here, where devices are matched and
/// their input decoded.
public struct DeviceRuleSpec: Sendable {
    public var name: String
    public var match: DeviceMatch
    public var display: String?
    /// Clockwise rotation: 0, 90, 180 or 270.
    public var rotate: Int
    /// libinput's 2×3 calibration matrix in normalized coordinates; nil = identity
    /// (or the device's `LIBINPUT_CALIBRATION_MATRIX` udev property).
    public var calibration: [Double]?
    /// Take the device exclusively (EVIOCGRAB).
    public var grab: Bool
    /// Let the daemon's log name this device's typing keys (`log-keys: true`); by default
    /// they are written `KEY_***` (``KeyNames/isTyping(_:)``).
    public var logKeys: Bool = false
    /// The keymap text is typed with (default `us`).
    public var keymap: KeymapSpec = .default
    /// Text events as keys are typed (default), one per line (scanners), or none.
    public var text: TextMode = .on
    /// `text: line`: the silence (milliseconds) after which a line without Enter is sent;
    /// 0 waits for Enter.
    public var lineTimeoutMs: Int = DeviceRuleSpec.defaultLineTimeoutMs
    /// `filters:` for its touch devices, in the order they run; empty: none.
    public var filters: [any ContactFilterOptions] = []
    /// Where `keymap` was written (messages about it at device add).
    public var keymapLocation: SourceLocation?
    /// Where `grab` was written (the warning about a grabbed device nothing takes).
    public var grabLocation: SourceLocation?
    public var location: SourceLocation?
    public var displayLocation: SourceLocation?

    /// The rule as routing sees it: its name, display, kind, text mode and grab.
    public var route: DeviceRouteSpec {
        DeviceRouteSpec(name: name, display: display, kind: match.kind, text: text, grab: grab,
                        location: location, displayLocation: displayLocation, grabLocation: grabLocation)
    }

    public init(name: String, match: DeviceMatch, display: String? = nil, rotate: Int = 0,
                calibration: [Double]? = nil, grab: Bool = false,
                location: SourceLocation? = nil, displayLocation: SourceLocation? = nil) {
        self.name = name
        self.match = match
        self.display = display
        self.rotate = rotate
        self.calibration = calibration
        self.grab = grab
        self.location = location
        self.displayLocation = displayLocation
    }
}

extension DeviceRuleSpec {
    /// A scanner's line is sent after this much silence when no Enter comes (milliseconds).
    public static let defaultLineTimeoutMs = 300
}

extension DeviceRuleSpec: Equatable {
    /// Two rules are equal when they take the same devices the same way; where they are
    /// written (their source locations) and what the log may show (`logKeys`, read per event)
    /// do not count. A reload compares rule lists this way to decide whether to reopen devices.
    public static func == (a: DeviceRuleSpec, b: DeviceRuleSpec) -> Bool {
        a.name == b.name && a.match == b.match && a.display == b.display && a.rotate == b.rotate
            && a.calibration == b.calibration && a.grab == b.grab
            && a.keymap == b.keymap && a.text == b.text && a.lineTimeoutMs == b.lineTimeoutMs
            && a.filters.count == b.filters.count && zip(a.filters, b.filters).allSatisfy { $0.isEqual(to: $1) }
    }
}

extension LayoutSpec {
    /// The device rules, whole (``LayoutSpec/devices`` holds what routing sees of them; setting
    /// the rules sets both).
    public var deviceRules: [DeviceRuleSpec] {
        get { sections["devices"] as? [DeviceRuleSpec] ?? [] }
        set {
            sections["devices"] = newValue
            devices = newValue.map(\.route)
        }
    }
}

extension Layout {
    /// The device rules it was compiled with, whole (in the order of ``Layout/deviceRuleDisplays``).
    public var deviceRules: [DeviceRuleSpec] { spec.deviceRules }
}
