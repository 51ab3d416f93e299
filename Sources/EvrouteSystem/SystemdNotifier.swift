#if canImport(Glibc)
import Glibc
#endif
import CLinux
import EvrouteTime

/// Tells systemd how the service is doing (`sd_notify(3)`, written out by hand so the daemon
/// does not link libsystemd): datagrams of `KEY=value` lines to the `AF_UNIX` socket named by
/// `$NOTIFY_SOCKET` (a leading `@` means the abstract namespace).
///
/// Without `$NOTIFY_SOCKET` (not started by systemd with `Type=notify`) every call is a no-op.
/// The environment variables are removed once read so that plugin processes do not inherit them.
public final class SystemdNotifier {
    /// The socket address, when there is one.
    public let socketPath: String?
    /// The watchdog interval systemd asked for (`$WATCHDOG_USEC`), when it is meant for this process.
    public let watchdogInterval: Timestamp.Duration?
    private var fd: Int32 = -1
    private var address: UnixSocketAddress?

    /// Reads `$NOTIFY_SOCKET`, `$WATCHDOG_USEC` and `$WATCHDOG_PID` and, with `unsetEnvironment`,
    /// removes them from the environment.
    public init(unsetEnvironment: Bool = true) {
        let path = getenv("NOTIFY_SOCKET").map { String(cString: $0) }
        var watchdog: Timestamp.Duration?
        if let usec = getenv("WATCHDOG_USEC").flatMap({ Int64(String(cString: $0)) }), usec > 0 {
            let pid = getenv("WATCHDOG_PID").flatMap { Int32(String(cString: $0)) }
            if pid == nil || pid == getpid() { watchdog = Timestamp.Duration(microseconds: usec) }
        }
        watchdogInterval = watchdog
        if unsetEnvironment {
            unsetenv("NOTIFY_SOCKET")
            unsetenv("WATCHDOG_USEC")
            unsetenv("WATCHDOG_PID")
        }
        socketPath = (path?.isEmpty ?? true) ? nil : path
        guard let socketPath else { return }
        address = UnixSocketAddress(socketPath)
        guard address != nil, socketPath.hasPrefix("/") || socketPath.hasPrefix("@") else { return }
        fd = socket(AF_UNIX, SocketType.datagram, 0)
    }

    deinit { if fd >= 0 { close(fd) } }

    /// Whether notifications go anywhere.
    public var isEnabled: Bool { fd >= 0 }

    /// Sends one notification (`READY=1`, `STATUS=…`, several lines joined by newlines).
    /// Returns false when it could not be sent (no socket, or the send failed).
    @discardableResult
    public func notify(_ lines: String...) -> Bool { notify(lines: lines) }

    /// Sends the lines as one datagram, never waiting: a receiver whose queue is full (systemd
    /// stuck, a test that stopped reading) loses the notification instead of stalling the loop.
    @discardableResult
    public func notify(lines: [String]) -> Bool {
        guard fd >= 0 else { return false }
        var text = lines.joined(separator: "\n")
        guard let address else { return false }
        let sent = text.withUTF8 { bytes in
            address.withSockaddr { sa, length in
                sendto(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT), sa, length)
            }
        }
        return sent == text.utf8.count
    }

    /// `READY=1` with a status line.
    public func ready(status: String) { notify("READY=1", "STATUS=\(status)") }

    /// `STATUS=…` alone.
    public func status(_ status: String) { notify("STATUS=\(status)") }

    /// `RELOADING=1` with `MONOTONIC_USEC` (what `Type=notify-reload` and newer systemd expect).
    public func reloading(at now: Timestamp) {
        notify("RELOADING=1", "MONOTONIC_USEC=\(now.microseconds)", "STATUS=reloading the configuration")
    }

    /// `STOPPING=1`.
    public func stopping() { notify("STOPPING=1", "STATUS=stopping") }

    /// `WATCHDOG=1`.
    public func watchdog() { notify("WATCHDOG=1") }
}
