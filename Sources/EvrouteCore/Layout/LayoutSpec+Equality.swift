// Specs are equal when they describe the same thing; where they were written (their source
// locations) does not count. A ``LayoutChange`` compares this way.

extension RegionSpec: Equatable {
    public static func == (a: RegionSpec, b: RegionSpec) -> Bool {
        a.name == b.name && a.frame == b.frame && a.hidden == b.hidden && a.interactive == b.interactive
            && a.opacity == b.opacity && a.shape == b.shape && a.hitInsets == b.hitInsets && a.exclusive == b.exclusive
            && a.multitouch == b.multitouch && a.focusable == b.focusable && a.next == b.next
            && a.handlers == b.handlers && a.gestures == b.gestures && a.regions == b.regions
    }
}

extension HandlerSpec: Equatable {
    public static func == (a: HandlerSpec, b: HandlerSpec) -> Bool {
        a.plugin == b.plugin && a.on == b.on && a.options == b.options && a.devices == b.devices
    }
}

extension GestureSpec: Equatable {
    public static func == (a: GestureSpec, b: GestureSpec) -> Bool {
        a.name == b.name && a.kind == b.kind && a.taps == b.taps && a.touches == b.touches
            && a.maximumTouches == b.maximumTouches && a.minimumDuration == b.minimumDuration
            && a.allowableMovement == b.allowableMovement && a.directions == b.directions
            && a.minimumDistance == b.minimumDistance && a.maximumDuration == b.maximumDuration && a.edges == b.edges
            && a.cancelsTouches == b.cancelsTouches && a.delaysTouchesBegan == b.delaysTouchesBegan
            && a.delaysTouchesEnded == b.delaysTouchesEnded && a.requireToFail == b.requireToFail
            && a.simultaneousWith == b.simultaneousWith && a.action == b.action
    }
}
