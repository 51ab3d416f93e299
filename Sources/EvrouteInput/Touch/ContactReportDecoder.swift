/// Protocol A: each contact's values, closed by `SYN_MT_REPORT`, all contacts re-sent every
/// frame. At the frame's end `ContactMatcher` puts them into slots, which are then finished
/// like protocol B's: ended ones first, then the frame's contacts in report order.
final class ContactReportDecoder: ProtocolDecoder {
    private var matcher: ContactMatcher
    private var slots = ContactMatcher.Slots(repeating: SlotState())
    private var building = RawContact()
    private var buildingHasPosition = false
    private var buildingHasTrackingID = false

    init(fuzzX: Int32, fuzzY: Int32, frame: TouchFrameBuilder) {
        matcher = ContactMatcher(fuzz: fuzzX, fuzzY: fuzzY)
        super.init(frame: frame)
    }

    override var liveContactCount: Int { matcher.liveCount }

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
        guard !matcher.isFull else {
            frame.dropContact(.tooManyContacts)
            return
        }
        matcher.report(building, hasTrackingID: buildingHasTrackingID)
    }

    override func finish() {
        if buildingHasPosition { closeContactReport() }
        matcher.match(into: &slots)
        for index in 0..<matcher.changedCount { slots[matcher.changedSlot(index)].finish(into: frame) }
    }

    /// In the order the contacts were last reported.
    override func cancelAll() {
        for index in 0..<matcher.liveCount { slots[matcher.liveSlot(index)].cancel(into: frame) }
        matcher.removeAll()
        building = RawContact()
        buildingHasPosition = false
        buildingHasTrackingID = false
    }
}
