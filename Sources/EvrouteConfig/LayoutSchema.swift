import EvrouteCore
import EvrouteInput

/// Every key of the layout file, declared once: the reader takes its lists of known keys and its
/// numeric ranges from here, and `evroute.yaml(5)` is made from it (``ManualPage``), so the two
/// cannot drift apart. Plugin types declare their own options' keys.
public enum LayoutSchema {
    // MARK: The top level

    /// The keys of the top level, in the order the manual lists them.
    public static let top: [ConfigKey] = [
        ConfigKey("displays", .list(of: "mappings"), "The displays (touch panels) of the kiosk, each with its size in display units.",
                  keys: display.keys),
        ConfigKey("devices", .list(of: "mappings"), "Device rules: which input devices are read, matched by kind, name or ids, mapped to a display and filtered.",
                  keys: device.keys),
        ConfigKey("plugins", .list(of: "mappings"), "Named instances of plugin types, which handlers name; the other keys of an entry are the type's options.",
                  keys: plugin.keys, takesOtherKeys: true),
        ConfigKey("screens", .list(of: "mappings"), "The screens: a root region, its handlers, the display it starts on.",
                  keys: screen.keys),
        ConfigKey("application", .mapping, "Handlers that take what no region or screen handled.", keys: handlerHolder.keys),
        ConfigKey("fallback", .mapping, "Handlers that take what nothing else handled, after the application.", keys: handlerHolder.keys),
        motion,
        metrics,
    ]

    /// The names of the top-level keys.
    public static var topKeys: [String] { top.map(\.name) }

    // MARK: Displays

    /// One display of `displays:`.
    public static let display = ConfigKey("display", .mapping, "A display.", keys: [
        ConfigKey("name", .string, required: true, "The display's name, which device rules and screens name; no '/'."),
        ConfigKey("size", .other("[width, height]"), required: true, "Its size in display units, each > 0; coordinates of its regions are in these units."),
        ConfigKey("screen", .string, "The screen it shows first (by default the first screen that names this display)."),
        idle,
    ])

    /// A display's `idle:`.
    public static let idle = ConfigKey("idle", .mapping, "When the display goes idle, and what the touch that wakes it does.", keys: [
        ConfigKey("after-s", .number(IdleSpec.range), required: true, "Seconds without input before the display goes idle."),
        ConfigKey("swallow-wake-touch", .boolean, default: "false", "The touch that wakes the display is not delivered."),
    ])

    // MARK: Devices

    /// One device rule of `devices:`.
    public static let device = ConfigKey("device", .mapping, "A device rule.", keys: [
        ConfigKey("name", .string, required: true, "The rule's name, which handlers' 'devices' name."),
        match,
        ConfigKey("display", .string, "The display a touch device's contacts are mapped to."),
        ConfigKey("rotate", .choice(["0", "90", "180", "270"]), default: "0", "Degrees clockwise the panel is mounted turned."),
        ConfigKey("calibration", .other("[a, b, c, d, e, f]"), "libinput's 2x3 calibration matrix, each entry between -1000 and 1000."),
        ConfigKey("grab", .boolean, default: "false", "Take the device exclusively (EVIOCGRAB): nothing else reads its events."),
        ConfigKey("log-keys", .boolean, default: "false", "Log the device's key names (never logged otherwise, as they may be passwords)."),
        keymap,
        ConfigKey("text", .other("true | false | line"), default: "true", "Text events as keys are typed, keys only, or one text event per line (barcode scanners)."),
        lineTimeout,
        filters,
    ])

    /// A device rule's `line-timeout-ms:`.
    public static let lineTimeout = ConfigKey("line-timeout-ms", .integer(0...60_000), default: String(DeviceRuleSpec.defaultLineTimeoutMs),
                                              "With 'text: line', the silence after which a line is sent; 0 waits for Enter.")

    /// A device rule's `match:`.
    public static let match = ConfigKey("match", .mapping, required: true, "Which devices the rule takes; {} matches every device.", keys: [
        ConfigKey("kind", .choice(DeviceKind.allCases.map(\.rawValue)), "The device's kind."),
        ConfigKey("name", .string, "A glob on the device's name."),
        ConfigKey("vendor", .other("integer or hex string, 0 to 0xffff"), "The USB or input vendor id (1133, \"0x046d\")."),
        ConfigKey("product", .other("integer or hex string, 0 to 0xffff"), "The USB or input product id."),
        ConfigKey("udev", .mapping, "udev properties and the globs their values must match (ID_INPUT_TOUCHSCREEN: \"1\").", takesOtherKeys: true),
    ])

    /// A device rule's `keymap:` (or a layout name alone).
    public static let keymap = ConfigKey("keymap", .other("mapping or layout name"), default: "us", "The xkb keymap a keyboard's keys are read with; a name alone is a layout.", keys: [
        ConfigKey("layout", .string, "xkb layout(s), comma-separated (de, us,ru)."),
        ConfigKey("variant", .string, "xkb variant(s), one per layout."),
        ConfigKey("options", .other("string or list of strings"), "xkb options (compose:ralt, ctrl:nocaps)."),
    ])

