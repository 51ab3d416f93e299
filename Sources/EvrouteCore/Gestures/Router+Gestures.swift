/// Per-touch delivery state for a touch whose region (or an ancestor) has recognizers: a
/// touch as its recognizers see it. A class, made when the touch begins and kept both in
/// ``GestureTracking/touches`` (by touch id, for the recognizers) and beside the touch in
/// ``TouchState/table`` (so a move finds it without a lookup); updated in place (no copy-on-write
/// of its arrays, no allocation per move). Confined to the router's event loop.
final class GestureTouch {
    enum Delivery {
        /// Phases route (possibly held back by delaying recognizers).
        case normal
        /// A recognizer cancelled it: its `cancelled` phase routed; nothing more routes.
        case cancelled
        /// A recognizer took it before its `began` was delivered: nothing of it routes.
        case swallowed
    }
    /// The touch's id.
    let id: Int
    let key: Router.TouchKey
    var device: DeviceInfo?
    /// The recognizers that track it, each with the generation that tracked it.
    var recognizers: [(GestureRecognizer, Int)]
    var delivery = Delivery.normal
    var beganDelivered = false
    /// The phase values the recognizers saw last. The touch itself stays the router's while it
    /// is down (a second reference to it here would make every move copy it); a recognizer
    /// that cancels it routes its `cancelled` phase from these values.
    var lastValues: Touch.PhaseValues
    /// The touch once it has ended or been cancelled by its device (the router has let it go).
    var ended: Touch?
    /// Phases waiting for delaying recognizers.
    var queue: [Touch] = []
    /// The touch has ended or been cancelled by its device.
    var finished = false
    /// Done with: removed from `Router.gestureTouches` (``Router/forget(_:)``).
    var forgotten = false

    init(touch: Touch, key: Router.TouchKey, device: DeviceInfo?) {
        id = touch.id
        self.key = key
        self.device = device
        recognizers = []
        lastValues = touch.values
    }
}

/// A recognizer's timer in the router's queue.
struct GestureTimer {
    var deadline: Timestamp
    var sequence: Int
    var recognizer: GestureRecognizer
    var token: Int
}

extension Router {
    // MARK: Timers

    /// The earliest time a pending recognizer timer (multi-tap interval, long press, swipe
    /// duration, tap duration) fires, if any. A daemon arms its loop timer for it and calls
    /// ``advanceTime(to:)`` when it expires.
    public var nextTimerDeadline: Timestamp? {
        if gestures.timers.isEmpty && gestures.shakingDevices == 0 { return idleState.deadline }
        purgeStaleTimers()
        var next = gestures.timers.first?.deadline
        if let shake = nextShakeDeadline { next = next.map { min($0, shake) } ?? shake }
        if let idle = idleState.deadline { next = next.map { min($0, idle) } ?? idle }
        return next
    }

    /// No recognizer timer, no shake and no display's idle deadline is due by `time`: moving
    /// the clock is all ``advanceTime(to:)`` has to do.
    @inline(__always)
    func nothingDue(by time: Timestamp) -> Bool {
        gestures.timers.isEmpty && gestures.shakingDevices == 0 && (idleState.deadline.map { $0 > time } ?? true)
    }

    /// Moves event time forward to `time`, firing every recognizer timer (and ending every
    /// shake, and sending every display's `idle`) due by then, in deadline order (each at its
    /// own deadline). ``handle(_:)`` calls it before each frame or key. Nothing due (the
    /// common case of every frame): the clock moved in place, inlined where the router calls it.
    @inline(__always)
    public func advanceTime(to time: Timestamp) {
        if nothingDue(by: time) {
            advanceClock(to: time)
        } else {
            fireDue(upTo: time)
        }
    }

    /// ``advanceTime(to:)`` with a recognizer timer, a shake or an idle deadline due: out of line.
    @inline(never)
    private func fireDue(upTo time: Timestamp) {
        while true {
            purgeStaleTimers()
            let gesture = gestures.timers.first.flatMap { $0.deadline <= time ? $0 : nil }
            let dueShake = dueShake(by: time)
            if let idle = idleState.deadline, idle <= time, gesture.map({ idle <= $0.deadline }) ?? true,
               dueShake.map({ idle <= $0.deadline }) ?? true {
                clock.advance(to: idle)
                fireIdle(due: idle, at: max(idle, clock.now))
                continue
            }
            if let shake = dueShake, gesture.map({ shake.deadline < $0.deadline }) ?? true {
                clock.advance(to: shake.deadline)
                endShake(of: shake.device, .ended, at: shake.deadline)
                continue
            }
            guard let first = gesture else { break }
            gestures.timers.removeFirst()
            clock.advance(to: first.deadline)
            fireTimer(first.recognizer, at: max(first.deadline, clock.now))
        }
        clock.advance(to: time)
    }

