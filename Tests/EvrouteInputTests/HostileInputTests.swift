import EvrouteCore
@testable import EvrouteInput
import Testing

private let display = Size(width: 1000, height: 1000)

/// Device input at the edges of what the kernel can send (issue 16): nothing traps, nothing
/// is lost without a word.
@Suite("Hostile device input")
struct HostileInputTests {
    @Test("Protocol A contacts jumping across the whole Int32 range match without overflow")
    func protocolAExtremeJump() {
        let decoder = TouchDecoder(device: DeviceID(2), description: Devices.protocolA(), displaySize: display)
        var s = EventScript()
        func contact(_ x: Int32, _ y: Int32) { s.position(x, y); s.syn(SynCode.mtReport) }
        contact(.max, .max); s.syn()
        contact(.min, .min); s.syn()                       // one contact jumps 2^32 - 1 on both axes
        contact(.max, .max); contact(.min, .min); s.syn()  // a second lands where the first was
        s.syn(SynCode.mtReport); s.syn()                   // both lift
        let frames = decode(decoder, s.events)
        #expect(frames.map { $0.contacts.map { "\($0.contact):\($0.change)" } } == [
            ["1:began"], ["1:moved"], ["2:began"], ["2:ended", "1:ended"],
        ])
        #expect(lifecycle(frames).problems.isEmpty)
    }

    @Test("The nearest-contact distance saturates instead of overflowing")
    func distanceSaturates() {
        #expect(ContactMatcher.squaredDistance(x0: .max, y0: .max, x1: .min, y1: .min) == .max)
        #expect(ContactMatcher.squaredDistance(x0: .max, y0: 0, x1: .min, y1: 0) == 18_446_744_065_119_617_025)
        #expect(ContactMatcher.squaredDistance(x0: 3, y0: 4, x1: 0, y1: 0) == 25)
    }
}