    /// A device rule's `filters:`, contact filters for noisy touch panels; each is off unless given.
    public static let filters = ConfigKey("filters", .mapping,
        "Contact filters for noisy touch panels, run in the order \(TouchFrameFilters.types.map { $0.key.name }.joined(separator: ", ")); each is off unless given.",
        keys: TouchFrameFilters.keys)

    // MARK: Plugins and handlers

    /// One entry of `plugins:`; its other keys are the type's options.
    public static let plugin = ConfigKey("plugin", .mapping, "A plugin.", keys: [
        ConfigKey("name", .string, required: true, "The name handlers give as 'plugin'."),
        ConfigKey("type", .string, required: true, "The plugin type; its options are described with the type."),
    ], takesOtherKeys: true)

    /// One handler of a `handlers:` list; its other keys are options for the plugin.
    public static let handler = ConfigKey("handler", .mapping, "A handler.", keys: [
        ConfigKey("plugin", .string, required: true, "The plugin (a name from 'plugins', or a built-in one) that takes the events."),
        ConfigKey("on", .other("event kind or list of them"), required: true, "The events it takes: \(EventFilter.spellings)."),
        ConfigKey("devices", .list(of: "device rule names"), "Only events from devices of these rules (default: every device)."),
    ], takesOtherKeys: true)

    /// The options a handler of each routing built-in plugin reads (the compiler checks the same
    /// names; a test holds the two together).
    public static let routingHandlerOptions: [(type: PluginKind, keys: [ConfigKey])] = [
        (.action, [ConfigKey("action", .string, required: true, "The action sent up the responder chain from the handler's region.")]),
        (.focus, [ConfigKey("region", .string, "The region made first responder (by default the handler's own)."),
                  ConfigKey("resign", .boolean, default: "false", "Resign the first responder instead.")]),
        (.present, [ConfigKey("screen", .string, required: true, "The screen presented over the display's top screen.")]),
        (.dismiss, []),
    ]

    /// A `handlers:` list.
    public static let handlers = ConfigKey("handlers", .list(of: "mappings"), "Handlers, in order; the other keys of a handler are options for its plugin.",
                                           keys: handler.keys, takesOtherKeys: true)

    /// `application:` and `fallback:`.
    public static let handlerHolder = ConfigKey("handlers holder", .mapping, "", keys: [handlers])

    // MARK: Screens, regions, gestures

    /// One screen of `screens:`.
    public static let screen = ConfigKey("screen", .mapping, "A screen.", keys: [
        ConfigKey("name", .string, required: true, "The screen's name; no '/'."),
        ConfigKey("display", .string, "The display it is shown on (default: the only one)."),
        handlers,
        ConfigKey("root", .mapping, required: true, "The screen's root region (a region's keys).", keys: region.keys),
        ConfigKey("presented-over", .string, "A screen this one is presented over (a modal): events it does not take go there."),
    ])

    /// One region (`root:`, and each of a region's `regions:`).
    public static let region = ConfigKey("region", .mapping, "A region.", keys: [
        ConfigKey("name", .string, required: true, "The region's name; its path joins its ancestors' names with '/'."),
        ConfigKey("frame", .other("[x, y, width, height]"), required: true, "Its frame in its parent's coordinates, width and height >= 0."),
        ConfigKey("regions", .list(of: "regions"), "Its children, each a region with these keys; later ones are on top."),
        handlers,
        ConfigKey("hidden", .boolean, default: "false", "Hidden: it and its children take no events."),
        ConfigKey("interactive", .boolean, default: "true", "Whether it takes events (its children still may)."),
        ConfigKey("opacity", .number(0...1), default: "1", "Below 0.01 it takes no events, as a hidden one."),
        shape,
        ConfigKey("hit-insets", .other("number or [top, left, bottom, right]"), default: "0", "Grows (negative) or shrinks the area that takes touches."),
        ConfigKey("exclusive", .boolean, default: "false", "A touch in it keeps other regions from taking touches meanwhile."),
        ConfigKey("multitouch", .boolean, default: "true", "Whether it takes more than one touch at a time."),
        ConfigKey("focusable", .boolean, default: "false", "Whether it may take the key focus."),
        ConfigKey("next", .string, "The region focus moves to next (Tab)."),
        gestures,
    ])

    /// A region's `shape:`.
    public static let shape = ConfigKey("shape", .other("rectangle | ellipse | mapping"), default: "rectangle", "The area inside the frame that takes touches.", keys: [
        ConfigKey("rounded-rectangle", .number(LayoutLimits.lengths), "A rectangle with corners of this radius."),
        ConfigKey("polygon", .list(of: "[x, y] points, at least 3"), "A polygon in the region's coordinates."),
    ])

