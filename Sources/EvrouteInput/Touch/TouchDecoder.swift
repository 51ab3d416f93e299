import EvrouteCore

/// Turns one device's raw events into touch frames: on each `SYN_REPORT`, the contacts that
/// began, moved, ended or were cancelled, in display coordinates.
///
/// Speaks protocol B (slots), protocol A (anonymous contacts, matched frame to frame by
/// nearest distance — see `ContactMatcher`) and single-touch (see `TouchProtocol.of`).
/// Contact numbers (`ContactSample.contact`) are the decoder's own, counting up from 1: a
/// contact keeps its number while down and numbers are never reused, even when the device
/// reuses a tracking ID.
///
/// `SYN_DROPPED`: in a raw stream (a recording), events up to the next `SYN_REPORT` are
/// discarded and that report cancels every live contact — unless `resync(_:at:)` is given the
/// re-read device state first. In a libevdev stream (``DeviceDescription/resyncsAfterDrop``), the
/// events up to that report are libevdev's resync and are applied as one: contacts whose tracking
/// ID changed or vanished during the drop are cancelled (their end was lost), contacts that stayed
/// down keep their identity and move, new ones begin — as with `resync(_:at:)`.
///
/// In steady state `feed` allocates nothing: a frame's contacts share the decoder's own buffer
/// (copied only when a caller keeps a frame past the next one). Its state is confined to the
/// thread that feeds it (the event loop), so its stored properties skip dynamic exclusivity
/// checks: one per event was a measurable share of the live path.
public final class TouchDecoder {
    public let device: DeviceID
    public let touchProtocol: TouchProtocol
    /// Device → display mapping of the axes the protocol uses; nil for non-touch devices.
    public let mapper: CoordinateMapper?
    /// Whether the device speaks a touch protocol (``mapper`` is set): checked per event
    /// without copying the mapper out of its optional.
    private let decodes: Bool

    private let reportsPressure: Bool
    private let reportsMajor: Bool
    private let reportsMinor: Bool
    private let reportsToolType: Bool
    @exclusivity(unchecked) private var nextContact = 1
    @exclusivity(unchecked) private var dropping = false
    /// The stream follows `SYN_DROPPED` with a complete resync (live devices via libevdev).
    private let appliesResync: Bool
    @exclusivity(unchecked) private var scratch: [ContactSample] = []
    /// Contacts the decoder could not track (beyond the slot or per-frame limits).
    @exclusivity(unchecked) public private(set) var droppedContacts = 0
    /// Samples dropped because their point was not finite.
    @exclusivity(unchecked) public private(set) var droppedSamples = 0
    @exclusivity(unchecked) private var pendingWarnings: [Warning] = []
    private var warnedKinds: UInt8 = 0
    /// The slots the device declares (may be more than it tracks).
    private let declaredSlots: Int

    // Protocol B
    @exclusivity(unchecked) private var slots: [SlotState] = []
    @exclusivity(unchecked) private var currentSlot = 0
    /// Slots below 64 that events of the current frame addressed (bit per slot).
    @exclusivity(unchecked) private var touchedSlots: UInt64 = 0
    /// An event of the current frame addressed a slot of 64 or beyond.
    @exclusivity(unchecked) private var touchedSlotsBeyondMask = false

    // Protocol A
    @exclusivity(unchecked) private var matcher = ContactMatcher()
    @exclusivity(unchecked) private var reported: [RawContact] = []
    @exclusivity(unchecked) private var building = RawContact()
    @exclusivity(unchecked) private var buildingHasPosition = false
    @exclusivity(unchecked) private var buildingHasTrackingID = false
    @exclusivity(unchecked) private var allReportedHaveIDs = true

    // Single-touch
    @exclusivity(unchecked) private var single = SlotState()
    @exclusivity(unchecked) private var touching = false

