import EvrouteCore
import EvrouteSystem
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
    public var fileDescriptor: FileDescriptor
}

/// Live evdev devices fed to one ``InputSink``. The source owns its descriptors in the
/// caller's event loop (libinput's shape): it watches the udev monitor and every device it
/// opens, unwatches them as they go, and hands everything to its ``sink``.
///
/// ```swift
/// let live = try LiveInputSource(rules: layout.deviceRules)
/// live.sink = session
/// try live.start(in: loop)   // deviceAdded for every matching device
/// loop.run()
/// live.stop()                // deviceRemoved for every open device
/// ```
///
/// - Devices are found with udev (startup enumeration + hotplug monitor, created first so
///   nothing is missed in between), opened, described, classified (``DeviceKind/of(_:)``:
///   udev's `ID_INPUT_*`, else capabilities), and kept only when a rule matches (first
///   match in order: the one place a live device is matched; the sink gets the match with
///   ``InputSink/deviceAdded(_:at:)``); the rule's `grab` takes the device exclusively.
/// - Per device: `deviceAdded` once, then each read as one `events` batch, exactly as
///   ``EvdevDevice/readAvailable(into:)`` documents (a kernel overflow appears as
///   `SYN_DROPPED` followed by libevdev's sync events), then `deviceRemoved` once.
/// - A vanished or failing device (udev `remove`, `ENODEV` or any read error) is closed
///   and reported `deviceRemoved`; the source goes on. Times of added and removed are
///   ``MonotonicClock`` now, the clock device events are stamped with.
/// - Ids come from ``ProcessDeviceIDs`` (never reused).
/// - No threads; not thread-safe: it runs on the loop's thread.
public final class LiveInputSource {
    /// The device rules, in declaration order.
    public let matcher: DeviceRuleMatcher
    /// Failures that do not stop the source (a node that cannot be opened, grabbed or watched,
    /// a read error, a failed enumeration). Defaults to ignoring them.
    public var onError: ((SystemError) -> Void)?
    /// A device node that no rule takes, or that cannot be opened: its node, its description
    /// when it could be read, and why (`evroute monitor` says so; the daemon stays quiet).
    public var onIgnored: ((_ node: String, _ description: DeviceDescription?, _ reason: DeviceIgnoreReason) -> Void)?
    /// A node udev removed that this source did not have open (one ``onIgnored`` reported, or
    /// one it never saw): `evroute monitor` says the device went.
    public var onIgnoredRemoved: ((_ node: String) -> Void)?

    private let context: UdevContext
    private let monitor: UdevMonitor
    /// An open device and what is known of it, and the watcher of its descriptor: the loop calls
    /// it directly on each wake-up (a reference: a wake-up reads through it without copying the
    /// description).
    private final class OpenDevice: EventLoop.Watcher {
        let device: EvdevDevice
        let info: LiveDevice
        /// The source unwatches every device before it goes (close, deinit).
        unowned let source: LiveInputSource
        init(device: EvdevDevice, info: LiveDevice, source: LiveInputSource) {
            self.device = device
            self.info = info
            self.source = source
        }
        override func ready(_ readiness: EventLoop.Readiness) { source.readDevice(self) }
    }
    private var open: [DeviceID: OpenDevice] = [:]
    private var idByPath: [String: DeviceID] = [:]
    private var loop: EventLoop?
    /// Where every device and read goes (set before ``start(in:)``; the routing session).
    /// The source keeps it.
    public var sink: (any InputSink)?
    /// The events read from every device so far.
    public private(set) var eventsRead = 0

    /// Creates the udev context and starts the hotplug monitor (events queue until read).
    public init(rules: [DeviceRuleSpec]) throws(SystemError) {
        self.matcher = DeviceRuleMatcher(rules: rules)
        context = try UdevContext()
        monitor = try UdevMonitor(context: context)
    }

    deinit {
        for entry in open.values {
            loop?.unwatch(entry.device.fileDescriptor)
            entry.device.close()
        }
        loop?.unwatch(monitor.fileDescriptor)
    }

    /// Watches the hotplug monitor in `loop`, enumerates the present devices and opens those a
    /// rule takes (one `deviceAdded` each, before this returns); from then on the loop feeds
    /// the ``sink`` as things happen. An enumeration failure is reported to ``onError``.
    /// Throws when the monitor cannot be watched.
    public func start(in loop: EventLoop) throws(SystemError) {
        self.loop = loop
        try loop.watch(monitor.fileDescriptor) { [unowned self] _ in
            for event in monitor.receiveAll() { handleHotplug(event) }
        }
        let devices: [UdevInputDevice]
        do { devices = try context.inputDevices() } catch {
            onError?(error)
            return
        }
        for device in devices { consider(device) }
    }

    /// Closes every device (one `deviceRemoved` each) and stops watching the monitor.
    public func stop() {
        for id in open.keys.sorted(by: { $0.rawValue < $1.rawValue }) { close(id) }
        loop?.unwatch(monitor.fileDescriptor)
    }

    /// Where evdev nodes live; a machine (or a container) without input devices may not have it.
    public static let inputDirectory = "/dev/input"

    /// Whether ``inputDirectory`` exists.
    public static var inputDirectoryExists: Bool {
        var info = stat()
        return stat(inputDirectory, &info) == 0
    }

    /// The udev monitor's descriptor.
    public var monitorFileDescriptor: FileDescriptor { monitor.fileDescriptor }

    /// The open devices, by id order.
    public var devices: [LiveDevice] { open.values.map(\.info).sorted { $0.id.rawValue < $1.id.rawValue } }