    /// Fires now (at `time`) every pending timer of recognizers last fed by `device` (all when
    /// nil), in deadline order: a removed device's (or a shut-down router's) recognizers settle
    /// as if their time had run out, so a replay's end is deterministic.
    func settleTimers(device: DeviceID?, time: Timestamp) {
        var i = 0
        while i < gestures.timers.count {
            let t = gestures.timers[i]
            if t.token != t.recognizer.timerToken { gestures.timers.remove(at: i); continue }
            if device == nil || t.recognizer.lastDevice == device {
                gestures.timers.remove(at: i)
                fireTimer(t.recognizer, at: time)
                i = 0
                continue
            }
            i += 1
        }
    }

    func purgeStaleTimers() { gestures.purgeStaleTimers() }

    func syncTimer(_ rec: GestureRecognizer) {
        guard rec.timerDirty else { return }
        rec.timerDirty = false
        rec.timerToken += 1
        guard let deadline = rec.timerDeadline else { return }
        gestures.schedule(rec, at: deadline)
    }

    func fireTimer(_ rec: GestureRecognizer, at time: Timestamp) {
        let step = rec.timerFired()
        apply(step, rec, time: time)
        syncTimer(rec)
    }

    func context(for rec: GestureRecognizer) -> GestureContext {
        GestureContext(policy: tapPolicy, displaySize: rec.layout.displays[rec.display].size)
    }

    // MARK: Touches

    /// The recognizers' state for a touch that begins in a region that has recognizers (its
    /// own or an ancestor's): the recognizers that take new touches now track it.
    func gestureEntry(for t: Touch, key: TouchKey, device: DeviceInfo?) -> GestureTouch {
        let entry = GestureTouch(touch: t, key: key, device: device)
        for ref in t.layout.gesturePaths[t.region!] {
            let rec = recognizer(ref, in: t.layout)
            if rec.acceptsNewTouches { entry.recognizers.append((rec, rec.generation)) }
        }
        gestures.touches[t.id] = entry
        return entry
    }

    /// Removes a touch's recognizer state once it is done with: nothing more of it routes.
    func forget(_ entry: GestureTouch) {
        gestures.touches[entry.id] = nil
        entry.forgotten = true
    }

    /// Hands one touch phase to the recognizers that see it, then delivers it to its region
    /// (now, later, or never) according to their state and delay/cancel options.
    func deliverThroughGestures(_ t: Touch, entry: GestureTouch, device: DeviceInfo?, time: Timestamp) {
        guard !entry.forgotten else {
            routeTouchPhase(t, device: device, time: time)
            return
        }
        entry.lastValues = t.values
        if t.phase.isTerminal {
            entry.finished = true
            entry.ended = t
        }
        // Queued first (routed below, or earlier if a recognizer's failure releases it), so a
        // recognizer that cancels the touch while seeing this phase drops it.
        if entry.delivery == .normal { entry.queue.append(t) }
        // Recognizers first.
        for (rec, gen) in entry.recognizers where rec.generation == gen {
            let ctx = context(for: rec)
            let step: GestureStep
            switch t.phase {
            case .began: step = rec.touchBegan(t, ctx)
            case .moved, .stationary: step = rec.touchMoved(t, ctx)
            case .ended: step = rec.touchEnded(t, cancelled: false, ctx)
            case .cancelled: step = rec.touchEnded(t, cancelled: true, ctx)
            }
            apply(step, rec, time: time)
            syncTimer(rec)
            if t.phase.isTerminal, rec.generation == gen { resetIfDone(rec) }
        }
        // Then the region.
        guard !entry.forgotten else { return }
        if entry.delivery == .normal {
            flushTouch(entry, time: time)
        } else if entry.finished {
            forget(entry)
        }
    }

    /// Routes the touch's held phases that nothing delays any more.
    func flushTouch(_ e: GestureTouch, time: Timestamp) {
        guard !e.forgotten else { return }
        while let t = e.queue.first {
            guard e.delivery == .normal else { e.queue.removeAll(); break }
            if !e.beganDelivered && delays(e, began: true) { break }
            if t.phase == .ended && delays(e, began: false) { break }
            // (Usually the only phase: removeLast keeps the buffer, removeFirst shifts the rest.)
            if e.queue.count == 1 { e.queue.removeLast() } else { e.queue.removeFirst() }
            e.beganDelivered = true
            routeTouchPhase(t, device: e.device, time: max(t.timestamp, time))
            guard !e.forgotten else { return }
        }
        if e.finished && e.queue.isEmpty { forget(e) }
    }

    func delays(_ e: GestureTouch, began: Bool) -> Bool {
        for (rec, gen) in e.recognizers where rec.generation == gen && rec.state == .possible {
            if began ? rec.spec.delaysTouchesBegan : rec.spec.delaysTouchesEnded { return true }
        }
        return false
    }