    /// - Parameters:
    ///   - device: the id every frame carries.
    ///   - description: the device's capabilities (protocol, axis ranges, which values it reports).
    ///   - displaySize: the display the device is mapped onto, in display units.
    ///   - rotation: how the device sits on the display.
    ///   - calibration: a calibration matrix; nil takes `LIBINPUT_CALIBRATION_MATRIX` from the
    ///     description's udev properties when set there and valid.
    ///   - initialSlot: the slot events apply to before the first `ABS_MT_SLOT` (a live device's
    ///     current slot; 0 for recordings).
    public init(device: DeviceID, description: DeviceDescription, displaySize: Size,
                rotation: DisplayRotation = .none, calibration: CalibrationMatrix? = nil, initialSlot: Int = 0) {
        self.device = device
        appliesResync = description.resyncsAfterDrop
        let touchProtocol = TouchProtocol.of(description)
        self.touchProtocol = touchProtocol
        let abs = description.events[EventType.abs] ?? []
        var matrix = calibration ?? .identity
        var badProperty: String?
        if calibration == nil, let text = description.udevProperties["LIBINPUT_CALIBRATION_MATRIX"] {
            if let m = CalibrationMatrix(udevProperty: text) { matrix = m } else { badProperty = text }
        }
        declaredSlots = Int(description.absinfo[AbsCode.mtSlot]?.maximum ?? 0) + 1
        let axes: (UInt16, UInt16)?
        switch touchProtocol {
        case .slots, .contactReports:
            axes = (AbsCode.mtPositionX, AbsCode.mtPositionY)
            reportsPressure = abs.contains(AbsCode.mtPressure)
            reportsMajor = abs.contains(AbsCode.mtTouchMajor)
            reportsMinor = abs.contains(AbsCode.mtTouchMinor)
            reportsToolType = abs.contains(AbsCode.mtToolType)
        case .singleTouch:
            axes = (AbsCode.x, AbsCode.y)
            reportsPressure = abs.contains(AbsCode.pressure)
            reportsMajor = false
            reportsMinor = false
            reportsToolType = false
        case .none:
            axes = nil
            reportsPressure = false
            reportsMajor = false
            reportsMinor = false
            reportsToolType = false
        }
        if let (xCode, yCode) = axes {
            let fallback = AbsInfo(minimum: 0, maximum: 0)
            mapper = CoordinateMapper(xAxis: description.absinfo[xCode] ?? fallback, yAxis: description.absinfo[yCode] ?? fallback,
                                      displaySize: displaySize, rotation: rotation, calibration: matrix)
        } else {
            mapper = nil
        }
        decodes = mapper != nil
        if case .slots(let count) = touchProtocol {
            slots = Array(repeating: SlotState(), count: count)
            currentSlot = initialSlot
        }
        if touchProtocol == .contactReports {
            matcher = ContactMatcher(fuzz: description.absinfo[AbsCode.mtPositionX]?.fuzz ?? 0,
                                     fuzzY: description.absinfo[AbsCode.mtPositionY]?.fuzz ?? 0)
            reported.reserveCapacity(ContactMatcher.maximumContacts)
        }
        scratch.reserveCapacity(16)
        if let badProperty { warn(.calibrationPropertyIgnored(badProperty)) }
    }

    /// How many contacts are down.
    public var liveContactCount: Int {
        switch touchProtocol {
        case .slots: return slots.reduce(0) { $0 + ($1.contact > 0 ? 1 : 0) }
        case .contactReports: return matcher.live.count
        case .singleTouch: return single.contact > 0 ? 1 : 0
        case .none: return 0
        }
    }

