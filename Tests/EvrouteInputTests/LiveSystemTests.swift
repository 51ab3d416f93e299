import EvrouteCore
@testable import EvrouteInput
import EvrouteSystem
import Testing
import EvrouteChecks
#if canImport(Glibc)
import Glibc
import EvrouteTestSupport
#endif

/// What this machine allows of the live layer: no /dev/input, no udevd, but libudev,
/// netlink monitors and fd-less libevdev devices work.
@Suite struct LiveSystemTests {
    /// A regular file with some bytes, removed at the end of the test.
    func withTemporaryFile(_ body: (String) throws -> Void) throws {
        var template = Array("\(testRoot)/evroute-live-XXXXXX".utf8CString)
        let fd = FileDescriptor(rawValue: template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) })
        try #require(fd.isValid)
        let path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        defer { unlink(path) }
        try SystemCall.writeAll(fd, "not an evdev device\n", path: path)
        try SystemCall.close(fd, path: path)
        try body(path)
    }

    @Test func openingAMissingNodeNamesThePathAndENOENT() {
        let path = "/dev/input/event-does-not-exist"
        #expect {
            _ = try EvdevDevice(path: path)
        } throws: { error in
            guard let error = error as? SystemError else { return false }
            return error.errno == ENOENT && error.path == path && error.call == "open"
                && error.description.contains(path) && error.description.contains("ENOENT")
                && error.description.contains("No such file or directory")
        }
    }

    @Test func aRegularFileIsNotAnEvdevDevice() throws {
        try withTemporaryFile { path in
            // libevdev's capability ioctls fail on a regular file.
            #expect {
                _ = try EvdevDevice(path: path, monotonicClock: false)
            } throws: { error in
                guard let error = error as? SystemError else { return false }
                return error.errno == ENOTTY && error.path == path && error.call == "libevdev_new_from_fd"
                    && error.description.contains(path) && error.description.contains("ENOTTY")
            }
            // With the clock set first, EVIOCSCLOCKID is the call that fails.
            #expect {
                _ = try EvdevDevice(path: path)
            } throws: { error in
                guard let error = error as? SystemError else { return false }
                return error.errno == ENOTTY && error.path == path && error.call == "ioctl(EVIOCSCLOCKID)"
            }
        }
    }

    @Test func failedOpensDoNotLeakDescriptors() throws {
        try withTemporaryFile { path in
            // Other tests run in parallel and open files too: allow some noise, catch a leak per open.
            let before = openDescriptorCount()
            for _ in 0..<200 { _ = try? EvdevDevice(path: path) }
            expect(openDescriptorCount() - before < 50)
        }
    }

    func openDescriptorCount() -> Int {
        guard let dir = opendir("/proc/self/fd") else { return -1 }
        defer { closedir(dir) }
        var count = 0
        while readdir(dir) != nil { count += 1 }
        return count
    }

    @Test func grabBusyErrorExplainsItself() {
        let error = SystemError(errno: EBUSY, call: "ioctl(EVIOCGRAB)", path: "/dev/input/event4")
        expect(error.description.hasPrefix("ioctl(EVIOCGRAB) /dev/input/event4: Device or resource busy (EBUSY)"))
        expect(error.description.contains("grabbed"))
        expect(SystemError(errno: ENODEV, call: "libevdev_next_event").isDeviceGone)
    }

    @Test func fdLessLibevdevDescriptionHasAxesAndRanges() {
        let builder = EvdevDescriptionBuilder(name: "Test Panel")
        builder.setID(bus: 0x18, vendor: 0x04f3, product: 0x2a1c, version: 0x100)
        builder.enableProperty(0x01)                                                        // INPUT_PROP_DIRECT
        builder.enable(type: 0x01, code: 0x14a)                                             // EV_KEY BTN_TOUCH
        builder.enableAbsolute(0x2f, AbsInfo(minimum: 0, maximum: 9))                       // ABS_MT_SLOT
        builder.enableAbsolute(0x35, AbsInfo(minimum: 0, maximum: 4095, fuzz: 4, resolution: 12)) // ABS_MT_POSITION_X
        builder.enableAbsolute(0x36, AbsInfo(minimum: -10, maximum: 2303, flat: 2))         // ABS_MT_POSITION_Y
        builder.enableAbsolute(0x39, AbsInfo(minimum: 0, maximum: 65535))                   // ABS_MT_TRACKING_ID
        let d = builder.build(path: "/dev/input/event9")

        expectEqual(d.name, "Test Panel")
        expect((d.bus, d.vendor, d.product, d.version) == (0x18, 0x04f3, 0x2a1c, 0x100))
        expectEqual(d.properties, [0x01])
        expectEqual(d.path, "/dev/input/event9")
        expect(d.udevProperties.isEmpty)
        expect(d.has(0x01, 0x14a))
        expectEqual(d.events[0x03], [0x2f, 0x35, 0x36, 0x39])
        expectEqual(d.events[0x00]?.contains(0x00), true, "libevdev reports EV_SYN/SYN_REPORT")
        expectEqual(d.absinfo[0x35], AbsInfo(minimum: 0, maximum: 4095, fuzz: 4, resolution: 12))
        expectEqual(d.absinfo[0x36], AbsInfo(minimum: -10, maximum: 2303, flat: 2))
        expectEqual(d.absinfo[0x2f]?.maximum, 9)
        expectEqual(Set(d.absinfo.keys), [0x2f, 0x35, 0x36, 0x39])
    }

    @Test func touchSnapshotReadsLibevdevSlotState() {
        let builder = EvdevDescriptionBuilder(name: "Panel")
        builder.enable(type: 0x01, code: 0x14a)                                        // BTN_TOUCH
        builder.enableAbsolute(0x00, AbsInfo(minimum: 0, maximum: 4095))               // ABS_X
        builder.enableAbsolute(0x01, AbsInfo(minimum: 0, maximum: 4095))               // ABS_Y
        builder.enableAbsolute(0x2f, AbsInfo(minimum: 0, maximum: 2))                  // ABS_MT_SLOT: 3 slots
        builder.enableAbsolute(0x35, AbsInfo(minimum: 0, maximum: 4095))               // ABS_MT_POSITION_X
        builder.enableAbsolute(0x36, AbsInfo(minimum: 0, maximum: 4095))               // ABS_MT_POSITION_Y
        builder.enableAbsolute(0x39, AbsInfo(minimum: 0, maximum: 65535))              // ABS_MT_TRACKING_ID
        builder.setSlotValue(slot: 1, code: 0x39, value: 42)
        builder.setSlotValue(slot: 1, code: 0x35, value: 100)
        builder.setSlotValue(slot: 1, code: 0x36, value: 200)
        builder.setValue(type: 0x01, code: 0x14a, value: 1)
        builder.setValue(type: 0x03, code: 0x00, value: 100)
        let snapshot = builder.touchSnapshot()
        expectEqual(snapshot.slots.count, 3)
        expectEqual(snapshot.slots[1], TouchSnapshot.Slot(trackingID: 42, x: 100, y: 200))
        expect(snapshot.slots[0].trackingID == -1 && snapshot.slots[2].trackingID == -1)
        expect(snapshot.touching && snapshot.x == 100)
    }

    @Test func udevEnumerationWorksAndListsOnlyEvdevNodes() throws {
        let context = try UdevContext()
        let devices = try context.inputDevices()   // none on this machine; some in the VM
        for device in devices {
            let node = try #require(device.devnode)
            expect(node.hasPrefix("/dev/input/event"))
            expect(device.sysname.hasPrefix("event"))
            expect(!device.syspath.isEmpty)
        }
        expect(context.inputDevice(devnode: "/dev/null") == nil, "a character device that is not an input device")
        expect(context.inputDevice(devnode: "/nonexistent") == nil)
    }

    @Test func udevMonitorHasANonBlockingDescriptorAndNothingPending() throws {
        let monitor = try UdevMonitor(context: try UdevContext())
        expect(monitor.fileDescriptor.isValid)
        let flags = fcntl(monitor.fileDescriptor.rawValue, F_GETFL)
        expect(flags >= 0)
        expect(flags & O_NONBLOCK != 0)
        try expectEqual(try SystemCall.waitReadable(monitor.fileDescriptor, timeout: 0), false)
        expect(monitor.receive() == nil)
        expect(monitor.receiveAll().isEmpty)
    }

    @Test func liveSourceOwnsItsDescriptorsInTheLoop() throws {
        let rules = [DeviceRuleSpec(name: "panel", match: DeviceMatch(kind: .touchscreen))]
        let live = try LiveInputSource(rules: rules)
        var errors: [SystemError] = []
        live.onError = { errors.append($0) }
        let present = try UdevContext().inputDevices()
        let loop = try EventLoop()
        let items = CountingSink()
        live.sink = items
        try live.start(in: loop)
        if present.isEmpty { expectEqual(items.added, 0) }
        expect(loop.isWatching(live.monitorFileDescriptor), "the source watches its udev monitor itself")
        for device in live.devices { expect(loop.isWatching(device.fileDescriptor)) }
        let added = items.added
        let open = live.devices
        live.stop()
        let removed = items.removed
        expectEqual(removed, added)
        expect(live.devices.isEmpty)
        expect(!loop.isWatching(live.monitorFileDescriptor), "stop unwatches the monitor")
        for device in open { expect(!loop.isWatching(device.fileDescriptor)) }
        expect(errors.isEmpty)
    }

    @Test func deviceIDsAreUniqueAndIncreasing() {
        let ids = (0..<100).map { _ in ProcessDeviceIDs.next().rawValue }
        expectEqual(ids, ids.sorted())
        expectEqual(Set(ids).count, ids.count)
        expect(ids.first! >= 1)
    }

    @Test func recorderReportsAMissingDevice() {
        let output = temporaryPath("never-written.evemu")
        #expect {
            _ = try Recorder(devicePath: "/dev/input/event-missing", outputPath: output)
        } throws: { error in
            (error as? SystemError)?.errno == ENOENT && (error as? SystemError)?.path == "/dev/input/event-missing"
        }
        expect(access(output, F_OK) != 0, "the output is not created when the device fails")
    }

    @Test func systemCallsRoundTripThroughAPipe() throws {
        var raw: [Int32] = [0, 0]
        try #require(pipe(&raw) == 0)
        let fds = raw.map { FileDescriptor(rawValue: $0) }
        defer { close(raw[0]); close(raw[1]) }
        try SystemCall.setNonBlocking(fds[0])
        var buffer = [UInt8](repeating: 0, count: 64)
        #expect {
            _ = try buffer.withUnsafeMutableBytes { try SystemCall.read(fds[0], into: $0) }
        } throws: { ($0 as? SystemError)?.errno == EAGAIN }
        try SystemCall.writeAll(fds[1], "E: 0.000000 0000 0000 0000\n")
        try expect(try SystemCall.waitReadable(fds[0], timeout: 1000))
        let count = try buffer.withUnsafeMutableBytes { try SystemCall.read(fds[0], into: $0) }
        expectEqual(String(decoding: buffer[..<count], as: UTF8.self), "E: 0.000000 0000 0000 0000\n")
    }
}

/// Counts what a live source hands its sink.
private final class CountingSink: InputSink {
    var added = 0, removed = 0
    func deviceAdded(_ device: MatchedDevice, at time: Timestamp) { added += 1 }
    func deviceIgnored(_ id: DeviceID, _ description: DeviceDescription, kind: DeviceKind,
                       reason: DeviceIgnoreReason, at time: Timestamp) {}
    func events(_ batch: InputBatch, from device: DeviceID) {}
    func deviceRemoved(_ device: DeviceID, at time: Timestamp) { removed += 1 }
}
