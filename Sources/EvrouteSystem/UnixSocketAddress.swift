#if canImport(Glibc)
import Glibc
#endif
import CLinux

/// An `AF_UNIX` socket address: a file system path, or an abstract name written with a leading `@`.
public struct UnixSocketAddress {
    private var storage = sockaddr_un()
    /// The length to pass to `bind`, `connect` and `sendto`.
    public let length: socklen_t

    /// Nil when the path is empty or too long for `sun_path` (107 bytes).
    public init?(_ path: String) {
        var bytes = Array(path.utf8)
        guard !bytes.isEmpty else { return nil }
        let abstract = bytes[0] == UInt8(ascii: "@")
        if abstract { bytes[0] = 0 }
        guard bytes.count < MemoryLayout.size(ofValue: storage.sun_path) else { return nil }
        storage.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &storage.sun_path) { p in
            for (i, b) in bytes.enumerated() { p[i] = b }
        }
        length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (abstract ? 0 : 1))
    }

    /// Calls `body` with the address as a `sockaddr` pointer and its length.
    public func withSockaddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        withUnsafePointer(to: storage) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
        }
    }
}

/// A Unix socket's file descriptor flags for `socket(2)`.
public enum SocketType {
    public static let stream = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
    public static let datagram = Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
    public static let nonBlocking = Int32(SOCK_NONBLOCK.rawValue)
}
