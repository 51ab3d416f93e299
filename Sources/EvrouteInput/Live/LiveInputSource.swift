import EvrouteCore
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

private let processDeviceCounter = Atomic<Int>(0)

/// Device ids unique for the life of the process: a monotonic counter shared by every
/// source that calls it, so a re-plugged device (or a recording next to live devices)
/// never reuses a number.
public enum ProcessDeviceIDs {
    /// The next id: 1, 2, 3, …
    public static func next() -> DeviceID {
        DeviceID(processDeviceCounter.add(1, ordering: .relaxed).newValue)
    }
}

/// A device ``LiveInputSource`` has open.
public struct LiveDevice: Sendable {
    public var id: DeviceID
    /// `/dev/input/event3`.
    public var path: String
    /// udev's syspath (tells a re-plugged device from the old one at the same node).
    public var syspath: String
    /// libevdev's description plus the device's udev properties.
    public var description: DeviceDescription
    /// udev's kind, or the capability-based one when udev has not classified the device.
    public var kind: DeviceKind
    /// The rule that took the device.
    public var rule: DeviceRuleSpec
    /// Whether the device is held exclusively (EVIOCGRAB).
    public var isGrabbed: Bool
    /// The open node (for epoll).
    public var fileDescriptor: Int32
}

/// Live evdev devices as one ``InputItem`` stream, driven by the caller's event loop.
///
/// ```swift
/// let live = try LiveInputSource(rules: layout.devices)
/// var items = live.start()                       // .added for every matching device
/// // watch live.fileDescriptors for readability (epoll); on each readable fd:
/// items = live.handleReadable(fd: fd)
/// // after any .added / .removed item, re-sync the watch set with live.fileDescriptors
/// ```
///
/// - Devices are found with udev (startup enumeration + hotplug monitor, created first so
///   nothing is missed in between), opened, described, classified (``DeviceKind/of(_:)``:
///   udev's `ID_INPUT_*`, else capabilities), and kept only when a rule matches (first
///   match in order); the rule's `grab` takes the device exclusively.
/// - Per device: `.added(id, description)` once, then `.event`s exactly as
///   ``EvdevDevice/readAvailable(into:)`` documents (a kernel overflow appears as
///   `SYN_DROPPED` followed by libevdev's sync events), then `.removed(id, time)` once.
/// - A vanished or failing device (udev `remove`, `ENODEV` or any read error) is closed
///   and reported `.removed`; the source goes on. `.removed` carries `CLOCK_MONOTONIC`
///   now, the clock device events are stamped with.
/// - Ids come from ``ProcessDeviceIDs`` (never reused).
/// - No threads, no timers; not thread-safe: call it from the event loop only.
public final class LiveInputSource {
    /// The device rules, in declaration order.
    public let matcher: DeviceRuleMatcher
    /// Failures that do not stop the source (a node that cannot be opened or grabbed, a
    /// read error, a failed enumeration). Defaults to ignoring them.
    public var onError: ((InputSystemError) -> Void)?

    private let context: UdevContext
    private let monitor: UdevMonitor
    private var open: [DeviceID: (device: EvdevDevice, info: LiveDevice)] = [:]
    private var idByFileDescriptor: [Int32: DeviceID] = [:]
    /// Events of one read, reused across reads.
    private var readBuffer: [InputEvent] = []
    private var idByPath: [String: DeviceID] = [:]

    /// Creates the udev context and starts the hotplug monitor (events queue until read).
    public init(rules: [DeviceRuleSpec]) throws(InputSystemError) {
        self.matcher = DeviceRuleMatcher(rules: rules)
        context = try UdevContext()
        monitor = try UdevMonitor(context: context)
    }

    deinit {
        for entry in open.values { entry.device.close() }
    }

    /// Enumerates the present devices and opens those a rule takes; one `.added` each.
    /// An enumeration failure is reported to ``onError`` and yields nothing.
    public func start() -> [InputItem] {
        let devices: [UdevInputDevice]
        do { devices = try context.inputDevices() } catch {
            onError?(error)
            return []
        }
        return devices.flatMap { consider($0) }
    }

    /// The descriptors to watch for readability: the udev monitor's and every open device's.
    public var fileDescriptors: [Int32] { [monitor.fileDescriptor] + idByFileDescriptor.keys.sorted() }

    /// The udev monitor's descriptor.
    public var monitorFileDescriptor: Int32 { monitor.fileDescriptor }

    /// The open devices, by id order.
    public var devices: [LiveDevice] { open.values.map(\.info).sorted { $0.id.rawValue < $1.id.rawValue } }

    /// An open device.
    public func device(_ id: DeviceID) -> LiveDevice? { open[id]?.info }

    /// The touch state libevdev holds for an open device (see ``EvdevDevice/touchSnapshot()``):
    /// right after `.added`, the contacts already down when the device was opened.
    public func touchSnapshot(of id: DeviceID) -> TouchSnapshot? { open[id]?.device.touchSnapshot() }

