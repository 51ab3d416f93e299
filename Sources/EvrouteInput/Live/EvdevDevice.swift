import CEvdev
import EvrouteCore
import EvrouteSystem
#if canImport(Glibc)
import Glibc
#endif

/// What one ``EvdevDevice/readAvailable(into:)`` call did.
public struct EvdevReadResult: Sendable {
    /// How many events were appended.
    public var eventCount: Int = 0
    /// The kernel dropped events (its buffer overflowed) and libevdev resynced the
    /// device state during this batch. The appended events then contain an
    /// `EV_SYN/SYN_DROPPED` event followed by the sync events; see ``EvdevDevice/readAvailable(into:)``.
    public var resynced: Bool = false
    /// Set when reading stopped for good: `ENODEV` (the device was unplugged) or
    /// another read error. The device must be closed; it yields nothing more.
    public var failure: SystemError?

    /// Whether the device is gone (or unreadable) and must be closed.
    public var isDeviceGone: Bool { failure != nil }
}

/// A live evdev device node opened through libevdev.
///
/// The node is opened `O_RDONLY | O_NONBLOCK | O_CLOEXEC`; its events are stamped with
/// `CLOCK_MONOTONIC` (the daemon's event clock) unless asked otherwise. Wait for
/// ``fileDescriptor`` to be readable (epoll, poll) and then call ``readAvailable(into:)``,
/// which drains everything pending. Not thread-safe; use it from the event loop only.
public final class EvdevDevice {
    /// The device node (`/dev/input/event3`).
    public let path: String
    /// The open node, for epoll. Valid until ``close()``; −1 after.
    public private(set) var fileDescriptor: FileDescriptor
    /// Name, ids, capabilities and axis ranges, read once when the device was opened
    /// (``DeviceDescription/udevProperties`` is empty: udev data is the caller's to add).
    public let description: DeviceDescription
    /// Whether this process holds the device exclusively (EVIOCGRAB).
    public private(set) var isGrabbed = false

    private var handle: OpaquePointer?

