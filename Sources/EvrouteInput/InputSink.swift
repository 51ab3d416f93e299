import EvrouteCore

/// A device a rule took, as the input source that matched it hands it on: matched once, where
/// the device is found (``LiveInputSource``, or the replay driver for a recording).
public struct MatchedDevice: Sendable {
    public var id: DeviceID
    /// The device's description (udev properties included, live).
    public var description: DeviceDescription
    /// ``DeviceKind/of(_:)`` of the description.
    public var kind: DeviceKind
    /// The rule's index in the rules the source matched with (the layout's `deviceRules`).
    public var ruleIndex: Int
    /// The rule that took the device.
    public var rule: DeviceRuleSpec

    public init(id: DeviceID, description: DeviceDescription, kind: DeviceKind, ruleIndex: Int, rule: DeviceRuleSpec) {
        self.id = id
        self.description = description
        self.kind = kind
        self.ruleIndex = ruleIndex
        self.rule = rule
    }
}

/// The one channel input reaches the routing session by (`source.sink = session`): live
/// devices (``LiveInputSource``) and recordings (the replay driver) feed it alike.
///
/// Per device: ``deviceAdded(_:at:)`` once (the rule already matched), then ``events(_:from:)``
/// any number of times, then ``deviceRemoved(_:at:)`` once. Each call carries its time (the
/// clock the device's events are stamped with), so the sink alone sets time from the stream.
public protocol InputSink: AnyObject {
    /// A device a rule took appeared (hotplug, startup enumeration, a recording's first event).
    func deviceAdded(_ device: MatchedDevice, at time: Timestamp)
    /// A recorded device no rule takes (a live one the source never opens: it reports those itself).
    func deviceIgnored(_ id: DeviceID, _ description: DeviceDescription, kind: DeviceKind,
                       reason: DeviceIgnoreReason, at time: Timestamp)
    /// One read of a device: its raw events, in order, valid only during the call.
    func events(_ batch: InputBatch, from device: DeviceID)
    /// The device went away (unplug, read error, the end of its recording) at this time.
    func deviceRemoved(_ device: DeviceID, at time: Timestamp)
}

extension DeviceRuleMatcher {
    /// The device as the first rule that takes it (its index in ``rules``), or nil.
    public func match(_ id: DeviceID, _ description: DeviceDescription, kind: DeviceKind) -> MatchedDevice? {
        guard let index = firstMatchIndex(for: description, kind: kind) else { return nil }
        return MatchedDevice(id: id, description: description, kind: kind, ruleIndex: index, rule: rules[index])
    }
}

extension InputSink {
    /// Hands one item of a recorded stream (``ReplaySource``) on, an `added` device matched by
    /// `matcher` (``deviceIgnored(_:_:kind:reason:at:)`` when no rule takes it) and an event as a
    /// read of one.
    public func take(_ item: InputItem, matching matcher: DeviceRuleMatcher) {
        switch item {
        case .added(let id, let description, let time):
            let kind = DeviceKind.of(description)
            if let device = matcher.match(id, description, kind: kind) {
                deviceAdded(device, at: time)
            } else {
                deviceIgnored(id, description, kind: kind, reason: matcher.whyNone(for: description, kind: kind), at: time)
            }
        case .event(let id, let event):
            InputBatch.with(event) { events($0, from: id) }
        case .removed(let id, let time):
            deviceRemoved(id, at: time)
        }
    }
}