    /// Feeds one event; returns a frame on a `SYN_REPORT` that changed any contact.
    public func feed(_ event: InputEvent) -> TouchFrameInput? {
        guard decodes else { return nil }
        if event.type == EventType.syn {
            switch event.code {
            case SynCode.report:
                if dropping {
                    dropping = false
                    return appliesResync ? resync(resyncedState(), at: event.time) : cancelAll(at: event.time)
                }
                return finishFrame(at: event.time)
            case SynCode.mtReport:
                if !dropping && touchProtocol == .contactReports { closeContactReport() }
            case SynCode.dropped:
                dropping = true
            default:
                break
            }
            return nil
        }
        if dropping && !appliesResync { return nil }
        switch touchProtocol {
        case .slots: feedSlots(event)
        case .contactReports: feedContactReports(event)
        case .singleTouch: feedSingleTouch(event)
        case .none: break
        }
        return nil
    }

    /// A frame cancelling every live contact (unplug, end of a replay); nil when none is down.
    /// Afterwards the decoder waits for new contacts: values for contacts it cancelled are ignored.
    public func cancelAll(at time: Timestamp) -> TouchFrameInput? {
        scratch.removeAll(keepingCapacity: true)
        switch touchProtocol {
        case .slots:
            for index in slots.indices {
                if slots[index].contact > 0 { emit(slots[index].contact, .cancelled, slots[index].committed) }
                slots[index].reset()
            }
        case .contactReports:
            for live in matcher.live { emit(live.contact, .cancelled, live.values) }
            matcher.live.removeAll(keepingCapacity: true)
            reported.removeAll(keepingCapacity: true)
            building = RawContact()
            buildingHasPosition = false
            buildingHasTrackingID = false
            allReportedHaveIDs = true
        case .singleTouch:
            if single.contact > 0 { emit(single.contact, .cancelled, single.committed) }
            single.contact = 0
            single.changed = false
            touching = false
        case .none:
            break
        }
        return makeFrame(at: time)
    }

    /// Brings the decoder to a device state read after `SYN_DROPPED` (or when a device is opened
    /// with contacts already down), and ends a pending drop. Contacts whose tracking ID changed or
    /// vanished are cancelled, new ones begin, ones that stayed move if their values changed.
    /// Protocol A has no state to re-read: every live contact is cancelled.
    public func resync(_ snapshot: TouchSnapshot, at time: Timestamp) -> TouchFrameInput? {
        dropping = false
        switch touchProtocol {
        case .slots:
            scratch.removeAll(keepingCapacity: true)
            for index in slots.indices {
                let read = index < snapshot.slots.count ? snapshot.slots[index] : TouchSnapshot.Slot(trackingID: -1)
                let values = RawContact(trackingID: read.trackingID, x: read.x, y: read.y, pressure: read.pressure,
                                        touchMajor: read.touchMajor, touchMinor: read.touchMinor, toolType: read.toolType)
                var slot = slots[index]
                if slot.contact > 0 && slot.committed.trackingID != values.trackingID {
                    emit(slot.contact, .cancelled, slot.committed)
                    slot.contact = 0
                }
                slot.pending = values
                slot.interrupted = false
                slot.changed = false
                if values.trackingID >= 0 {
                    if slot.contact == 0 {
                        slot.contact = takeContactNumber()
                        emit(slot.contact, .began, values)
                    } else if slot.committed != values {
                        emit(slot.contact, .moved, values)
                    }
                    slot.committed = values
                }
                slots[index] = slot
            }
            currentSlot = snapshot.currentSlot
            return makeFrame(at: time)
        case .contactReports:
            return cancelAll(at: time)
        case .singleTouch:
            scratch.removeAll(keepingCapacity: true)
            single.pending.x = snapshot.x
            single.pending.y = snapshot.y
            single.pending.pressure = snapshot.pressure
            single.changed = false
            touching = snapshot.touching
            if single.contact > 0 && !touching {
                emit(single.contact, .cancelled, single.committed)
                single.contact = 0
            } else if touching {
                if single.contact == 0 {
                    single.contact = takeContactNumber()
                    emit(single.contact, .began, single.pending)
                } else if single.committed != single.pending {
                    emit(single.contact, .moved, single.pending)
                }
                single.committed = single.pending
            }
            return makeFrame(at: time)
        case .none:
            return nil
        }
    }

