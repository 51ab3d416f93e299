import Testing
import EvrouteChecks
@testable import EvrouteCore

/// Held keys on their own: a device's keys leave together, in key-code order.
@Suite("Key state")
struct KeyStateTests {
    @Test func releaseOfADeviceTakesItsKeysInCodeOrderAndLeavesTheOthers() throws {
        let l = try makeLayout([screen("s", region("root", 0, 0, 1000, 1000))])
        var s = KeyState()
        func hold(_ device: Int, _ code: Int, _ name: String) {
            s.held[Router.KeyKey(device: DeviceID(device), code: code)] =
                Router.HeldKey(name: name, start: nil, region: nil, layout: l, display: 0)
        }
        hold(1, 30, "A"); hold(1, 2, "1"); hold(2, 16, "Q"); hold(1, 57, "SPACE")
        expectEqual(s.devices, [DeviceID(1), DeviceID(2)])
        let gone = s.release(ofDevice: DeviceID(1))
        expectEqual(gone.map(\.key.code), [2, 30, 57])
        expectEqual(gone.map(\.held.name), ["1", "A", "SPACE"])
        expect(s.held.count == 1 && s.devices == [DeviceID(2)])
        expect(s.release(ofDevice: DeviceID(1)).isEmpty)
    }
}