    /// Flushes every touch `rec` tracks (after it failed or recognized, its delays are over).
    func releaseTouches(of rec: GestureRecognizer, time: Timestamp) {
        for t in rec.tracked {
            if let e = gestures.touches[t.id] { flushTouch(e, time: time) }
        }
    }

    /// The live recognizer for `ref` in `layout`, created on first use.
    func recognizer(_ ref: GestureRef, in l: Layout) -> GestureRecognizer {
        let key = GestureKey(layout: ObjectIdentifier(l), ref: ref)
        if let r = gestures.byKey[key] { return r }
        let r = GestureRecognizer(spec: l.regions[ref.region].gestures[ref.index], layout: l, ref: ref, order: gestures.nextOrder())
        gestures.byKey[key] = r
        gestures.list.append(r)
        return r
    }

    // MARK: State machine

    func apply(_ step: GestureStep, _ rec: GestureRecognizer, time: Timestamp) {
        switch step {
        case .none: break
        case .evaluate:
            if gestures.inFrame {
                if !gestures.moved.contains(where: { $0 === rec }) { gestures.moved.append(rec) }
            } else {
                apply(rec.evaluateMovement(), rec, time: time)
            }
        case .fail: fail(rec, time: time)
        case .recognize: tryRecognize(rec, as: .recognized, time: time)
        case .begin: tryRecognize(rec, as: .began, time: time)
        case .change:
            guard rec.state == .began || rec.state == .changed else { return }
            rec.state = .changed
            // One `changed` per frame, once every contact of the frame has been seen.
            if !gestures.changed.contains(where: { $0 === rec }) { gestures.changed.append(rec) }
            if !gestures.inFrame { flushChanged(time: time) }
        case .end, .cancel:
            guard rec.state == .began || rec.state == .changed else { return }
            let final: GestureState = step == .end ? .ended : .cancelled
            rec.state = final
            routeGesture(rec, final, time: time)
            releaseTouches(of: rec, time: time)
            resetIfDone(rec)
        }
    }

    /// At the end of a frame: judges the movement of the recognizers whose touches moved,
    /// then routes the `changed` events gathered.
    func finishFrame(time: Timestamp) {
        while !gestures.moved.isEmpty {
            // (The last one: removeLast keeps the buffer, removeFirst shifts the rest.)
            let rec = gestures.moved.count == 1 ? gestures.moved.removeLast() : gestures.moved.removeFirst()
            apply(rec.evaluateMovement(), rec, time: time)
            syncTimer(rec)
        }
        flushChanged(time: time)
    }

    /// Routes the `changed` events gathered during a frame.
    func flushChanged(time: Timestamp) {
        while !gestures.changed.isEmpty {
            let rec = gestures.changed.removeFirst()
            if rec.state == .changed { routeGesture(rec, .changed, time: time) }
        }
    }

    /// The recognizers `rec` must wait for (`require-to-fail`), those that exist.
    func requirements(of rec: GestureRecognizer) -> [GestureRecognizer] {
        guard !rec.spec.requireToFail.isEmpty else { return [] }
        let screen = rec.layout.regions[rec.ref.region].screen
        var out: [GestureRecognizer] = []
        for name in rec.spec.requireToFail {
            guard let ref = rec.layout.gesture(named: name, inScreen: screen),
                  let r = gestures.byKey[GestureKey(layout: ObjectIdentifier(rec.layout), ref: ref)] else { continue }
            out.append(r)
        }
        return out
    }

    /// `rec` wants to recognize (discrete) or begin (continuous): it does, waits for the
    /// recognizers it requires to fail, or fails because one of them recognized.
    func tryRecognize(_ rec: GestureRecognizer, as target: GestureState, time: Timestamp) {
        guard rec.state == .possible, rec.pending == nil else { return }
        // The first to recognize wins: a gesture already in progress on these touches
        // prevents this one (unless they recognize simultaneously).
        for other in gestures.list where other !== rec && (other.state == .began || other.state == .changed)
            && rec.shares(other) && !simultaneous(rec, other) {
            fail(rec, time: time)
            return
        }
        for req in requirements(of: rec) where !req.tracked.isEmpty {
            switch req.state {
            case .possible:
                rec.pending = target
                emit(.gestureState(name: rec.spec.name, state: .possible, waitingFor: req.spec.name, layout: rec.layout,
                                   region: rec.ref.region, time: time, values: rec.values))
                return
            case .began, .changed, .recognized, .ended:
                fail(rec, time: time)
                return
            case .cancelled, .failed:
                continue
            }
        }
        commit(rec, target, time: time)
    }

