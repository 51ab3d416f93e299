import CUdev
import EvrouteSystem
#if canImport(Glibc)
import Glibc
#endif

/// A hotplug event for an evdev node.
public struct UdevInputEvent: Sendable, Hashable {
    /// What happened to the device.
    public enum Action: Sendable, Hashable {
        case add, remove, change
        /// Anything else udev reports (`bind`, `unbind`, `move`, `online`, …).
        case other(String)

        init(_ text: String) {
            switch text {
            case "add": self = .add
            case "remove": self = .remove
            case "change": self = .change
            default: self = .other(text)
            }
        }
    }

    public var action: Action
    /// The device; for `remove` its properties are those udev last had (devnode included).
    public var device: UdevInputDevice

    public init(action: Action, device: UdevInputDevice) {
        self.action = action
        self.device = device
    }
}

/// Follows udev's hotplug events for subsystem `input` (netlink group `udev`: events
/// udevd has processed, so `ID_INPUT_*` are set).
///
/// Its ``fileDescriptor`` is non-blocking; watch it for readability and call ``receive()``.
/// Create the monitor *before* enumerating devices so no device added in between is
/// missed (a device may then be reported by both; ``LiveInputSource`` ignores duplicates).
public final class UdevMonitor {
    private let context: UdevContext
    private let handle: OpaquePointer

    /// The netlink socket, for epoll. Valid for the monitor's lifetime.
    public let fileDescriptor: FileDescriptor

    /// `udev_monitor_new_from_netlink(udev, "udev")`, filtered to subsystem `input`, receiving.
    public init(context: UdevContext) throws(SystemError) {
        self.context = context
        let monitor = try SystemCall.checkNotNull("udev_monitor_new_from_netlink") {
            udev_monitor_new_from_netlink(context.handle, "udev")
        }
        do throws(SystemError) {
            _ = try SystemCall.checkNegativeErrno("udev_monitor_filter_add_match_subsystem_devtype", path: nil) {
                udev_monitor_filter_add_match_subsystem_devtype(monitor, "input", nil)
            }
            _ = try SystemCall.checkNegativeErrno("udev_monitor_enable_receiving", path: nil) {
                udev_monitor_enable_receiving(monitor)
            }
            let fd = udev_monitor_get_fd(monitor)
            if fd < 0 { throw SystemError(errno: -fd, call: "udev_monitor_get_fd") }
            fileDescriptor = FileDescriptor(rawValue: fd)
            try SystemCall.setNonBlocking(fileDescriptor)
        } catch {
            udev_monitor_unref(monitor)
            throw error
        }
        handle = monitor
    }

    deinit { udev_monitor_unref(handle) }

    /// The next pending hotplug event for an evdev node, or nil when none is pending.
    /// Events for other `input` devices (`inputN`, `mouseN`, `jsN`) are skipped.
    public func receive() -> UdevInputEvent? {
        while let device = udev_monitor_receive_device(handle) {
            defer { udev_device_unref(device) }
            let info = UdevInputDevice(udevDevice: device)
            guard info.isEvdevNode else { continue }
            let action = udev_device_get_action(device).map { String(cString: $0) } ?? "change"
            return UdevInputEvent(action: UdevInputEvent.Action(action), device: info)
        }
        return nil
    }

    /// Every pending hotplug event for evdev nodes, oldest first.
    public func receiveAll() -> [UdevInputEvent] {
        var events: [UdevInputEvent] = []
        while let event = receive() { events.append(event) }
        return events
    }
}