    /// Handles readability (or hang-up / error) of one of ``fileDescriptors``: hotplug
    /// events for the monitor's, pending events for a device's. Unknown descriptors
    /// (e.g. a device closed earlier in the same epoll batch) yield nothing.
    public func handleReadable(fd: Int32) -> [InputItem] {
        if fd == monitor.fileDescriptor {
            return monitor.receiveAll().flatMap { handleHotplug($0) }
        }
        guard let id = idByFileDescriptor[fd], let entry = open[id] else { return [] }
        var events: [InputEvent] = []
        let result = entry.device.readAvailable(into: &events)
        var items = events.map { InputItem.event(id, $0) }
        if let failure = result.failure {
            if !failure.isDeviceGone { onError?(failure) }
            items += close(id)
        }
        return items
    }

    /// ``handleReadable(fd:)`` without building an array: each item is passed to `body` as it
    /// is read, from a buffer reused across calls (the steady-state read path allocates nothing).
    public func handleReadable(fd: Int32, _ body: (InputItem) -> Void) {
        guard fd != monitor.fileDescriptor, let id = idByFileDescriptor[fd], let entry = open[id] else {
            for item in handleReadable(fd: fd) { body(item) }
            return
        }
        readBuffer.removeAll(keepingCapacity: true)
        let result = entry.device.readAvailable(into: &readBuffer)
        for event in readBuffer { body(.event(id, event)) }
        if let failure = result.failure {
            if !failure.isDeviceGone { onError?(failure) }
            for item in close(id) { body(item) }
        }
    }

    /// Closes every device; one `.removed` each. The monitor stays usable.
    public func stop() -> [InputItem] {
        open.keys.sorted { $0.rawValue < $1.rawValue }.flatMap { close($0) }
    }

    // MARK: Hotplug

    private func handleHotplug(_ event: UdevInputEvent) -> [InputItem] {
        guard let path = event.device.devnode else { return [] }
        switch event.action {
        case .remove:
            guard let id = idByPath[path] else { return [] }
            return close(id)
        case .add, .change:
            // `change` opens a device that did not match before (udev properties arrived
            // or changed); an already open device is left as it is.
            return consider(event.device)
        case .other:
            return []
        }
    }

    /// Opens `candidate` if a rule takes it; `.added` when it does.
    private func consider(_ candidate: UdevInputDevice) -> [InputItem] {
        guard let path = candidate.devnode else { return [] }
        var items: [InputItem] = []
        if let existing = idByPath[path] {
            // Seen both by enumeration and the monitor, or a `change`: nothing to do.
            if open[existing]?.info.syspath == candidate.syspath { return [] }
            // Another device now has the node: the old one is gone.
            items += close(existing)
        }
        let device: EvdevDevice
        do { device = try EvdevDevice(path: path) } catch {
            if mightMatchWithoutOpening(candidate) { onError?(error) }
            return items
        }
        var description = device.description
        description.udevProperties = candidate.properties
        let kind = DeviceKind.of(description)
        guard let rule = matcher.firstMatch(for: description, kind: kind) else {
            device.close()
            return items
        }
        if rule.grab {
            do { try device.grab() } catch {
                // Grabbed by someone else: it would deliver nothing to us anyway.
                onError?(error)
                device.close()
                return items
            }
        }
        let id = ProcessDeviceIDs.next()
        let info = LiveDevice(id: id, path: path, syspath: candidate.syspath, description: description,
                              kind: kind, rule: rule, isGrabbed: device.isGrabbed,
                              fileDescriptor: device.fileDescriptor)
        open[id] = (device, info)
        idByFileDescriptor[device.fileDescriptor] = id
        idByPath[path] = id
        items.append(.added(id, description))
        // Fingers already down when the device was opened: state them the way libevdev states
        // a resync (SYN_DROPPED, the current values, SYN_REPORT), so their touches begin now.
        items += device.touchSnapshot().resyncEvents(at: monotonicNow()).map { InputItem.event(id, $0) }
        return items
    }


    /// Whether a node that could not be opened might have matched a rule, judged from udev's
    /// data alone — so an unopenable device no rule wants is skipped silently.
    private func mightMatchWithoutOpening(_ candidate: UdevInputDevice) -> Bool {
        guard let description = candidate.udevOnlyDescription else { return true }
        return matcher.firstMatch(for: description, kind: DeviceKind.of(description)) != nil
    }

    private func close(_ id: DeviceID) -> [InputItem] {
        guard let entry = open.removeValue(forKey: id) else { return [] }
        idByFileDescriptor[entry.info.fileDescriptor] = nil
        if idByPath[entry.info.path] == id { idByPath[entry.info.path] = nil }
        entry.device.close()
        return [.removed(id, monotonicNow())]
    }
}

/// `CLOCK_MONOTONIC` now: the clock live device events are stamped with.
func monotonicNow() -> Timestamp {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Timestamp(seconds: Int64(now.tv_sec), microseconds: Int64(now.tv_nsec) / 1000)
}
