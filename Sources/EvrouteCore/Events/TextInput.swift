/// Text a keyboard typed, as the input layer's keymap (libxkbcommon) produced it: one
/// character or a composed one (a dead key and a letter, a compose sequence) per key press
/// or repeat, or a whole line from a device rule with `text: line` (a barcode scanner). It
/// holds printable text only: Enter, Tab, Backspace, Escape and Ctrl+letter are keys, not text.
public struct TextInput: Sendable {
    public var device: DeviceID
    public var time: Timestamp
    public var text: String

    public init(device: DeviceID, time: Timestamp, text: String) {
        self.device = device
        self.time = time
        self.text = text
    }
}

/// The keymap a device rule gives its keyboards (`keymap: { layout, variant, options }`):
/// XKB rule names, compiled by the input layer with xkeyboard-config's `evdev` rules.
public struct KeymapSpec: Sendable, Hashable, CustomStringConvertible {
    /// One XKB layout (`us`, `de`), or several separated by commas (one per group).
    public var layout: String
    /// The layout's variant (`nodeadkeys`), or empty for the layout's default; several
    /// comma-separated when `layout` has several.
    public var variant: String
    /// XKB options (`compose:ralt`, `ctrl:nocaps`).
    public var options: [String]

    public init(layout: String = "us", variant: String = "", options: [String] = []) {
        self.layout = layout
        self.variant = variant
        self.options = options
    }

    /// `us`: what a rule without `keymap` types with.
    public static let `default` = KeymapSpec()

    /// `de(nodeadkeys)`, `us`, `us +compose:ralt`.
    public var description: String {
        var out = layout
        if !variant.isEmpty { out += "(\(variant))" }
        if !options.isEmpty { out += " +" + options.joined(separator: ",") }
        return out
    }
}

/// Whether and how a device rule's keyboards produce text (`text:` in the rule).
public enum TextMode: String, Sendable, Hashable {
    /// No text: keys only (`text: false`).
    case off
    /// Text events as keys are typed, and the keys as keys (`text: true`, the default).
    case on
    /// One text event per line, on Enter or after `line-timeout-ms` of silence; the
    /// device's keys are not routed one by one (`text: line`: barcode scanners).
    case line
}
