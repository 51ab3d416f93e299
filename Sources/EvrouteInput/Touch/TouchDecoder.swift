import EvrouteCore

/// Turns one device's raw events into touch frames: on each `SYN_REPORT`, the contacts that
/// began, moved, ended or were cancelled, in display coordinates.
///
/// This class handles `EV_SYN` (frames, drops, resyncs); a decoder per protocol (a
/// `ProtocolDecoder` subclass, see `TouchProtocol.of`) takes the other events: protocol B
/// (`SlotDecoder`), protocol A (`ContactReportDecoder`: anonymous contacts put into slots frame by
/// frame by `ContactMatcher`, as mtdev does) and single-touch (`SingleTouchDecoder`: one slot).
/// All three report through `SlotState.finish(into:)`. Contact numbers (`ContactSample.contact`) are the decoder's own,
/// counting up from 1: a contact keeps its number while down and numbers are never reused, even
/// when the device reuses a tracking ID.
///
/// `SYN_DROPPED`: in a raw stream (a recording), events up to the next `SYN_REPORT` are
/// discarded and that report cancels every live contact — unless `resync(_:at:)` is given the
/// re-read device state first. In a libevdev stream (``DeviceDescription/resyncsAfterDrop``), the
/// events up to that report are libevdev's resync and are applied as one: contacts whose tracking
/// ID changed or vanished during the drop are cancelled (their end was lost), contacts that stayed
/// down keep their identity and move, new ones begin — as with `resync(_:at:)`.
///
/// In steady state `feed` allocates nothing: a frame's contacts share one buffer (copied only
/// when a caller keeps a frame past the next one). Its state is confined to the thread that feeds
/// it (the event loop).
public final class TouchDecoder {
    public let device: DeviceID
    public let touchProtocol: TouchProtocol
    /// Device → display mapping of the axes the protocol uses; nil for non-touch devices.
    public let mapper: CoordinateMapper?
    /// Whether the device speaks a touch protocol (``mapper`` is set): checked per event.
    private let decodes: Bool
    /// The stream follows `SYN_DROPPED` with a complete resync (live devices via libevdev).
    private let appliesResync: Bool
    /// Between `SYN_DROPPED` and the next `SYN_REPORT`.
    private var dropping = false
    /// `SYN_DROPPED`s seen (kernel buffer overruns; `evroute_syn_dropped_total`).
    public private(set) var synDropped = 0
    /// Dropping in a raw stream: events are discarded.
    private var discarding = false
    /// The frame, contact numbers, counts and warnings the protocol's decoder writes to.
    private let frame: TouchFrameBuilder
    /// The protocol's decoder (a subclass; the base class for a device without touch axes).
    private let decoder: ProtocolDecoder

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
        let (xCode, yCode, pressureCode): (UInt16, UInt16, UInt16)
        let multiTouch: Bool
        switch touchProtocol {
        case .slots, .contactReports: (xCode, yCode, pressureCode, multiTouch) = (AbsCode.mtPositionX, AbsCode.mtPositionY, AbsCode.mtPressure, true)
        case .singleTouch, .none: (xCode, yCode, pressureCode, multiTouch) = (AbsCode.x, AbsCode.y, AbsCode.pressure, false)
        }
        let fallback = AbsInfo(minimum: 0, maximum: 0)
        let mapper = CoordinateMapper(xAxis: description.absinfo[xCode] ?? fallback, yAxis: description.absinfo[yCode] ?? fallback,
                                      displaySize: displaySize, rotation: rotation, calibration: matrix)
        decodes = touchProtocol != .none
        self.mapper = decodes ? mapper : nil
        frame = TouchFrameBuilder(device: device, mapper: mapper,
                                  reportsPressure: decodes && abs.contains(pressureCode),
                                  reportsMajor: multiTouch && abs.contains(AbsCode.mtTouchMajor),
                                  reportsMinor: multiTouch && abs.contains(AbsCode.mtTouchMinor),
                                  reportsToolType: multiTouch && abs.contains(AbsCode.mtToolType))
        switch touchProtocol {
        case .slots(let count):
            decoder = SlotDecoder(slots: count, declaredSlots: Int(description.absinfo[AbsCode.mtSlot]?.maximum ?? 0) + 1,
                                  initialSlot: initialSlot, frame: frame)
        case .contactReports:
            decoder = ContactReportDecoder(fuzzX: description.absinfo[AbsCode.mtPositionX]?.fuzz ?? 0,
                                           fuzzY: description.absinfo[AbsCode.mtPositionY]?.fuzz ?? 0, frame: frame)
        case .singleTouch:
            decoder = SingleTouchDecoder(frame: frame)
        case .none:
            decoder = ProtocolDecoder(frame: frame)
        }
        if let badProperty { frame.warn(.calibrationPropertyIgnored(badProperty)) }
    }

    /// How many contacts are down.
    public var liveContactCount: Int { decoder.liveContactCount }

    /// Contacts the decoder could not track (beyond the slot or per-frame limits).
    public var droppedContacts: Int { frame.droppedContacts }
    /// Samples dropped because their point was not finite.
    public var droppedSamples: Int { frame.droppedSamples }

    /// Feeds one event; returns a frame on a `SYN_REPORT` that changed any contact.
    public func feed(_ event: InputEvent) -> TouchFrameInput? {
        decode(event)
    }

    /// ``feed(_:)`` for an `EV_SYN` event, and whether warnings wait to be told
    /// (``hasWarnings``; they come up while a frame is read): a frame's end in one call.
    public func feedFrameEnd(_ event: InputEvent) -> (frame: TouchFrameInput?, warnings: Bool) {
        let made = decode(event)
        return (made, frame.hasWarnings)
    }

    @inline(__always)
    private func decode(_ event: InputEvent) -> TouchFrameInput? {
        guard decodes else { return nil }
        if event.type == EventType.syn {
            // A frame's end, most of the calls here: finished in this call; the rest of
            // `EV_SYN` (a drop, protocol A's reports) out of line.
            if event.code == SynCode.report && !dropping {
                frame.start()
                decoder.finish()
                return frame.finish(at: event.time)
            }
            return synchronize(event)
        }
        if !discarding { decoder.feed(event) }
        return nil
    }

    /// Takes the `EV_ABS` events of `events` from `start` to the first of another type (none of
    /// them ends a frame); returns where they end. The same as ``feed(_:)`` for each, in one call:
    /// a frame's axis events are most of its events.
    public func feedAxes(_ events: InputBatch, from start: Int) -> Int {
        guard decodes && !discarding else {
            var i = start
            while i < events.count {
                guard events[i].type == EventType.abs else { break }
                i += 1
            }
            return i
        }
        return decoder.feedAxes(events, from: start)
    }

    /// `EV_SYN`, apart from the per-event path.
    @inline(never)
    private func synchronize(_ event: InputEvent) -> TouchFrameInput? {
        switch event.code {
        case SynCode.report:
            if dropping {
                dropping = false
                discarding = false
                let resynced = appliesResync ? resync(decoder.resyncedState(), at: event.time) : cancelAll(at: event.time)
                dropEnded(at: event.time, cancelled: resynced?.contacts.reduce(0) { $0 + ($1.change == .cancelled ? 1 : 0) } ?? 0)
                return resynced
            }
            frame.start()
            decoder.finish()
            return frame.finish(at: event.time)
        case SynCode.mtReport:
            if !dropping { decoder.closeContactReport() }
        case SynCode.dropped:
            dropping = true
            synDropped += 1
            discarding = !appliesResync
        default:
            break
        }
        return nil
    }

    /// Gives a frame this decoder returned back once its consumer is done with it (routed,
    /// nothing kept): the next frame is built in its buffer, and a frame then shares its
    /// contacts with nothing until it is given back (it can be changed in place).
    @inline(__always)
    public func recycle(_ done: consuming TouchFrameInput) {
        frame.recycle(done.contacts)
    }

    /// A frame cancelling every live contact (unplug, end of a replay); nil when none is down.
    /// Afterwards the decoder waits for new contacts: values for contacts it cancelled are ignored.
    public func cancelAll(at time: Timestamp) -> TouchFrameInput? {
        frame.start()
        decoder.cancelAll()
        return frame.finish(at: time)
    }

    /// Brings the decoder to a device state read after `SYN_DROPPED` (or when a device is opened
    /// with contacts already down), and ends a pending drop. Contacts whose tracking ID changed or
    /// vanished are cancelled, new ones begin, ones that stayed move if their values changed.
    /// Protocol A has no state to re-read: every live contact is cancelled.
    public func resync(_ snapshot: TouchSnapshot, at time: Timestamp) -> TouchFrameInput? {
        dropping = false
        discarding = false
        frame.start()
        decoder.resync(snapshot)
        return frame.finish(at: time)
    }

    // MARK: Warnings

    /// How often a device's `SYN_DROPPED`s are told at most (``Warning/eventsDropped(total:folded:recovery:cancelled:)``):
    /// once per 10 s of event time; the drops in between are folded into the next one told.
    public static let dropWarningInterval = Timestamp.Duration.seconds(10)
    /// When a drop was last told (nil: never), and the drops since not told.
    private var dropToldAt: Timestamp?
    private var dropsFolded = 0

    /// A drop ended (the `SYN_REPORT` after `SYN_DROPPED`), `cancelled` touches with it: told
    /// as a warning unless one was told less than ``dropWarningInterval`` before.
    private func dropEnded(at time: Timestamp, cancelled: Int) {
        if let told = dropToldAt, time - told < Self.dropWarningInterval {
            dropsFolded += 1
            return
        }
        let recovery: Warning.DropRecovery = !appliesResync ? .discarded : touchProtocol == .contactReports ? .cancelledAll : .resynced
        frame.tell(.eventsDropped(total: synDropped, folded: dropsFolded, recovery: recovery, cancelled: cancelled))
        dropToldAt = time
        dropsFolded = 0
    }

    /// Whether ``takeWarnings()`` has anything (cheap: checked after each event).
    public var hasWarnings: Bool { frame.hasWarnings }

    /// The warnings recorded since the last call, oldest first. Each kind is said once per
    /// device; the counts go on in ``droppedContacts`` and ``droppedSamples``.
    public func takeWarnings() -> [Warning] { frame.takeWarnings() }
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
        /// The kernel dropped the device's events (`SYN_DROPPED`: its buffer for evroute
        /// overflowed), `total` times so far, `folded` of them since the last one told (said at
        /// most once per ``TouchDecoder/dropWarningInterval``, not once per device); how the
        /// decoder recovered, and how many touches that cancelled.
        case eventsDropped(total: Int, folded: Int, recovery: DropRecovery, cancelled: Int)

        /// How the decoder recovers from `SYN_DROPPED`.
        public enum DropRecovery: Equatable, Sendable {
            /// From the device's state re-read through libevdev (a live device): touches still
            /// down go on, those that lifted or changed meanwhile are cancelled, new ones begin.
            case resynced
            /// Protocol A keeps no state to re-read: every touch down is cancelled.
            case cancelledAll
            /// A raw stream (a recording): the events up to the next `SYN_REPORT` are discarded
            /// and every touch down is cancelled.
            case discarded
        }

        var kindBit: UInt8 {
            switch self {
            case .slotBeyondLimit: 1
            case .tooManyContacts: 2
            case .nonFiniteCoordinates: 4
            case .calibrationPropertyIgnored: 8
            case .eventsDropped: 16
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
            case .eventsDropped(let total, let folded, let recovery, let cancelled):
                "the kernel dropped its events (SYN_DROPPED: evroute read too slowly and the kernel's buffer overflowed), "
                    + (total == 1 ? "1 time so far" : "\(total) times so far")
                    + (folded > 0 ? " (\(folded) of them folded into this line: one line per \(TouchDecoder.dropWarningInterval.microseconds / 1_000_000) s)" : "") + "; "
                    + recovery.said(cancelled: cancelled)
            }
        }
    }
}

extension TouchDecoder.Warning.DropRecovery {
    /// What evroute did, for ``TouchDecoder/Warning/eventsDropped(total:folded:recovery:cancelled:)``.
    func said(cancelled: Int) -> String {
        let touches = cancelled == 1 ? "1 touch" : "\(cancelled) touches"
        switch self {
        case .resynced:
            return "resynced from the device's state: touches still down go on, \(touches) cancelled (lifted or replaced while events were lost)"
        case .cancelledAll:
            return "a protocol-A device has no state to resync from: every touch down was cancelled (\(touches))"
        case .discarded:
            return "the events up to the next SYN_REPORT were discarded and every touch down was cancelled (\(touches))"
        }
    }
}
