#if canImport(Glibc)
import Glibc
#endif
import CLinux

/// Bytes waiting to go out on a non-blocking descriptor (a socket client, a helper's stdin),
/// never more than `limit`. ``send(_:)`` writes at once when it can, ``queue(_:)`` leaves the
/// write to the next ``flush()`` (once per frame); what the descriptor does not take is kept
/// for when it is writable again; it never waits.
public final class OutboundBuffer {
    public enum Result {
        /// Everything written.
        case drained
        /// Some bytes wait: watch the descriptor for writability and call ``flush()``.
        case pending
        /// The descriptor is broken (peer gone): close it.
        case failed(Int32)
    }

    public let fd: FileDescriptor
    public let limit: Int
    /// Sockets use send(MSG_NOSIGNAL) so a vanished peer cannot raise SIGPIPE.
    public let isSocket: Bool
    private var bytes: [UInt8] = []
    private var offset = 0

    public init(fd: FileDescriptor, limit: Int, isSocket: Bool) {
        self.fd = fd
        self.limit = limit
        self.isSocket = isSocket
    }

    /// Bytes queued and not yet written.
    public var queued: Int { bytes.count - offset }

    /// Whether `count` more bytes fit under the limit.
    public func fits(_ count: Int) -> Bool { queued + count <= limit }

    /// Queues `data` (the caller checked ``fits(_:)``) and writes what it can.
    public func send(_ data: [UInt8]) -> Result {
        if queued == 0 {
            bytes.removeAll(keepingCapacity: true)
            offset = 0
            // Fast path: write straight from `data`.
            let n = writeOut(data[...])
            if n < 0 { return .failed(errno) }
            if n == data.count { return .drained }
            bytes.append(contentsOf: data[n...])
            return .pending
        }
        bytes.append(contentsOf: data)
        return flush()
    }

    /// Queues `data` without writing (the caller checked ``fits(_:)``); ``flush()`` writes it.
    /// A frame's lines queued so leave in one write(2).
    public func queue(_ data: [UInt8]) {
        if queued == 0 {
            bytes.removeAll(keepingCapacity: true)
            offset = 0
        }
        bytes.append(contentsOf: data)
    }

    /// Writes as much as the descriptor takes.
    public func flush() -> Result {
        if queued > 0 {
            let n = writeOut(bytes[offset...])
            if n < 0 { return .failed(errno) }
            offset += n
        }
        if queued == 0 {
            bytes.removeAll(keepingCapacity: bytes.capacity <= 64 * 1024)
            offset = 0
            return .drained
        }
        if offset >= 64 * 1024 {
            bytes.removeFirst(offset)
            offset = 0
        }
        return .pending
    }

    /// Bytes written (fewer than `data.count`, maybe 0, when the descriptor is full), or -1
    /// with errno set on a real error.
    private func writeOut(_ data: ArraySlice<UInt8>) -> Int {
        data.withUnsafeBytes { p -> Int in
            do throws(SystemError) {
                return try SystemCall.writeAll(fd, p, socket: isSocket, whenFull: .stop)
            } catch {
                errno = error.errno
                return -1
            }
        }
    }
}
