/// What a recognizer asks the router to do after seeing a touch or a timer.
enum GestureStep {
    case none, fail, recognize, begin, change, end, cancel
    /// Touches moved: judge the movement once every contact of the frame has moved.
    case evaluate
}

/// The settings a recognizer needs from the router.
struct GestureContext {
    var policy: TapPolicy
    var displaySize: Size
}

/// One live recognizer: a ``GestureSpec`` attached to a region of one layout, with the state
/// of the touch sequence it is following. The router owns it, feeds it touches and timer
/// expiries, and applies the steps it returns (state changes, interaction rules, events).
/// Like the router, it is confined to one event loop.
final class GestureRecognizer {
    struct Tracked {
        var id: Int
        var began: Point
        var location: Point
        var active: Bool
    }

    let spec: GestureSpec
    let layout: Layout
    let ref: GestureRef
    let display: Int
    /// Creation order in the router, for deterministic iteration.
    let order: Int

    var state: GestureState = .possible
    /// Bumped on every reset; touches remember the generation that tracked them.
    var generation = 0
    /// A recognition waiting for `require-to-fail` recognizers to fail.
    var pending: GestureState?
    var lastDevice: DeviceID?

    /// Touches seen since the last reset (ended ones stay, marked inactive).
    var tracked: [Tracked] = []
    var activeCount = 0

    // Timer: at most one per recognizer; the router mirrors it in its queue.
    var timerDeadline: Timestamp?
    var timerDirty = false
    var timerToken = 0

    // Tap.
    var tapsDone = 0
    var touchesThisTap = 0
    var firstTapLocation: Point?
    // Swipe / pan / edge pan / pinch / rotation.
    var startSpan: Double = 0
    var lastVector: Point?
    var rotation: Double = 0
    var edge: GestureSpec.Edge?
    var direction: GestureSpec.Direction?

    init(spec: GestureSpec, layout: Layout, ref: GestureRef, order: Int) {
        self.spec = spec
        self.layout = layout
        self.ref = ref
        self.order = order
        display = layout.screens[layout.regions[ref.region].screen].display
    }

    /// The gesture parts of this recognizer's last routed event.
    private var lastDetails: RoutedEvent.Details?

    /// The gesture parts of an event of this recognizer: the box of its last event, reused
    /// when nothing kept that event (a pan's `changed` per frame allocates nothing), else a new one.
    func eventDetails(region: Int, values: GestureValues) -> RoutedEvent.Details {
        // (Unique only when nothing but this recognizer holds it; false for nil.)
        if isKnownUniquelyReferenced(&lastDetails) {
            let box = lastDetails!
            box.gestureRegion = region
            box.gesture = values
            return box
        }
        let box = RoutedEvent.Details(gestureRegion: region, gesture: values)
        lastDetails = box
        return box
    }

    var isContinuous: Bool { spec.kind != .tap && spec.kind != .swipe }

    /// Whether it takes a new touch: only while possible (and not waiting on another
    /// recognizer), or while a continuous gesture is in progress.
    var acceptsNewTouches: Bool {
        switch state {
        case .possible: pending == nil
        case .began, .changed: true
        default: false
        }
    }

    /// Possible and following a touch sequence: it could still recognize.
    var inPlay: Bool { state == .possible && !tracked.isEmpty }

    func setTimer(_ deadline: Timestamp?) {
        timerDeadline = deadline
        timerDirty = true
    }

    func shares(_ other: GestureRecognizer) -> Bool {
        for a in tracked { for b in other.tracked where a.id == b.id { return true } }
        return false
    }

    func reset() {
        state = .possible
        generation += 1
        pending = nil
        tracked.removeAll(keepingCapacity: true)
        activeCount = 0
        tapsDone = 0
        touchesThisTap = 0
        firstTapLocation = nil
        startSpan = 0
        lastVector = nil
        rotation = 0
        edge = nil
        direction = nil
        if timerDeadline != nil { setTimer(nil) }
    }

