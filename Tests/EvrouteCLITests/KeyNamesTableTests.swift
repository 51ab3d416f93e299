import EvrouteCore
import EvrouteInput
import Testing
import EvrouteTestSupport

/// The core's copy of libevdev's key names (data, so the pure core can check `key:NAME`) is the
/// linked libevdev's table.
@Suite("Key names")
struct KeyNamesTableTests {
    @Test func theCoreTableIsLibevdevs() {
        var named: [String] = []
        for code in 0...0x2ff {
            if let name = EventCodeNames.codeName(type: EventType.key, code: UInt16(code)) { named.append(name) }
        }
        #expect(KeyNames.ordered == named)
        for (alias, canonical) in KeyNames.aliases {
            #expect(EventCodeNames.code(named: alias, type: EventType.key) == EventCodeNames.code(named: canonical, type: EventType.key))
        }
    }
}
