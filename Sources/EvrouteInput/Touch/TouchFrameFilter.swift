import EvrouteCore

/// A contact filter: a stage of a touch device's chain between its decoder (contacts decoded
/// and mapped to display coordinates) and the router, which may change, hold back or drop
/// contacts of each frame (a frame left without contacts is not routed). One per device, made
/// when the device arrives (it may keep state across frames); it runs on the loop's thread.
public protocol TouchFrameFilter: AnyObject {
    /// Filters one frame of the device's contacts, in place.
    func filter(_ frame: inout TouchFrameInput)
}

/// The one place contact filters are registered: what a device rule asks for becomes a
/// device's filter list, in the order they run. A filter is one file (its type) plus one line
/// here; none exists yet, so every list is empty (and an empty list costs a count test per frame).
public enum TouchFrameFilters {
    /// The filters, in order, for a touch device `description` that `rule` took.
    public static func make(for rule: DeviceRuleSpec, device description: DeviceDescription) -> [any TouchFrameFilter] {
        // One line per filter, in a `var filters` returned here, e.g.
        // `if let jitter = rule.jitter { filters.append(JitterFilter(jitter, description)) }`.
        []
    }
}
