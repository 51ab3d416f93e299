import EvrouteCore

/// How a `forward` plugin places forwarded touches on its virtual touchscreens (SPEC §10).
enum ForwardCoordinates: String, Sendable {
    /// The source's own device units, on a virtual device with the source's axes (the default).
    case device
    /// After evroute's rotation and calibration, on a virtual device spanning the display.
    case display
}

/// `forward`'s options.
struct ForwardOptions: Sendable {
    var coordinates: ForwardCoordinates
}

/// `forward` (SPEC §10): whole touches and keys its handlers take are written to virtual
/// devices (uinput) for the compositor behind evroute.
struct ForwardPluginType: PluginType {
    var name: PluginKind { "forward" }
    var pluginOptionKeys: [String] { ["coordinates"] }
    var forwards: Bool { true }

    func readOptions(_ r: inout PluginOptionReader) -> (any Sendable)? {
        var coordinates = ForwardCoordinates.device
        if let s = r.string("coordinates") {
            if let c = ForwardCoordinates(rawValue: s) { coordinates = c }
            else { r.fail("coordinates", "`coordinates` must be `device` or `display`") }
        }
        return ForwardOptions(coordinates: coordinates)
    }

    func makePlugin(spec: PluginSpec, options: (any Sendable)?, context: PluginContext) -> (any Plugin)? {
        nil   // the plugin itself: issue 27 (virtual devices through libevdev's uinput API)
    }
}