    /// Opens `path` and reads its description.
    ///
    /// - Parameters:
    ///   - grab: take the device exclusively (EVIOCGRAB). Fails with `EBUSY` when another
    ///     process holds it; the device is then closed and the error thrown.
    ///   - monotonicClock: stamp events with `CLOCK_MONOTONIC` (EVIOCSCLOCKID) instead of
    ///     the kernel's default `CLOCK_REALTIME`.
    /// - Throws: ``SystemError`` naming the call and `path`: `ENOENT` (no such node),
    ///   `EACCES` (no permission: not root, not in group `input`), `ENOTTY` (not an evdev
    ///   node), `EBUSY` (grabbed elsewhere).
    public init(path: String, grab: Bool = false, monotonicClock: Bool = true) throws(SystemError) {
        self.path = path
        let descriptor = try SystemCall.open(path, flags: O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        let fd = descriptor.rawValue
        var handle: OpaquePointer?
        do throws(SystemError) {
            // Set the clock before anything is read: changing it later makes the kernel
            // flush this client's queue (and queue a SYN_DROPPED).
            if monotonicClock {
                _ = try SystemCall.ioctl("EVIOCSCLOCKID", path: path) { evroute_ioctl_set_clock_monotonic(fd) }
            }
            _ = try SystemCall.checkNegativeErrno("libevdev_new_from_fd", path: path) { libevdev_new_from_fd(fd, &handle) }
            if grab {
                _ = try SystemCall.ioctl("EVIOCGRAB", path: path) { evroute_ioctl_grab(fd, 1) }
            }
        } catch {
            if let handle { libevdev_free(handle) }
            try? SystemCall.close(descriptor, path: path)
            throw error
        }
        self.fileDescriptor = descriptor
        self.handle = handle
        self.isGrabbed = grab
        var description = DeviceDescription(libevdev: handle!, path: path)
        description.resyncsAfterDrop = true   // readAvailable follows SYN_DROPPED with the sync events
        self.description = description
    }

    deinit {
        close()
        rawEvents.deallocate()
    }

    /// Takes the device exclusively (EVIOCGRAB 1). `EBUSY`: another process holds it.
    public func grab() throws(SystemError) {
        guard fileDescriptor.isValid, !isGrabbed else { return }
        let fd = fileDescriptor.rawValue
        _ = try SystemCall.ioctl("EVIOCGRAB", path: path) { evroute_ioctl_grab(fd, 1) }
        isGrabbed = true
    }

    /// Releases an exclusive grab (EVIOCGRAB 0). Closing the device releases it too.
    public func ungrab() throws(SystemError) {
        guard fileDescriptor.isValid, isGrabbed else { return }
        let fd = fileDescriptor.rawValue
        _ = try SystemCall.ioctl("EVIOCGRAB", path: path) { evroute_ioctl_grab(fd, 0) }
        isGrabbed = false
    }

    /// Reads every pending event and appends it to `events`: one `read(2)` per wake-up in the
    /// usual case (up to ``readBatch`` events at once; a shorter read means the kernel's queue
    /// is empty, so no second read to meet `EAGAIN`). Correct with level-triggered epoll.
    ///
    /// **What is appended**, in order:
    /// - normal events exactly as the kernel sent them (`EV_SYN/SYN_REPORT` frames included);
    /// - when the kernel's buffer overflowed: first the `EV_SYN/SYN_DROPPED` event itself
    ///   (kernel timestamp), then the *sync events*, as libevdev's resync states them: the
    ///   events still queued are discarded (they continue a lost stream), the device's state is
    ///   read with ioctls (a fresh libevdev handle), and the differences are stated — keys whose
    ///   state changed (releases and presses), every multi-touch slot's tracking id and values
    ///   (`ABS_MT_TRACKING_ID -1` for an empty slot) and the current slot, or the single-touch
    ///   `BTN_TOUCH`/position —, ending with an `EV_SYN/SYN_REPORT`, all at the drop's
    ///   timestamp. ``EvdevReadResult/resynced`` is set. Consumers treat everything between the
    ///   last complete `SYN_REPORT` before the drop and it as lost.
    ///
    /// `ENODEV` (unplugged) or another read error stops reading and is returned in
    /// ``EvdevReadResult/failure``; events read before it are still appended.
    public func readAvailable(into events: inout [InputEvent]) -> EvdevReadResult {
        readAvailable { batch in for i in batch.indices { events.append(batch[i]) } }
    }

    /// Reads every pending event, as ``readAvailable(into:)`` does, and hands each read's events
    /// to `deliver` where they were converted (a buffer the device keeps: valid during the call
    /// only). The live path: nothing is copied or allocated per read.
    public func readAvailable(_ deliver: (InputBatch) -> Void) -> EvdevReadResult {
        var result = EvdevReadResult()
        guard fileDescriptor.isValid else {
            result.failure = SystemError(errno: EBADF, call: "read", path: path)
            return result
        }
        let fd = fileDescriptor.rawValue
        while true {
            let n = read(fd, rawEvents, EvdevDevice.readBatch * MemoryLayout<input_event>.stride)
            if n < 0 {
                if errno == EINTR { continue }
                if errno != EAGAIN { result.failure = SystemError(errno: errno, call: "read", path: path) }
                return result
            }
            if n == 0 {   // end of file: the node went away
                result.failure = SystemError(errno: ENODEV, call: "read", path: path)
                return result
            }
            let count = n / MemoryLayout<input_event>.stride
            var drop: InputEvent?
            let converted = events.fill(count: count) { i in
                let event = InputEvent(rawEvents[i])
                if event.type == EventType.syn && event.code == SynCode.dropped { drop = event; return nil }
                if event.type == EventType.key { keysDown.set(event.code, event.value != 0) }
                return event
            }
            if let drop {
                if converted > 0 { events.withBatch(count: converted, deliver) }
                result.eventCount += converted
                var sync: [InputEvent] = []
                resync(after: drop, into: &sync, result: &result)
                InputBatch.with(sync, deliver)
                return result
            }
            events.withBatch(count: count, deliver)
            result.eventCount += count
            if count < EvdevDevice.readBatch { return result }
        }
    }

    /// How many events one `read(2)` takes at most.
    public static let readBatch = 64
    /// What one `read(2)` fills, and the same events converted (allocated once, freed by deinit).
    private let rawEvents = UnsafeMutablePointer<input_event>.allocate(capacity: EvdevDevice.readBatch)
    private let events = InputBuffer(capacity: EvdevDevice.readBatch)
    /// The keys this reader has seen down (for the key differences of a resync).
    private var keysDown = KeyBits()

    /// After `SYN_DROPPED`: discards what is still queued, reads the device's state and states
    /// it (see ``readAvailable(into:)``).
    private func resync(after drop: InputEvent, into events: inout [InputEvent], result: inout EvdevReadResult) {
        let fd = fileDescriptor.rawValue
        // Drain: the queued events continue a stream with a hole in it.
        while read(fd, rawEvents, EvdevDevice.readBatch * MemoryLayout<input_event>.stride) > 0 {}
        var fresh: OpaquePointer?
        guard libevdev_new_from_fd(fd, &fresh) == 0, let fresh else {
            result.failure = SystemError(errno: errno == 0 ? EIO : errno, call: "libevdev_new_from_fd", path: path)
            return
        }
        defer { libevdev_free(fresh) }
        result.resynced = true
        let start = events.count
        func add(_ type: UInt16, _ code: UInt16, _ value: Int32) {
            events.append(InputEvent(time: drop.time, type: type, code: code, value: value))
        }
        add(EventType.syn, SynCode.dropped, 0)
        for code in description.events[EventType.key] ?? [] {
            let down = libevdev_get_event_value(fresh, UInt32(EV_KEY), UInt32(code)) != 0
            if down != keysDown.contains(code) {
                keysDown.set(code, down)
                add(EventType.key, code, down ? 1 : 0)
            }
        }
        let state = TouchSnapshot(libevdev: fresh)
        if !state.slots.isEmpty {
            for (index, slot) in state.slots.enumerated() {
                add(EventType.abs, AbsCode.mtSlot, Int32(index))
                add(EventType.abs, AbsCode.mtTrackingID, slot.trackingID)
                guard slot.trackingID >= 0 else { continue }
                add(EventType.abs, AbsCode.mtPositionX, slot.x)
                add(EventType.abs, AbsCode.mtPositionY, slot.y)
                if description.has(EventType.abs, AbsCode.mtPressure) { add(EventType.abs, AbsCode.mtPressure, slot.pressure) }
            }
            add(EventType.abs, AbsCode.mtSlot, Int32(state.currentSlot))
        } else if description.has(EventType.abs, AbsCode.x) {
            add(EventType.abs, AbsCode.x, state.x)
            add(EventType.abs, AbsCode.y, state.y)
            if description.has(EventType.abs, AbsCode.pressure) { add(EventType.abs, AbsCode.pressure, state.pressure) }
        }
        add(EventType.syn, SynCode.report, 0)
        result.eventCount += events.count - start
    }

    /// The device's touch state when it was opened (events are read past libevdev, which is
    /// not kept up to date): every multi-touch slot, the current slot, and the single-touch
    /// `BTN_TOUCH`/`ABS_X`/`ABS_Y`/`ABS_PRESSURE`. For
    /// ``TouchDecoder/resync(_:at:)`` when a device is opened with fingers already down.
    /// Empty after ``close()``.
    public func touchSnapshot() -> TouchSnapshot {
        guard let handle else { return TouchSnapshot() }
        return TouchSnapshot(libevdev: handle)
    }

    /// Releases the grab, frees libevdev's state and closes the node. Idempotent.
    public func close() {
        if let handle { libevdev_free(handle) }
        handle = nil
        if fileDescriptor.isValid {
            // Closing releases an EVIOCGRAB too.
            try? SystemCall.close(fileDescriptor, path: path)
            fileDescriptor = .invalid
        }
        isGrabbed = false
    }
}

extension InputEvent {
    /// The event in a kernel `struct input_event`, time taken portably.
    init(_ raw: input_event) {
        var raw = raw
        let seconds = evroute_input_event_sec(&raw)
        let microseconds = evroute_input_event_usec(&raw)
        self.init(time: Timestamp(seconds: Int64(seconds), microseconds: Int64(microseconds)),
                  type: raw.type, code: raw.code, value: raw.value)
    }
}

extension TouchSnapshot {
    /// Reads the touch state a libevdev device holds.
    init(libevdev handle: OpaquePointer) {
        self.init()
        let slotCount = libevdev_get_num_slots(handle)
        if slotCount > 0 {
            func value(_ slot: Int32, _ code: Int32) -> Int32 {
                libevdev_has_event_code(handle, UInt32(EV_ABS), UInt32(code)) == 1
                    ? libevdev_get_slot_value(handle, UInt32(slot), UInt32(code)) : 0
            }
            slots = (0..<slotCount).map { slot in
                TouchSnapshot.Slot(trackingID: value(slot, ABS_MT_TRACKING_ID),
                                   x: value(slot, ABS_MT_POSITION_X), y: value(slot, ABS_MT_POSITION_Y),
                                   pressure: value(slot, ABS_MT_PRESSURE),
                                   touchMajor: value(slot, ABS_MT_TOUCH_MAJOR), touchMinor: value(slot, ABS_MT_TOUCH_MINOR),
                                   toolType: value(slot, ABS_MT_TOOL_TYPE))
            }
            currentSlot = Int(max(0, libevdev_get_current_slot(handle)))
        }
        touching = libevdev_get_event_value(handle, UInt32(EV_KEY), UInt32(BTN_TOUCH)) != 0
        x = libevdev_get_event_value(handle, UInt32(EV_ABS), UInt32(ABS_X))
        y = libevdev_get_event_value(handle, UInt32(EV_ABS), UInt32(ABS_Y))
        pressure = libevdev_get_event_value(handle, UInt32(EV_ABS), UInt32(ABS_PRESSURE))
    }
}

extension DeviceDescription {
    /// Reads a description from a libevdev device (with or without an fd): name, ids,
    /// input properties, every supported type/code, and each absolute axis's absinfo.
    init(libevdev handle: OpaquePointer, path: String?) {
        let name = libevdev_get_name(handle).map { String(cString: $0) } ?? ""
        var properties = Set<UInt16>()
        for property in 0...UInt32(INPUT_PROP_MAX) where libevdev_has_property(handle, property) == 1 {
            properties.insert(UInt16(property))
        }
        var events: [UInt16: Set<UInt16>] = [:]
        var absinfo: [UInt16: AbsInfo] = [:]
        for type in 0...UInt32(EV_MAX) where libevdev_has_event_type(handle, type) == 1 {
            var codes = Set<UInt16>()
            let maxCode = libevdev_event_type_get_max(type)
            if maxCode >= 0 {
                for code in 0...UInt32(maxCode) where libevdev_has_event_code(handle, type, code) == 1 {
                    codes.insert(UInt16(code))
                    if type == UInt32(EV_ABS), let info = libevdev_get_abs_info(handle, code) {
                        absinfo[UInt16(code)] = AbsInfo(
                            value: info.pointee.value, minimum: info.pointee.minimum, maximum: info.pointee.maximum,
                            fuzz: info.pointee.fuzz, flat: info.pointee.flat, resolution: info.pointee.resolution)
                    }
                }
            }
            events[UInt16(type)] = codes
        }
        self.init(name: name,
                  bus: UInt16(truncatingIfNeeded: libevdev_get_id_bustype(handle)),
                  vendor: UInt16(truncatingIfNeeded: libevdev_get_id_vendor(handle)),
                  product: UInt16(truncatingIfNeeded: libevdev_get_id_product(handle)),
                  version: UInt16(truncatingIfNeeded: libevdev_get_id_version(handle)),
                  properties: properties, events: events, absinfo: absinfo, path: path)
    }
}

/// Builds a ``DeviceDescription`` through an fd-less libevdev device, exactly as a live
/// device's description is read, for tests and tools that need one without a kernel.
///
/// ```swift
/// let builder = EvdevDescriptionBuilder(name: "Panel")
/// builder.enableAbsolute(0x35, AbsInfo(minimum: 0, maximum: 4095))   // ABS_MT_POSITION_X
/// let description = builder.build()
/// ```
public final class EvdevDescriptionBuilder {
    private let handle: OpaquePointer

