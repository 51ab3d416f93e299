import EvrouteCore
import EvrouteSystem
@testable import EvrouteInput
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite struct LiveDeviceListingTests {
    let rules = [
        DeviceRuleSpec(name: "panel", match: DeviceMatch(kind: .touchscreen, name: "ELAN*")),
        DeviceRuleSpec(name: "keys", match: DeviceMatch(kind: .keyboard)),
    ]

    let touchscreen = UdevInputDevice(
        syspath: "/sys/devices/platform/i2c/input/input7/event3", sysname: "event3", devnode: "/dev/input/event3",
        properties: ["ID_INPUT": "1", "ID_INPUT_TOUCHSCREEN": "1"], name: "ELAN Touchscreen",
        vendor: 0x04f3, product: 0x2a1c)
    let mouse = UdevInputDevice(
        syspath: "/sys/devices/usb/input/input9/event5", sysname: "event5", devnode: "/dev/input/event5",
        properties: ["ID_INPUT": "1", "ID_INPUT_MOUSE": "1"], name: "USB Mouse", vendor: 0x046d, product: 0xc077)

    @Test func openedDevicesGetKindIdsAndRule() {
        let rows = DeviceListing.rows(devices: [touchscreen, mouse], rules: rules) { device in
            .success(DeviceDescription(name: device.name!, vendor: device.vendor!, product: device.product!, path: device.devnode))
        }
        #expect(rows == [
            DeviceListingRow(node: "/dev/input/event3", name: "ELAN Touchscreen", kind: .touchscreen,
                             vendor: 0x04f3, product: 0x2a1c, rule: "panel"),
            DeviceListingRow(node: "/dev/input/event5", name: "USB Mouse", kind: .pointer,
                             vendor: 0x046d, product: 0xc077, rule: nil),
        ])
        #expect(rows.map(\.vendorProduct) == ["04f3:2a1c", "046d:c077"])
        #expect(rows.map(\.ruleColumn) == ["panel", "-"])
        #expect(rows.map(\.kindColumn) == ["touchscreen", "pointer"])
    }

    @Test func unopenableDevicesFallBackToUdevData() {
        let denied = SystemError(errno: EACCES, call: "open", path: "/dev/input/event3")
        let rows = DeviceListing.rows(devices: [touchscreen], rules: rules) { _ in .failure(denied) }
        #expect(rows.count == 1)
        #expect(rows[0].rule == "panel")
        #expect(rows[0].kind == .touchscreen)
        #expect(rows[0].vendorProduct == "04f3:2a1c")
        #expect(rows[0].problem?.contains("EACCES") == true)

        let unclassified = UdevInputDevice(syspath: "/sys/x/event7", sysname: "event7", devnode: "/dev/input/event7")
        let bare = DeviceListing.rows(devices: [unclassified], rules: rules) { _ in .failure(denied) }
        #expect(bare[0].kind == nil && bare[0].rule == nil && bare[0].vendorProduct == "-" && bare[0].kindColumn == "-")
    }

    @Test func listingThisMachineDoesNotThrow() throws {
        let rows = try DeviceListing.rows(rules: rules)
        #expect(rows.allSatisfy { $0.node.hasPrefix("/dev/input/event") })
    }
}
