/// Protocol A: each contact's values, closed by `SYN_MT_REPORT`, all contacts re-sent every
/// frame. At the frame's end `ContactMatcher` puts them into slots, which are then finished
/// like protocol B's: ended ones first, then the frame's contacts in report order.
final class ContactReportDecoder: ProtocolDecoder {
    @exclusivity(unchecked) private var matcher: ContactMatcher
    @exclusivity(unchecked) private var slots = Array(repeating: SlotState(), count: ContactMatcher.slotCount)
    @exclusivity(unchecked) private var reported: [RawContact] = []
    @exclusivity(unchecked) private var building = RawContact()
    @exclusivity(unchecked) private var buildingHasPosition = false
    @exclusivity(unchecked) private var buildingHasTrackingID = false
    @exclusivity(unchecked) private var allReportedHaveIDs = true

    init(fuzzX: Int32, fuzzY: Int32, frame: TouchFrameBuilder) {
        matcher = ContactMatcher(fuzz: fuzzX, fuzzY: fuzzY)
        reported.reserveCapacity(ContactMatcher.maximumContacts)
        super.init(frame: frame)
    }

    override var liveContactCount: Int { matcher.live.count }

    override func feed(_ event: InputEvent) {
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

    override func closeContactReport() {
        defer {
            building = RawContact()
            buildingHasPosition = false
            buildingHasTrackingID = false
        }
        // An empty report (no position) says "no contacts"; a report with a negative id is a lift.
        guard buildingHasPosition, !(buildingHasTrackingID && building.trackingID < 0) else { return }
        guard reported.count < ContactMatcher.maximumContacts else {
            frame.dropContact(.tooManyContacts)
            return
        }
        if !buildingHasTrackingID { allReportedHaveIDs = false }
        reported.append(building)
    }

    override func finish() {
        if buildingHasPosition { closeContactReport() }
        matcher.match(reported, byTrackingID: allReportedHaveIDs && !reported.isEmpty, into: &slots)
        for slot in matcher.lifted { slots[slot].finish(into: frame) }
        for live in matcher.live { slots[live.slot].finish(into: frame) }
        reported.removeAll(keepingCapacity: true)
        allReportedHaveIDs = true
    }

    /// In the order the contacts were last reported.
    override func cancelAll() {
        for live in matcher.live { slots[live.slot].cancel(into: frame) }
        matcher.removeAll()
        reported.removeAll(keepingCapacity: true)
        building = RawContact()
        buildingHasPosition = false
        buildingHasTrackingID = false
        allReportedHaveIDs = true
    }
}