    /// A device named `name` with no capabilities yet.
    public init(name: String) {
        handle = libevdev_new()!
        libevdev_set_name(handle, name)
    }

    deinit { libevdev_free(handle) }

    /// Sets bus type, vendor, product and version.
    public func setID(bus: UInt16 = 0, vendor: UInt16, product: UInt16, version: UInt16 = 0) {
        libevdev_set_id_bustype(handle, Int32(bus))
        libevdev_set_id_vendor(handle, Int32(vendor))
        libevdev_set_id_product(handle, Int32(product))
        libevdev_set_id_version(handle, Int32(version))
    }

    /// Sets an INPUT_PROP_* bit (INPUT_PROP_DIRECT = 1, …).
    public func enableProperty(_ property: UInt16) {
        libevdev_enable_property(handle, UInt32(property))
    }

    /// Enables a non-absolute event code (`EV_KEY`/`BTN_TOUCH`, `EV_REL`/`REL_X`, …).
    /// Absolute axes need ``enableAbsolute(_:_:)``; `EV_REP` codes are not supported here.
    public func enable(type: UInt16, code: UInt16) {
        libevdev_enable_event_code(handle, UInt32(type), UInt32(code), nil)
    }

    /// Enables an absolute axis with its range.
    public func enableAbsolute(_ code: UInt16, _ info: AbsInfo) {
        var raw = input_absinfo(value: info.value, minimum: info.minimum, maximum: info.maximum,
                                fuzz: info.fuzz, flat: info.flat, resolution: info.resolution)
        libevdev_enable_event_code(handle, UInt32(EV_ABS), UInt32(code), &raw)
    }