    /// An open device.
    public func device(_ id: DeviceID) -> LiveDevice? { open[id]?.info }

    /// The touch state libevdev holds for an open device (see ``EvdevDevice/touchSnapshot()``):
    /// right after `deviceAdded`, the contacts already down when the device was opened.
    public func touchSnapshot(of id: DeviceID) -> TouchSnapshot? { open[id]?.device.touchSnapshot() }

    /// Reads every open device's pending events now, without waiting (in id order; each device's
    /// in its own order): what the kernel already holds is routed before a deadline fires (see
    /// the runtime's session timer). A device with nothing pending costs one `read(2)`.
    public func readPending() {
        guard !open.isEmpty else { return }
        for entry in open.values.sorted(by: { $0.info.id.rawValue < $1.info.id.rawValue }) where open[entry.info.id] === entry {
            readDevice(entry)
        }
    }

    /// Reads everything pending on a device, each read handed on as one batch from a buffer
    /// reused across calls (the steady-state read path allocates nothing).
    private func readDevice(_ entry: OpenDevice) {
        let id = entry.info.id
        let result: EvdevReadResult
        if let sink {
            result = entry.device.readAvailable { sink.events($0, from: id) }
        } else {
            result = entry.device.readAvailable { _ in }
        }
        eventsRead &+= result.eventCount
        if let failure = result.failure {
            if !failure.isDeviceGone { onError?(failure) }
            close(id)
        }
    }

    // MARK: Hotplug

    private func handleHotplug(_ event: UdevInputEvent) {
        guard let path = event.device.devnode else { return }
        switch event.action {
        case .remove:
            if let id = idByPath[path] { close(id) } else { onIgnoredRemoved?(path) }
        case .add, .change:
            // `change` opens a device that did not match before (udev properties arrived
            // or changed); an already open device is left as it is.
            consider(event.device)
        case .other:
            break
        }
    }

    /// Opens and watches `candidate` if a rule takes it; `deviceAdded` when it does.
    private func consider(_ candidate: UdevInputDevice) {
        guard let path = candidate.devnode, let loop else { return }
        // evroute's virtual devices (forwarding) are never read back: no loop, not even between
        // two evroutes (each forwarding the other's device would make devices without end). This
        // process's are known by the sysfs paths recorded when it made them; another evroute's by
        // its name on a uinput device (under /sys/devices/virtual, where no USB, Bluetooth or
        // serial device is). A physical device that only names itself so (a USB keyboard called
        // "evroute keyboard") is an ordinary one, matched, grabbed and logged.
        if OwnVirtualDevices.contains(syspath: candidate.syspath) { return }
        if let name = candidate.name, VirtualDeviceNames.looksLikeEvroutes(name: name, syspath: candidate.syspath) { return }
        if let existing = idByPath[path] {
            // Seen both by enumeration and the monitor, or a `change`: nothing to do.
            if open[existing]?.info.syspath == candidate.syspath { return }
            // Another device now has the node: the old one is gone.
            close(existing)
        }
        let device: EvdevDevice
        do { device = try EvdevDevice(path: path) } catch {
            if mightMatchWithoutOpening(candidate) { onError?(error) }
            onIgnored?(path, candidate.udevOnlyDescription, .cannotOpen(error))
            return
        }
        var description = device.description
        description.udevProperties = candidate.properties
        let kind = DeviceKind.of(description)
        // Matched here, once (the sink is handed the match); numbered only once it is kept.
        guard var match = matcher.match(DeviceID(0), description, kind: kind) else {
            device.close()
            onIgnored?(path, description, matcher.whyNone(for: description, kind: kind))
            return
        }
        if match.rule.grab {
            do { try device.grab() } catch {
                // Grabbed by someone else: it would deliver nothing to us anyway.
                onError?(error)
                device.close()
                return
            }
        }
        let id = ProcessDeviceIDs.next()
        match.id = id
        let info = LiveDevice(id: id, path: path, syspath: candidate.syspath, description: description,
                              kind: kind, rule: match.rule, isGrabbed: device.isGrabbed,
                              fileDescriptor: device.fileDescriptor)
        let entry = OpenDevice(device: device, info: info, source: self)
        do {
            // Edge-triggered: `readAvailable` reads until the kernel's queue is empty (a short
            // read), and the device's next event wakes the loop again.
            try loop.watch(device.fileDescriptor, for: [.readable, .edgeTriggered], by: entry)
        } catch {
            onError?(error)
            device.close()
            return
        }
        open[id] = entry
        idByPath[path] = id
        let now = MonotonicClock.now()
        sink?.deviceAdded(match, at: now)
        // Fingers already down when the device was opened: state them the way libevdev states
        // a resync (SYN_DROPPED, the current values, SYN_REPORT), so their touches begin now.
        let resync = device.touchSnapshot().resyncEvents(at: now)
        if !resync.isEmpty { InputBatch.with(resync) { sink?.events($0, from: id) } }
    }


    /// Whether a node that could not be opened might have matched a rule, judged from udev's
    /// data alone — so an unopenable device no rule wants is skipped silently.
    private func mightMatchWithoutOpening(_ candidate: UdevInputDevice) -> Bool {
        guard let description = candidate.udevOnlyDescription else { return true }
        return matcher.firstMatch(for: description, kind: DeviceKind.of(description)) != nil
    }

    private func close(_ id: DeviceID) {
        guard let entry = open.removeValue(forKey: id) else { return }
        if idByPath[entry.info.path] == id { idByPath[entry.info.path] = nil }
        loop?.unwatch(entry.device.fileDescriptor)
        entry.device.close()
        sink?.deviceRemoved(id, at: MonotonicClock.now())
    }
}