    /// A region's `gestures:`.
    public static let gestures = ConfigKey("gestures", .list(of: "mappings"), "Gesture recognizers on the region.", keys: gesture.keys)

    /// One gesture: the keys every kind takes, then those only some kinds take (``GestureSpec/kindKeys``).
    public static let gesture = ConfigKey("gesture", .mapping, "A gesture.", keys: [
        ConfigKey("name", .string, required: true, "The gesture's name, which require-to-fail and simultaneous-with give."),
        ConfigKey("type", .choice(GestureSpec.Kind.allCases.map(\.rawValue)), required: true, "The kind of gesture."),
        ConfigKey("cancels-touches", .boolean, default: "true", "Cancel the region's touches when it is recognized."),
        ConfigKey("delays-touches-began", .boolean, default: "false", "Hold the touches' beginnings until it fails."),
        ConfigKey("delays-touches-ended", .boolean, default: "true", "Hold the touches' ends until it fails or is recognized."),
        ConfigKey("require-to-fail", .list(of: "gesture names"), "Gestures that must fail before this one may be recognized."),
        ConfigKey("simultaneous-with", .list(of: "gesture names"), "Gestures this one may be recognized together with."),
        ConfigKey("action", .string, "An action sent up the chain from the region when it is recognized."),
        ConfigKey("taps", .integer(1...LayoutLimits.maximumTaps), default: "1", "tap: the taps required."),
        ConfigKey("touches", .integer(1...LayoutLimits.maximumGestureTouches), default: "1", "tap, long-press, swipe, pan: the touches required."),
        ConfigKey("maximum-touches", .integer(1...LayoutLimits.maximumGestureTouches), "pan: the most touches, at least touches."),
        ConfigKey("minimum-duration", .number(0...LayoutLimits.gestureDuration), default: "0.5", "long-press: seconds (> 0) the touches stay down."),
        ConfigKey("allowable-movement", .number(LayoutLimits.lengths), default: "10", "tap, long-press: how far a touch may move and still count."),
        ConfigKey("direction", .other("left | right | up | down, or a list"), default: "right", "swipe: the direction(s) taken."),
        ConfigKey("minimum-distance", .number(LayoutLimits.lengths), default: "50", "swipe: the least distance; pan, screen-edge-pan: the distance before it begins."),
        ConfigKey("maximum-duration", .number(0...LayoutLimits.gestureDuration), default: "0.5", "swipe: the most seconds (> 0) it may take."),
        ConfigKey("edges", .other("left | right | top | bottom, or a list"), "screen-edge-pan (required): the display edges it starts from."),
        ConfigKey("edge", .other("left | right | top | bottom, or a list"), "The same as edges."),
    ])

    // MARK: Motion and metrics

    /// `motion:`, the accelerometers.
    public static let motion = ConfigKey("motion", .mapping, "Accelerometers: their handlers, the sample rate, shake and orientation detection.", keys: [
        ConfigKey("handlers", .list(of: "mappings"), "Handlers of samples (motion) and orientation changes (orientation).",
                  keys: handler.keys, takesOtherKeys: true),
        ConfigKey("rate", .number(0...1000), default: LayoutLimits.text(MotionSpec.defaultRate), "Samples per second, more than 0."),
        ConfigKey("shake", .mapping, "Shake detection.", keys: [
            ConfigKey("threshold", .number(0...16), default: LayoutLimits.text(MotionSpec.defaultShakeThreshold), "The acceleration in g, more than 0, that counts as a shake."),
            ConfigKey("window-ms", .integer(50...10_000), default: String(MotionSpec.defaultShakeWindowMs), "The window, in milliseconds, the shake must happen within."),
        ]),
        ConfigKey("orientation", .mapping, "Orientation detection.", keys: [
            ConfigKey("hysteresis", .number(0...45), default: LayoutLimits.text(MotionSpec.defaultOrientationHysteresis), "Degrees, less than 45, past the midpoint before the orientation changes."),
        ]),
    ])

    /// `metrics:`, the Prometheus text file.
    public static let metrics = ConfigKey("metrics", .mapping, "Write the counters to a Prometheus text file (node_exporter's textfile collector).", keys: [
        ConfigKey("textfile", .string, "The file's absolute path."),
        ConfigKey("interval-s", .integer(MetricsSpec.intervalRange), default: String(MetricsSpec.defaultIntervalSeconds), "How often it is written, in seconds."),
    ])

    /// The regions document of `evroute ctl regions` (not a layout key).
    static let regionsDocument = ConfigKey("regions document", .mapping, "", keys: [
        ConfigKey("regions", .list(of: "regions"), required: true, "The regions."),
    ])
}

extension LayoutSchema {
    /// The top level of the layout as one key (the manual's and the tests' walk start here).
    public static var root: ConfigKey { ConfigKey("layout", .mapping, "The layout file.", keys: top) }
}