    /// Sets a multi-touch slot's value in libevdev's state (for ``touchSnapshot()``).
    public func setSlotValue(slot: Int, code: UInt16, value: Int32) {
        libevdev_set_slot_value(handle, UInt32(slot), UInt32(code), value)
    }

    /// Sets a non-slot value in libevdev's state (`BTN_TOUCH`, `ABS_X`, …).
    public func setValue(type: UInt16, code: UInt16, value: Int32) {
        libevdev_set_event_value(handle, UInt32(type), UInt32(code), value)
    }

    /// The touch state, read exactly as ``EvdevDevice/touchSnapshot()`` reads a live device's.
    public func touchSnapshot() -> TouchSnapshot { TouchSnapshot(libevdev: handle) }

    /// The description as libevdev reports it.
    public func build(path: String? = nil) -> DeviceDescription {
        DeviceDescription(libevdev: handle, path: path)
    }
}

/// A set of key codes (`KEY_*`, `BTN_*`: 0…767) as bits.
struct KeyBits {
    private var words = [UInt64](repeating: 0, count: 12)

    func contains(_ code: UInt16) -> Bool {
        let i = Int(code) >> 6
        return i < words.count && words[i] & (1 << UInt64(code & 63)) != 0
    }

    mutating func set(_ code: UInt16, _ on: Bool) {
        let i = Int(code) >> 6
        guard i < words.count else { return }
        if on { words[i] |= 1 << UInt64(code & 63) } else { words[i] &= ~(1 << UInt64(code & 63)) }
    }
}