    func simultaneous(_ a: GestureRecognizer, _ b: GestureRecognizer) -> Bool {
        a.spec.simultaneousWith.contains(b.spec.name) || b.spec.simultaneousWith.contains(a.spec.name)
    }

    func commit(_ rec: GestureRecognizer, _ target: GestureState, time: Timestamp) {
        rec.pending = nil
        if rec.timerDeadline != nil { rec.setTimer(nil); syncTimer(rec) }
        // Only one recognizer may take a touch sequence, unless they recognize simultaneously.
        // (`rec` stays possible meanwhile, so its delays still hold the touches it will cancel.)
        for other in gestures.list where other !== rec && !other.tracked.isEmpty && rec.shares(other) && !simultaneous(rec, other) {
            switch other.state {
            case .possible: fail(other, time: time)
            case .began, .changed:
                other.state = .cancelled
                routeGesture(other, .cancelled, time: time)
                releaseTouches(of: other, time: time)
                resetIfDone(other)
            default: break
            }
        }
        guard rec.state == .possible else { return }
        rec.state = target
        routeGesture(rec, target, time: time)
        // A recognizer of an older layout (its touches began before a layout change) sends from
        // its region as it is now (same path); from nowhere when it is gone.
        if let action = rec.spec.action, let region = currentRegion(rec.ref.region, of: rec.layout) {
            sendAction(action, fromRegion: region, time: time)
        }
        if rec.spec.cancelsTouches { cancelTouches(of: rec, time: time) }
        releaseTouches(of: rec, time: time)
        // Recognizers waiting for this one to fail fail.
        for other in gestures.list where other.pending != nil && requirements(of: other).contains(where: { $0 === rec }) {
            fail(other, time: time)
        }
        resetIfDone(rec)
    }

    func fail(_ rec: GestureRecognizer, time: Timestamp) {
        guard rec.state == .possible else { return }
        rec.state = .failed
        rec.pending = nil
        if rec.timerDeadline != nil { rec.setTimer(nil) }
        syncTimer(rec)
        emit(.gestureState(name: rec.spec.name, state: .failed, waitingFor: nil, layout: rec.layout,
                           region: rec.ref.region, time: time, values: rec.values))
        releaseTouches(of: rec, time: time)
        // Recognizers waiting for this one may go now.
        for other in gestures.list where other.pending != nil && requirements(of: other).contains(where: { $0 === rec }) {
            let waiting = requirements(of: other).contains { $0 !== rec && $0.inPlay }
            if !waiting, let target = other.pending {
                other.pending = nil
                tryRecognize(other, as: target, time: time)
            }
        }
        resetIfDone(rec)
    }

    /// Goes back to `possible` once the recognizer is final and none of its touches is down.
    func resetIfDone(_ rec: GestureRecognizer) {
        guard rec.state.isFinal, rec.activeCount == 0 else { return }
        rec.reset()
        syncTimer(rec)
        if rec.layout !== layout {
            gestures.byKey[GestureKey(layout: ObjectIdentifier(rec.layout), ref: rec.ref)] = nil
            gestures.list.removeAll { $0 === rec }
        }
    }

    /// `cancels-touches`: the recognizer's touches get their `cancelled` phase now, and no
    /// more phases route (a touch whose `began` was still held is never delivered).
    func cancelTouches(of rec: GestureRecognizer, time: Timestamp) {
        for tracked in rec.tracked {
            guard let e = gestures.touches[tracked.id], e.delivery == .normal else { continue }
            e.queue.removeAll()
            if !e.beganDelivered {
                e.delivery = .swallowed
                if e.finished { forget(e) }
                continue
            }
            e.delivery = .cancelled
            if e.finished { forget(e) }
            // The touch as the recognizers last saw it: the router's (a touch still down; it may
            // have had stationary samples since) or the one that ended.
            guard var t = e.ended ?? touchState.table[e.key].flatMap({ $0.touch.id == e.id ? $0.touch : nil }) else { continue }
            t.values = e.lastValues
            // A touch whose end already routed is over; one whose end is held gets cancelled instead.
            t.phase = .cancelled
            t.timestamp = max(t.timestamp, time)
            route(t, device: e.device, time: time)
        }
    }

    /// Routes a recognizer's state change up the chain from its region.
    func routeGesture(_ rec: GestureRecognizer, _ state: GestureState, time: Timestamp) {
        let event = RoutedEvent(kind: .gesture(name: rec.spec.name, state: state.rawValue), time: time, layout: rec.layout,
                                display: rec.display, start: .region(rec.ref.region), region: rec.ref.region,
                                details: rec.eventDetails(region: rec.ref.region, values: rec.values))
        walk(event)
    }
}

struct GestureKey: Hashable {
    var layout: ObjectIdentifier
    var ref: GestureRef
}