    /// The device state after libevdev's resync events (applied to the pending values).
    private func resyncedState() -> TouchSnapshot {
        switch touchProtocol {
        case .slots:
            return TouchSnapshot(slots: slots.map {
                TouchSnapshot.Slot(trackingID: $0.pending.trackingID, x: $0.pending.x, y: $0.pending.y,
                                   pressure: $0.pending.pressure, touchMajor: $0.pending.touchMajor,
                                   touchMinor: $0.pending.touchMinor, toolType: $0.pending.toolType)
            }, currentSlot: currentSlot)
        case .singleTouch:
            return TouchSnapshot(touching: touching, x: single.pending.x, y: single.pending.y, pressure: single.pending.pressure)
        case .contactReports, .none:
            return TouchSnapshot()
        }
    }

    // MARK: Protocol B

    private func feedSlots(_ event: InputEvent) {
        guard event.type == EventType.abs else { return }
        if event.code == AbsCode.mtSlot {
            currentSlot = Int(event.value)
            return
        }
        if currentSlot >= 0 && currentSlot < 64 { touchedSlots |= 1 << UInt64(currentSlot) } else { touchedSlotsBeyondMask = true }
        guard currentSlot >= 0 && currentSlot < slots.count else {
            // A contact the slot limit leaves out: counted and said once, never silently.
            if event.code == AbsCode.mtTrackingID, event.value >= 0, currentSlot >= slots.count {
                droppedContacts += 1
                warn(.slotBeyondLimit(slot: currentSlot, declared: declaredSlots))
            }
            return
        }
        if event.code == AbsCode.mtTrackingID {
            if event.value != slots[currentSlot].pending.trackingID {
                slots[currentSlot].pending.trackingID = event.value < 0 ? -1 : event.value
                slots[currentSlot].interrupted = true
            }
            return
        }
        if slots[currentSlot].pending.setMT(code: event.code, value: event.value) {
            slots[currentSlot].changed = true
        }
    }

    private func finishSlots() {
        // Only the slots this frame's events touched can have changed: below 64, a bit each,
        // visited in slot order; beyond (devices with more slots), every slot.
        if touchedSlotsBeyondMask {
            touchedSlotsBeyondMask = false
            touchedSlots = 0
            for index in slots.indices { finishSlot(index) }
            return
        }
        var mask = touchedSlots
        touchedSlots = 0
        while mask != 0 {
            let index = mask.trailingZeroBitCount
            mask &= mask - 1
            if index < slots.count { finishSlot(index) }
        }
    }

    @inline(__always)
    private func finishSlot(_ index: Int) {
        guard slots[index].interrupted || slots[index].changed else { return }
        do {
            var slot = slots[index]
            if slot.contact > 0 && slot.interrupted {
                // Lifted (or replaced by a new tracking ID): ends where it was last seen; a lift
                // also takes the frame's last values, which still belong to it.
                var last = slot.committed
                if slot.pending.trackingID < 0 {
                    last = slot.pending
                    last.trackingID = slot.committed.trackingID
                }
                emit(slot.contact, .ended, last)
                slot.contact = 0
            }
            if slot.pending.trackingID >= 0 {
                if slot.contact == 0 {
                    slot.contact = takeContactNumber()
                    emit(slot.contact, .began, slot.pending)
                    slot.committed = slot.pending
                } else if slot.changed {
                    emit(slot.contact, .moved, slot.pending)
                    slot.committed = slot.pending
                }
            }
            slot.interrupted = false
            slot.changed = false
            slots[index] = slot
        }
    }

    // MARK: Protocol A

