import EvrouteCore
import EvrouteSystem
@testable import EvrouteInput
import Testing
import EvrouteChecks
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
        expectEqual(rows, [
            DeviceListingRow(node: "/dev/input/event3", name: "ELAN Touchscreen", kind: .touchscreen,
                             vendor: 0x04f3, product: 0x2a1c, rule: "panel"),
            DeviceListingRow(node: "/dev/input/event5", name: "USB Mouse", kind: .pointer,
                             vendor: 0x046d, product: 0xc077, rule: nil),
        ])
        expectEqual(rows.map(\.vendorProduct), ["04f3:2a1c", "046d:c077"])
        expectEqual(rows.map(\.ruleColumn), ["panel", "-"])
        expectEqual(rows.map(\.kindColumn), ["touchscreen", "pointer"])
    }

    @Test func unopenableDevicesFallBackToUdevData() {
        let denied = SystemError(errno: EACCES, call: "open", path: "/dev/input/event3")
        let rows = DeviceListing.rows(devices: [touchscreen], rules: rules) { _ in .failure(denied) }
        expectEqual(rows.count, 1)
        expectEqual(rows[0].rule, "panel")
        expectEqual(rows[0].kind, .touchscreen)
        expectEqual(rows[0].vendorProduct, "04f3:2a1c")
        expectEqual(rows[0].problem?.contains("EACCES"), true)

        let unclassified = UdevInputDevice(syspath: "/sys/x/event7", sysname: "event7", devnode: "/dev/input/event7")
        let bare = DeviceListing.rows(devices: [unclassified], rules: rules) { _ in .failure(denied) }
        expect(bare[0].kind == nil && bare[0].rule == nil && bare[0].vendorProduct == "-" && bare[0].kindColumn == "-")
    }

    @Test func listingThisMachineDoesNotThrow() throws {
        let rows = try DeviceListing.rows(rules: rules)
        expect(rows.allSatisfy { $0.node.hasPrefix("/dev/input/event") })
    }

    /// A name is no proof of being evroute's: a USB keyboard that calls itself "evroute
    /// keyboard", or a panel "… (evroute)", is matched by the rules like any device; only a
    /// virtual (uinput) device so named is taken for one of evroute's in a listing, and this
    /// process's own are known by their sysfs paths.
    @Test func aDeviceNamedLikeEvroutesIsOrdinaryUnlessItIsEvroutes() {
        let usbKeyboard = UdevInputDevice(
            syspath: "/sys/devices/pci0000:00/0000:00:14.0/usb1/1-2/1-2:1.0/0003:1234:5678.0001/input/input12/event12", sysname: "event12",
            devnode: "/dev/input/event12", properties: ["ID_INPUT": "1", "ID_INPUT_KEYBOARD": "1"], name: "evroute keyboard",
            vendor: 0x1234, product: 0x5678)
        let usbPanel = UdevInputDevice(
            syspath: "/sys/devices/pci0000:00/usb1/1-3/input/input13/event13", sysname: "event13", devnode: "/dev/input/event13",
            properties: ["ID_INPUT": "1", "ID_INPUT_TOUCHSCREEN": "1"], name: "ELAN Touchscreen (evroute)", vendor: 0x04f3, product: 0x2a1c)
        let virtual = UdevInputDevice(
            syspath: "/sys/devices/virtual/input/input14/event14", sysname: "event14", devnode: "/dev/input/event14",
            properties: ["ID_INPUT": "1", "ID_INPUT_TOUCHSCREEN": "1"], name: "ELAN Touchscreen (evroute)", vendor: 0x04f3, product: 0x2a1c)
        let rows = DeviceListing.rows(devices: [usbKeyboard, usbPanel, virtual], rules: rules) { device in
            .success(DeviceDescription(name: device.name!, vendor: device.vendor!, product: device.product!, path: device.devnode))
        }
        expectEqual(rows.map(\.rule), ["keys", "panel", nil])
        expectEqual(rows.map(\.isEvroutes), [false, false, true])
        expectEqual(rows.map(\.ruleColumn), ["keys", "panel", "(evroute's own)"])

        // This process's own: by the path recorded when it was made, whatever its name.
        expect(!OwnVirtualDevices.contains(syspath: "/sys/devices/virtual/input/input99/event20"))
        OwnVirtualDevices.add("/sys/devices/virtual/input/input99")
        defer { OwnVirtualDevices.remove("/sys/devices/virtual/input/input99") }
        expect(OwnVirtualDevices.contains(syspath: "/sys/devices/virtual/input/input99/event20"))
        expect(OwnVirtualDevices.contains(syspath: "/sys/devices/virtual/input/input99"))
        expect(!OwnVirtualDevices.contains(syspath: "/sys/devices/virtual/input/input9/event20"))
        let own = UdevInputDevice(syspath: "/sys/devices/virtual/input/input99/event20", sysname: "event20", devnode: "/dev/input/event20",
                                  properties: ["ID_INPUT": "1", "ID_INPUT_TOUCHSCREEN": "1"], name: "ELAN Touchscreen", vendor: 0x04f3, product: 0x2a1c)
        let ownRows = DeviceListing.rows(devices: [own], rules: rules) { device in
            .success(DeviceDescription(name: device.name!, vendor: device.vendor!, product: device.product!, path: device.devnode))
        }
        expect(ownRows.first?.isEvroutes == true && ownRows.first?.rule == nil)
    }
}
