/// The declarative layout: what a config file says, before it is checked and compiled
/// into a ``Layout``. Every spec may carry the ``SourceLocation`` it came from, so that
/// ``Layout/compile(_:)`` can name `file:line:col` in its errors.
public struct LayoutSpec: Sendable {
    public var displays: [DisplaySpec]
    /// The device rules, as routing sees them.
    public var devices: [DeviceRouteSpec]
    public var plugins: [PluginSpec]
    public var screens: [ScreenSpec]
    public var applicationHandlers: [HandlerSpec]
    public var fallbackHandlers: [HandlerSpec]
    /// The top-level `motion:` section (accelerometers), if any.
    public var motion: MotionSpec?
    /// What the core does not read (the daemon's `metrics:`, the device rules' input side), by name,
    /// as their readers typed them (EvrouteConfig gives each a typed property).
    public var sections: [String: any Sendable] = [:]
    /// The file the spec came from (for messages), if any.
    public var source: String?

    public init(displays: [DisplaySpec] = [], devices: [DeviceRouteSpec] = [], plugins: [PluginSpec] = [],
                screens: [ScreenSpec] = [], applicationHandlers: [HandlerSpec] = [],
                fallbackHandlers: [HandlerSpec] = [], source: String? = nil) {
        self.displays = displays
        self.devices = devices
        self.plugins = plugins
        self.screens = screens
        self.applicationHandlers = applicationHandlers
        self.fallbackHandlers = fallbackHandlers
        self.source = source
    }
}

/// A physical output (UIWindow).
public struct DisplaySpec: Sendable {
    public var name: String
    public var size: Size
    /// The screen active at start; default: the first screen declared for this display.
    public var initialScreen: String?
    public var location: SourceLocation?
    public var initialScreenLocation: SourceLocation?
    /// `idle:`: after how long without input the display goes idle, and whether the
    /// touch that wakes it is swallowed; nil: the display never goes idle.
    public var idle: IdleSpec?

    public init(name: String, size: Size, initialScreen: String? = nil,
                location: SourceLocation? = nil, initialScreenLocation: SourceLocation? = nil, idle: IdleSpec? = nil) {
        self.name = name
        self.size = size
        self.initialScreen = initialScreen
        self.location = location
        self.initialScreenLocation = initialScreenLocation
        self.idle = idle
    }
}

/// A display's `idle:` block: `after-s` seconds without input on the display's
/// devices make it idle (an `idle` event up its top screen's chain); the next input makes it
/// active (an `active` event first); with `swallow-wake-touch`, the touch that woke it is not
/// routed.
public struct IdleSpec: Sendable {
    /// Seconds without input (`after-s`, ``range``).
    public var afterSeconds: Double
    /// `swallow-wake-touch` (default false).
    public var swallowWakeTouch: Bool
    /// Where the `idle:` key is.
    public var location: SourceLocation?

    /// The `after-s` values accepted: a second to a day.
    public static let range: ClosedRange<Double> = 1...86_400

    public init(afterSeconds: Double, swallowWakeTouch: Bool = false, location: SourceLocation? = nil) {
        self.afterSeconds = afterSeconds
        self.swallowWakeTouch = swallowWakeTouch
        self.location = location
    }

    /// `after-s` as an event-time duration (microseconds).
    public var after: Timestamp.Duration { .seconds(afterSeconds) }
}

/// A device rule as routing sees it: the name handlers take its devices' events by
/// (`devices:`), the display its devices' input goes to, what events they make (their kind,
/// their text mode) and whether they are grabbed (a grabbed device whose events nothing on its
/// display takes is warned about). What else a rule says — which devices it takes, how their
/// input is read — is the input layer's (EvrouteInput's `DeviceRuleSpec`, which makes this
/// route and is kept beside it in ``LayoutSpec/sections``).
public struct DeviceRouteSpec: Sendable {
    public var name: String
    public var display: String?
    /// The kind of device the rule takes (nil: any).
    public var kind: DeviceKind?
    /// How its keys make text.
    public var text: TextMode
    /// Its devices are taken exclusively (EVIOCGRAB).
    public var grab: Bool
    public var location: SourceLocation?
    public var displayLocation: SourceLocation?
    /// Where `grab` was written (the warning about a grabbed device nothing takes).
    public var grabLocation: SourceLocation?

    public init(name: String, display: String? = nil, kind: DeviceKind? = nil, text: TextMode = .on, grab: Bool = false,
                location: SourceLocation? = nil, displayLocation: SourceLocation? = nil, grabLocation: SourceLocation? = nil) {
        self.name = name
        self.display = display
        self.kind = kind
        self.text = text
        self.grab = grab
        self.location = location
        self.displayLocation = displayLocation
        self.grabLocation = grabLocation
    }
}