    private func feedContactReports(_ event: InputEvent) {
        guard event.type == EventType.abs else { return }
        switch event.code {
        case AbsCode.mtTrackingID:
            building.trackingID = event.value
            buildingHasTrackingID = true
        case AbsCode.mtPositionX, AbsCode.mtPositionY:
            _ = building.setMT(code: event.code, value: event.value)
            buildingHasPosition = true
        default:
            _ = building.setMT(code: event.code, value: event.value)
        }
    }

    private func closeContactReport() {
        defer {
            building = RawContact()
            buildingHasPosition = false
            buildingHasTrackingID = false
        }
        // An empty report (no position) says "no contacts"; a report with a negative id is a lift.
        guard buildingHasPosition, !(buildingHasTrackingID && building.trackingID < 0) else { return }
        guard reported.count < ContactMatcher.maximumContacts else {
            droppedContacts += 1
            warn(.tooManyContacts)
            return
        }
        if !buildingHasTrackingID { allReportedHaveIDs = false }
        reported.append(building)
    }

    private func finishContactReports() {
        if buildingHasPosition { closeContactReport() }
        matcher.match(reported, byTrackingID: allReportedHaveIDs && !reported.isEmpty)
        for change in matcher.changes {
            switch change.kind {
            case .ended: emit(change.contact, .ended, change.values)
            case .moved: emit(change.contact, .moved, change.values)
            case .began:
                let number = takeContactNumber()
                matcher.assignContact(number, toLiveAt: change.liveIndex)
                emit(number, .began, change.values)
            }
        }
        reported.removeAll(keepingCapacity: true)
        allReportedHaveIDs = true
    }

    // MARK: Single-touch

    private func feedSingleTouch(_ event: InputEvent) {
        if event.type == EventType.key {
            if event.code == KeyCode.btnTouch { touching = event.value != 0 }
            return
        }
        guard event.type == EventType.abs else { return }
        let changed: Bool
        switch event.code {
        case AbsCode.x: changed = single.pending.x != event.value; single.pending.x = event.value
        case AbsCode.y: changed = single.pending.y != event.value; single.pending.y = event.value
        case AbsCode.pressure: changed = single.pending.pressure != event.value; single.pending.pressure = event.value
        default: changed = false
        }
        if changed { single.changed = true }
    }

    private func finishSingleTouch() {
        if single.contact > 0 && !touching {
            emit(single.contact, .ended, single.pending)
            single.contact = 0
        } else if single.contact == 0 && touching {
            single.contact = takeContactNumber()
            emit(single.contact, .began, single.pending)
            single.committed = single.pending
        } else if single.contact > 0 && single.changed {
            emit(single.contact, .moved, single.pending)
            single.committed = single.pending
        }
        single.changed = false
    }

    // MARK: Frames

    private func finishFrame(at time: Timestamp) -> TouchFrameInput? {
        scratch.removeAll(keepingCapacity: true)
        switch touchProtocol {
        case .slots: finishSlots()
        case .contactReports: finishContactReports()
        case .singleTouch: finishSingleTouch()
        case .none: break
        }
        return makeFrame(at: time)
    }

    private func makeFrame(at time: Timestamp) -> TouchFrameInput? {
        guard !scratch.isEmpty else { return nil }
        return TouchFrameInput(device: device, time: time, contacts: scratch)
    }

    private func takeContactNumber() -> Int {
        defer { nextContact += 1 }
        return nextContact
    }

    /// Adds one contact's change to the frame being built. A point the mapping made
    /// non-finite is never reported as a place: such a `began` or `moved` is dropped (the
    /// contact begins at its next finite point), an `ended` or `cancelled` still ends the
    /// contact (the router keeps its last point); either way it is counted and warned about once.
    @inline(__always)
    private func emit(_ contact: Int, _ change: ContactChange, _ values: RawContact) {
        let mapper = self.mapper!
        let location = mapper.map(x: values.x, y: values.y)
        if !location.isFinite {
            droppedSamples += 1
            warn(.nonFiniteCoordinates(x: values.x, y: values.y))
            if change == .began || change == .moved { return }
        }
        let major = reportsMajor ? mapper.length(values.touchMajor) / 2 : nil
        let minor = reportsMinor ? mapper.length(values.touchMinor) / 2 : major
        scratch.append(ContactSample(contact: contact, change: change, location: location,
                                     pressure: reportsPressure ? Double(values.pressure) : nil,
                                     majorRadius: major, minorRadius: minor,
                                     toolType: reportsToolType ? Int(values.toolType) : nil))
    }

