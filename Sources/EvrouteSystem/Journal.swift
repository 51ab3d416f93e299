#if canImport(Glibc)
import Glibc
#endif
import CLinux

/// journald's native protocol (systemd's "Native Journal Protocol"): one entry per datagram on
/// an `AF_UNIX` `SOCK_DGRAM` socket, its fields `KEY=value` lines, a value that holds a newline
/// in the binary-safe form (`KEY`, newline, its length as a little-endian 64-bit number, the
/// bytes, newline). The log's one encoder of journal fields.
public enum JournalEntry {
    /// journald's socket.
    public static let defaultSocketPath = "/run/systemd/journal/socket"

    /// Begins field `key` in `buffer` (`KEY=`); write its value, then ``endValue(from:in:)`` with
    /// the offset returned (where the value begins).
    @inlinable
    public static func beginValue(_ key: StaticString, in buffer: LogBuffer) -> Int {
        key.withUTF8Buffer { buffer.append($0) }
        buffer.reserve(1)[0] = UInt8(ascii: "=")
        buffer.advance(1)
        return buffer.count
    }

    /// Ends the field whose value began at `start` (``beginValue(_:in:)``): a value with a
    /// newline is turned into the binary-safe form; then the field's newline.
    public static func endValue(from start: Int, in buffer: LogBuffer) {
        let length = buffer.count - start
        if length > 0, memchr(buffer.base + start, 0x0A, length) != nil {
            // `KEY=value` → `KEY\n` + 8 bytes of length + value.
            buffer.reserve(8)
            memmove(buffer.base + start + 8, buffer.base + start, length)
            buffer.base[start - 1] = 0x0A
            var little = UInt64(length).littleEndian
            withUnsafeBytes(of: &little) { raw in
                for i in 0..<8 { buffer.base[start + i] = raw[i] }
            }
            buffer.advance(8)
        }
        buffer.reserve(1)[0] = 0x0A
        buffer.advance(1)
    }

    /// Appends field `key` with text `value`.
    public static func append(_ key: StaticString, _ value: String, to buffer: LogBuffer) {
        let start = beginValue(key, in: buffer)
        var value = value
        value.withUTF8 { buffer.append($0) }
        endValue(from: start, in: buffer)
    }

    /// Appends field `key` with a literal `value` (no newline in it).
    public static func append(_ key: StaticString, _ value: StaticString, to buffer: LogBuffer) {
        let start = beginValue(key, in: buffer)
        value.withUTF8Buffer { buffer.append($0) }
        endValue(from: start, in: buffer)
    }
}

/// A connected datagram socket to journald that never waits: an entry is sent whole or not at
/// all (`EAGAIN`: journald's queue is full; the log keeps it and waits for writability). An
/// entry too large for a datagram (`EMSGSIZE`) goes as a sealed memfd passed with
/// `SCM_RIGHTS` in an empty datagram, as journald expects.
final class JournalSocket {
    let fd: FileDescriptor
    let path: String

    /// Opens a datagram socket and connects it to `path` (connected: the loop can watch it for
    /// writability, which then means journald's queue has room).
    init(path: String) throws(SystemError) {
        guard let address = UnixSocketAddress(path) else { throw SystemError(errno: EINVAL, call: "socket", path: path) }
        let raw = Glibc.socket(AF_UNIX, SocketType.datagram | SocketType.nonBlocking, 0)
        guard raw >= 0 else { throw SystemError(errno: Glibc.errno, call: "socket", path: path) }
        let fd = FileDescriptor(rawValue: raw)
        do throws(SystemError) {
            _ = try SystemCall.retryingInterrupts("connect", path: path) { address.withSockaddr { Glibc.connect(raw, $0, $1) } }
        } catch {
            _ = Glibc.close(raw)
            throw error
        }
        self.fd = fd
        self.path = path
    }

    deinit { _ = Glibc.close(fd.rawValue) }

    /// Sends one entry; false when journald takes no more for now (nothing was sent).
    func send(_ entry: UnsafeRawBufferPointer) throws(SystemError) -> Bool {
        do throws(SystemError) {
            // A datagram goes whole or not at all: writeAll writes it or stops at EAGAIN (0).
            return try SystemCall.writeAll(fd, entry, path: path, socket: true, whenFull: .stop) == entry.count
        } catch let error where error.errno == EMSGSIZE || error.errno == ENOBUFS {
            return try sendThroughMemfd(entry)
        }
    }

    /// The large entry's way: written into a memfd, sealed, and the descriptor sent.
    private func sendThroughMemfd(_ entry: UnsafeRawBufferPointer) throws(SystemError) -> Bool {
        let raw = evroute_memfd("evroute-journal-entry")
        guard raw >= 0 else { throw SystemError(errno: Glibc.errno, call: "memfd_create", path: path) }
        let memfd = FileDescriptor(rawValue: raw)
        defer { _ = Glibc.close(raw) }
        try SystemCall.writeAll(memfd, entry, path: "memfd")
        _ = try SystemCall.retryingInterrupts("fcntl(F_ADD_SEALS)", path: "memfd") { evroute_seal_memfd(raw) }
        return try SystemCall.sendDescriptor(fd, memfd, path: path)
    }
}

extension SystemCall {
    /// Sends descriptor `descriptor` (`SCM_RIGHTS`) in an empty datagram on the connected socket
    /// `socket`, never waiting; false when the receiver takes no more for now (`EAGAIN`).
    public static func sendDescriptor(_ socket: FileDescriptor, _ descriptor: FileDescriptor, path: String? = nil) throws(SystemError) -> Bool {
        do throws(SystemError) {
            _ = try retryingInterrupts("sendmsg(SCM_RIGHTS)", path: path) {
                evroute_send_descriptor(socket.rawValue, descriptor.rawValue, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
            }
            return true
        } catch let error where error.errno == EAGAIN || error.errno == EWOULDBLOCK {
            return false
        }
    }
}