    // MARK: Measurements

    /// Mean displacement of the active touches from where each began (or of all, when none is active).
    var translation: Point {
        var sx = 0.0, sy = 0.0, n = 0.0
        for t in tracked where t.active { sx += t.location.x - t.began.x; sy += t.location.y - t.began.y; n += 1 }
        if n == 0 { for t in tracked { sx += t.location.x - t.began.x; sy += t.location.y - t.began.y; n += 1 } }
        return n == 0 ? .zero : Point(x: sx / n, y: sy / n)
    }

    var centroid: Point {
        var sx = 0.0, sy = 0.0, n = 0.0
        for t in tracked where t.active { sx += t.location.x; sy += t.location.y; n += 1 }
        if n == 0 { for t in tracked { sx += t.location.x; sy += t.location.y; n += 1 } }
        return n == 0 ? .zero : Point(x: sx / n, y: sy / n)
    }

    /// The vector between the first two active touches.
    var pairVector: Point? {
        var first: Point?
        for t in tracked where t.active {
            if let f = first { return t.location - f }
            first = t.location
        }
        return nil
    }

    var values: GestureValues {
        var v = GestureValues(location: centroid, translation: translation, touches: activeCount, taps: tapsDone,
                              direction: direction, edge: edge)
        if spec.kind == .tap { v.touches = spec.touches }
        if spec.kind == .pinch, startSpan > 0, let p = pairVector ?? lastVector {
            v.scale = (p.x * p.x + p.y * p.y).squareRoot() / startSpan
        }
        v.rotation = rotation
        return v
    }

    // MARK: Touches

    func touchBegan(_ t: Touch, _ ctx: GestureContext) -> GestureStep {
        tracked.append(Tracked(id: t.id, began: t.location, location: t.location, active: true))
        activeCount += 1
        lastDevice = t.device
        let inProgress = state == .began || state == .changed
        switch spec.kind {
        case .tap:
            if touchesThisTap == 0 {
                if tapsDone > 0, let first = firstTapLocation, first.distance(to: t.location) > ctx.policy.multiTapDistance {
                    return .fail
                }
                if tapsDone == 0 { firstTapLocation = t.location }
                // A tap held longer than a tap may be held fails.
                setTimer(t.timestamp + ctx.policy.maximumDuration)
            }
            touchesThisTap += 1
            return touchesThisTap > spec.touches ? .fail : .none
        case .longPress:
            if inProgress { return .none }
            if activeCount > spec.touches { return .fail }
            if activeCount == spec.touches { setTimer(t.timestamp + .seconds(spec.minimumDuration)) }
            return .none
        case .swipe:
            if tracked.count == 1 { setTimer(t.timestamp + .seconds(spec.maximumDuration)) }
            return activeCount > spec.touches ? .fail : .none
        case .pan:
            if !inProgress, let max = spec.maximumTouches, activeCount > max { return .fail }
            return .none
        case .pinch, .rotation:
            if !inProgress && activeCount == 2, let p = pairVector {
                startSpan = (p.x * p.x + p.y * p.y).squareRoot()
                lastVector = p
                rotation = 0
            }
            return .none
        case .screenEdgePan:
            if inProgress { return .none }
            if tracked.count > 1 { return .fail }
            let m = GestureThresholds.edgeMargin, size = ctx.displaySize, p = t.location
            for e in spec.edges {
                let near = switch e {
                case .left: p.x <= m
                case .right: p.x >= size.width - m
                case .top: p.y <= m
                case .bottom: p.y >= size.height - m
                }
                if near { edge = e; return .none }
            }
            return .fail
        }
    }

    func touchMoved(_ t: Touch, _ ctx: GestureContext) -> GestureStep {
        guard let i = tracked.firstIndex(where: { $0.id == t.id }) else { return .none }
        tracked[i].location = t.location
        let moved = tracked[i].began.distance(to: t.location)
        switch spec.kind {
        case .tap:
            return moved > spec.allowableMovement ? .fail : .none
        case .longPress:
            if state == .began || state == .changed { return .change }
            return moved > spec.allowableMovement ? .fail : .none
        default:
            return .evaluate
        }
    }

