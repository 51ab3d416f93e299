#if canImport(Glibc)
import Glibc
#endif
import CLinux
import EvrouteJSON
import EvrouteSystem

/// The client side of the control socket, for `evroute status` and `evroute reload`:
/// connect, send one request line, read one response line. Blocking, with a timeout.
public enum ControlClient {
    /// Why a request got no answer.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// The default socket path (what the daemon and the systemd unit use).
    public static let defaultPath = "/run/evroute/control.sock"

    /// Sends `request` to the daemon listening on `path` and returns its answer.
    public static func request(_ request: JSONValue, to path: String, timeoutSeconds: Int = 10) throws(Failure) -> JSONValue {
        guard let address = UnixSocketAddress(path) else { throw Failure(description: "\(path): not a usable socket path") }
        let fd = socket(AF_UNIX, SocketType.stream, 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard address.withSockaddr({ connect(fd, $0, $1) }) == 0 else {
            let e = errno
            let hint = switch e {
            case ENOENT, ECONNREFUSED: " (is the evroute daemon running? see `systemctl status evroute`)"
            case EACCES: " (only root, the daemon's user and the socket's group may use it)"
            default: ""
            }
            throw Failure(description: "cannot connect to \(path): \(String(cString: strerror(e)))\(hint)")
        }
        var bytes = Array((request.serialized + "\n").utf8)
        var offset = 0
        // A daemon that refuses the peer answers at once and closes: sending then fails
        // (EPIPE), but its answer ("permission denied") is still there to read.
        var sendFailure: Int32?
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { sendFailure = errno; break }
            offset += n
        }
        if let e = sendFailure, e != EPIPE && e != ECONNRESET {
            throw Failure(description: "\(path): send: \(String(cString: strerror(e)))")
        }
        shutdown(fd, Int32(SHUT_WR))
        var answer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16384)
        while !answer.contains(0x0A) {
            let n = read(fd, &chunk, chunk.count)
            if n < 0 && errno == EINTR { continue }
            if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { throw Failure(description: "\(path): no answer within \(timeoutSeconds) s") }
            guard n > 0 else { break }
            answer += chunk[0..<n]
        }
        guard let newline = answer.firstIndex(of: 0x0A) else {
            if let e = sendFailure { throw Failure(description: "\(path): send: \(String(cString: strerror(e)))") }
            throw Failure(description: "\(path): the daemon closed the connection without answering")
        }
        do {
            return try JSONValue.parse(String(decoding: answer[..<newline], as: UTF8.self))
        } catch {
            throw Failure(description: "\(path): \(error)")
        }
    }
}