/// A plugin instance: a name handlers refer to, a type, and the type's options.
public struct PluginSpec: Sendable {
    public var name: String
    public var type: PluginKind
    public var options: [String: ConfigValue]
    public var location: SourceLocation?
    /// Where each option's value was written (key → location), for messages about it.
    public var optionLocations: [String: SourceLocation]

    public init(name: String, type: PluginKind, options: [String: ConfigValue] = [:], location: SourceLocation? = nil,
                optionLocations: [String: SourceLocation] = [:]) {
        self.name = name
        self.type = type
        self.options = options
        self.location = location
        self.optionLocations = optionLocations
    }
}

/// A handler attached to a responder: a plugin instance and the event kinds it takes.
public struct HandlerSpec: Sendable {
    public var plugin: String
    public var on: [EventFilter]
    /// Per-handler options for the plugin (`command`, `action`, `screen`, …).
    public var options: [String: ConfigValue]
    public var location: SourceLocation?
    /// Where each option's value was written (key → location), for messages about it.
    public var optionLocations: [String: SourceLocation]
    /// Where each element of `on` was written (same order as `on`; may be empty).
    public var onLocations: [SourceLocation]
    /// `devices:` — the device rules (their names) whose devices' events the handler takes;
    /// nil takes events of every device (and those of none: actions).
    public var devices: [String]?
    /// Where each element of `devices` was written (same order; may be empty).
    public var deviceLocations: [SourceLocation]

    public init(plugin: String, on: [EventFilter], options: [String: ConfigValue] = [:], location: SourceLocation? = nil,
                optionLocations: [String: SourceLocation] = [:], onLocations: [SourceLocation] = [],
                devices: [String]? = nil, deviceLocations: [SourceLocation] = []) {
        self.plugin = plugin
        self.on = on
        self.options = options
        self.location = location
        self.optionLocations = optionLocations
        self.onLocations = onLocations
        self.devices = devices
        self.deviceLocations = deviceLocations
    }
}

/// A screen (UIViewController): a root region on a display.
public struct ScreenSpec: Sendable {
    public var name: String
    public var display: String?
    public var handlers: [HandlerSpec]
    public var root: RegionSpec
    /// Present this screen over another one at start (its unhandled events go there).
    public var presentedOver: String?
    public var location: SourceLocation?
    public var displayLocation: SourceLocation?
    public var presentedOverLocation: SourceLocation?

    public init(name: String, display: String? = nil, handlers: [HandlerSpec] = [], root: RegionSpec,
                presentedOver: String? = nil, location: SourceLocation? = nil,
                displayLocation: SourceLocation? = nil, presentedOverLocation: SourceLocation? = nil) {
        self.name = name
        self.display = display
        self.handlers = handlers
        self.root = root
        self.presentedOver = presentedOver
        self.location = location
        self.displayLocation = displayLocation
        self.presentedOverLocation = presentedOverLocation
    }
}

/// A region (UIView): a frame in its parent's coordinates and children back to front.
public struct RegionSpec: Sendable {
    public var name: String
    public var frame: Rect
    /// Children, back to front: the last one is on top.
    public var regions: [RegionSpec]
    public var handlers: [HandlerSpec]
    public var hidden: Bool
    public var interactive: Bool
    public var opacity: Double
    public var shape: Shape
    public var hitInsets: EdgeInsets
    public var exclusive: Bool
    public var multitouch: Bool
    public var focusable: Bool
    /// Overrides the next responder: a region name in the same screen, `screen:NAME`,
    /// `display:NAME`, `application` or `fallback`.
    public var next: String?
    public var gestures: [GestureSpec]
    public var location: SourceLocation?
    public var nameLocation: SourceLocation?
    public var nextLocation: SourceLocation?

    public init(name: String, frame: Rect, regions: [RegionSpec] = [], handlers: [HandlerSpec] = [],
                hidden: Bool = false, interactive: Bool = true, opacity: Double = 1, shape: Shape = .rectangle,
                hitInsets: EdgeInsets = .zero, exclusive: Bool = false, multitouch: Bool = true,
                focusable: Bool = false, next: String? = nil, gestures: [GestureSpec] = [],
                location: SourceLocation? = nil, nameLocation: SourceLocation? = nil, nextLocation: SourceLocation? = nil) {
        self.name = name
        self.frame = frame
        self.regions = regions
        self.handlers = handlers
        self.hidden = hidden
        self.interactive = interactive
        self.opacity = opacity
        self.shape = shape
        self.hitInsets = hitInsets
        self.exclusive = exclusive
        self.multitouch = multitouch
        self.focusable = focusable
        self.next = next
        self.gestures = gestures
        self.location = location
        self.nameLocation = nameLocation
        self.nextLocation = nextLocation
    }
}