    /// Judges the movement of the touches (after a whole frame: contacts of one frame move together).
    func evaluateMovement() -> GestureStep {
        let inProgress = state == .began || state == .changed
        guard state == .possible || inProgress else { return .none }
        switch spec.kind {
        case .tap, .longPress:
            return .none
        case .swipe:
            guard activeCount == spec.touches else { return .none }
            let d = translation
            guard (d.x * d.x + d.y * d.y).squareRoot() >= spec.minimumDistance else { return .none }
            let dir: GestureSpec.Direction = abs(d.x) >= abs(d.y) ? (d.x >= 0 ? .right : .left) : (d.y >= 0 ? .down : .up)
            guard spec.directions.contains(dir) else { return .fail }
            direction = dir
            return .recognize
        case .pan:
            if inProgress { return .change }
            let max = spec.maximumTouches ?? Int.max
            guard activeCount >= spec.touches, activeCount <= max else { return .none }
            let d = translation
            return (d.x * d.x + d.y * d.y).squareRoot() >= spec.minimumDistance ? .begin : .none
        case .pinch, .rotation:
            guard activeCount >= 2, let p = pairVector else { return .none }
            if let last = lastVector {
                let cross = last.x * p.y - last.y * p.x, dot = last.x * p.x + last.y * p.y
                rotation += gestureAtan2(cross, dot)
            }
            lastVector = p
            if inProgress { return .change }
            if spec.kind == .pinch {
                let span = (p.x * p.x + p.y * p.y).squareRoot()
                return abs(span - startSpan) >= GestureThresholds.pinchDistance ? .begin : .none
            }
            return abs(rotation) >= GestureThresholds.rotationAngle ? .begin : .none
        case .screenEdgePan:
            if inProgress { return .change }
            guard let edge else { return .none }
            let d = translation
            let inward = switch edge {
            case .left: d.x
            case .right: -d.x
            case .top: d.y
            case .bottom: -d.y
            }
            return inward >= spec.minimumDistance ? .begin : .none
        }
    }

    /// A touch ended (`cancelled` false) or was cancelled by its device.
    func touchEnded(_ t: Touch, cancelled: Bool, _ ctx: GestureContext) -> GestureStep {
        guard let i = tracked.firstIndex(where: { $0.id == t.id }), tracked[i].active else { return .none }
        tracked[i].location = t.location
        tracked[i].active = false
        activeCount -= 1
        let inProgress = state == .began || state == .changed
        if cancelled { return inProgress ? .cancel : (state == .possible ? .fail : .none) }
        switch spec.kind {
        case .tap:
            if tracked[i].began.distance(to: t.location) > spec.allowableMovement { return .fail }
            guard activeCount == 0 else { return .none }
            guard touchesThisTap == spec.touches else { return .fail }
            tapsDone += 1
            touchesThisTap = 0
            if tapsDone >= spec.taps { setTimer(nil); return .recognize }
            // Wait for the next tap.
            setTimer(t.timestamp + ctx.policy.multiTapInterval)
            return .none
        case .longPress, .swipe, .screenEdgePan:
            return inProgress ? .end : .fail
        case .pan:
            if inProgress { return activeCount < spec.touches ? .end : .none }
            return activeCount == 0 ? .fail : .none
        case .pinch, .rotation:
            if inProgress { return activeCount < 2 ? .end : .none }
            return activeCount == 0 || tracked.count >= 2 ? .fail : .none
        }
    }

    /// Its timer ran out.
    func timerFired() -> GestureStep {
        timerDeadline = nil
        switch spec.kind {
        case .longPress:
            return state == .possible && activeCount == spec.touches ? .begin : .none
        case .tap, .swipe:
            return state == .possible ? .fail : .none
        default:
            return .none
        }
    }
}