    // MARK: Warnings

    /// Records `warning` unless one of its kind was recorded before (each kind is said once
    /// per device; the counts go on in ``droppedContacts`` and ``droppedSamples``).
    private func warn(_ warning: Warning) {
        guard warnedKinds & warning.kindBit == 0 else { return }
        warnedKinds |= warning.kindBit
        pendingWarnings.append(warning)
    }

    /// Whether ``takeWarnings()`` has anything (cheap: checked after each event).
    public var hasWarnings: Bool { !pendingWarnings.isEmpty }

    /// The warnings recorded since the last call, oldest first.
    public func takeWarnings() -> [Warning] {
        defer { pendingWarnings.removeAll() }
        return pendingWarnings
    }
}

extension TouchDecoder {
    /// Input the decoder could not take as the device sent it: each kind is reported once per
    /// device (``TouchDecoder/takeWarnings()``), naming the limit, and counted.
    public enum Warning: Equatable, Sendable, CustomStringConvertible {
        /// A contact in a slot beyond ``TouchProtocol/maximumSlots`` (the device declares `declared`).
        case slotBeyondLimit(slot: Int, declared: Int)
        /// A protocol-A frame with more than ``ContactMatcher/maximumContacts`` contacts.
        case tooManyContacts
        /// The mapping of a device point was not finite (a broken calibration or axis range).
        case nonFiniteCoordinates(x: Int32, y: Int32)
        /// The device's `LIBINPUT_CALIBRATION_MATRIX` udev property is not 6 numbers within ±1000.
        case calibrationPropertyIgnored(String)

        var kindBit: UInt8 {
            switch self {
            case .slotBeyondLimit: 1
            case .tooManyContacts: 2
            case .nonFiniteCoordinates: 4
            case .calibrationPropertyIgnored: 8
            }
        }

        public var description: String {
            switch self {
            case .slotBeyondLimit(let slot, let declared):
                "a contact in slot \(slot) is ignored: evroute tracks at most \(TouchProtocol.maximumSlots) slots per device (this one declares \(declared)); further ones are ignored too and counted as contacts_dropped in status"
            case .tooManyContacts:
                "a frame reported more than \(ContactMatcher.maximumContacts) contacts (protocol A): evroute tracks at most \(ContactMatcher.maximumContacts) per frame and ignores the rest; further ones are counted as contacts_dropped in status"
            case .nonFiniteCoordinates(let x, let y):
                "device point (\(x), \(y)) maps to no finite display point (check the calibration and the axis ranges): its begin and moves are dropped, an end keeps the last point; further ones are counted as contacts_dropped in status"
            case .calibrationPropertyIgnored(let text):
                "udev property LIBINPUT_CALIBRATION_MATRIX=\"\(text)\" is not 6 numbers between -1000 and 1000; the identity matrix is used"
            }
        }
    }
}

/// One protocol-B slot (or the single-touch contact).
struct SlotState {
    /// The latest values, as events arrive.
    var pending = RawContact()
    /// The values last reported.
    var committed = RawContact()
    /// The decoder's number of the contact that is down here; 0 when none.
    var contact = 0
    /// A tracking-ID event changed the slot's ID this frame.
    var interrupted = false
    /// An axis value changed this frame.
    var changed = false

    mutating func reset() {
        pending.trackingID = -1
        contact = 0
        interrupted = false
        changed = false
    }
}
