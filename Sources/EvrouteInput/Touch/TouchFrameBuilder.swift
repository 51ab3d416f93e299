import EvrouteCore

/// What a device's protocol decoders share: the frame being built (its contacts in display
/// coordinates, in one reused buffer), the contact numbers, and the count and warnings of input
/// that could not be taken. Confined to the event loop like the ``TouchDecoder`` that owns it, so
/// the private state it touches per event (the frame's contacts, the warnings flag) skips dynamic
/// exclusivity checks (docs/performance-design.md has what it is worth).
final class TouchFrameBuilder {
    let device: DeviceID
    /// Device → display mapping (never used for a device without touch axes).
    let mapper: CoordinateMapper
    /// `mapper.length(1)`: display units per device unit of a contact's size.
    private let lengthScale: Double
    private let reportsPressure: Bool
    private let reportsMajor: Bool
    private let reportsMinor: Bool
    private let reportsToolType: Bool
    /// The frame being built. Until a consumer gives its frames' buffers back (``recycle(_:)``),
    /// a returned frame shares it until the next one starts.
    @exclusivity(unchecked) private var contacts: [ContactSample] = []
    /// The buffer the last frame's consumer gave back: the next frame is built in it, and a
    /// finished frame takes its own buffer whole, shared with nothing (a filter that drops or
    /// cancels a contact changes it in place instead of copying it). Two buffers take turns.
    @exclusivity(unchecked) private var spare: [ContactSample] = []
    private var recycling = false
    private var nextContact = 1
    /// Contacts the decoder could not track (beyond the slot or per-frame limits).
    private(set) var droppedContacts = 0
    /// Samples dropped because their point was not finite.
    private(set) var droppedSamples = 0
    private var pendingWarnings: [TouchDecoder.Warning] = []
    private var warnedKinds: UInt8 = 0

    init(device: DeviceID, mapper: CoordinateMapper, reportsPressure: Bool, reportsMajor: Bool, reportsMinor: Bool,
         reportsToolType: Bool) {
        self.device = device
        self.mapper = mapper
        lengthScale = mapper.length(1)
        self.reportsPressure = reportsPressure
        self.reportsMajor = reportsMajor
        self.reportsMinor = reportsMinor
        self.reportsToolType = reportsToolType
        contacts.reserveCapacity(16)
    }

    /// Starts a frame: the buffer is emptied (copied first only if a caller kept the last frame).
    /// A frame holds a few contacts: removed from the end one by one, without the general
    /// range replacement `removeAll(keepingCapacity:)` goes through.
    @inline(__always)
    func start() {
        while contacts.popLast() != nil {}
    }

    /// The frame built since ``start()``; nil when it changed no contact.
    @inline(__always)
    func finish(at time: Timestamp) -> TouchFrameInput? {
        guard !contacts.isEmpty else { return nil }
        guard recycling else { return TouchFrameInput(device: device, time: time, contacts: contacts) }
        let built = contacts
        contacts = spare
        spare = []
        return TouchFrameInput(device: device, time: time, contacts: built)
    }

    /// A finished frame's contact buffer back from its consumer, done with it: the next frame
    /// is built in it (``finish(at:)``).
    @inline(__always)
    func recycle(_ buffer: consuming [ContactSample]) {
        recycling = true
        spare = buffer
    }

    /// The next contact number: from 1, never reused.
    @inline(__always)
    func takeContactNumber() -> Int {
        defer { nextContact += 1 }
        return nextContact
    }

    /// Adds one contact's change to the frame. A point the mapping made non-finite is never
    /// reported as a place: such a `began` or `moved` is dropped (the contact begins at its next
    /// finite point), an `ended` or `cancelled` still ends the contact (the router keeps its last
    /// point); either way it is counted and warned about once.
    @inline(__always)
    func add(_ contact: Int, _ change: ContactChange, _ values: RawContact) {
        let location = mapper.map(x: values.x, y: values.y)
        if !location.isFinite {
            droppedSamples += 1
            warn(.nonFiniteCoordinates(x: values.x, y: values.y))
            if change == .began || change == .moved { return }
        }
        let major = reportsMajor ? Double(values.touchMajor) * lengthScale / 2 : nil
        let minor = reportsMinor ? Double(values.touchMinor) * lengthScale / 2 : major
        contacts.append(ContactSample(contact: contact, change: change, location: location,
                                      pressure: reportsPressure ? Double(values.pressure) : nil,
                                      majorRadius: major, minorRadius: minor,
                                      toolType: reportsToolType ? Int(values.toolType) : nil))
    }

    /// A contact the decoder's limits leave out: counted, and `warning` said once. (Out of
    /// line: a decoder's loop over its events never holds an access to the count.)
    @inline(never)
    func dropContact(_ warning: TouchDecoder.Warning) {
        droppedContacts += 1
        warn(warning)
    }

    /// Records `warning` unless one of its kind was recorded before (each kind is said once
    /// per device; the counts go on in ``droppedContacts`` and ``droppedSamples``).
    func warn(_ warning: TouchDecoder.Warning) {
        guard warnedKinds & warning.kindBit == 0 else { return }
        warnedKinds |= warning.kindBit
        tell(warning)
    }

    /// Records `warning` however often its kind came before (the caller bounds how often).
    func tell(_ warning: TouchDecoder.Warning) {
        pendingWarnings.append(warning)
        warningsWaiting = true
    }

    /// Whether warnings wait to be taken (a stored flag: it is checked after every event).
    var hasWarnings: Bool { warningsWaiting }
    @exclusivity(unchecked) private var warningsWaiting = false

    func takeWarnings() -> [TouchDecoder.Warning] {
        defer { pendingWarnings.removeAll(); warningsWaiting = false }
        return pendingWarnings
    }
}
