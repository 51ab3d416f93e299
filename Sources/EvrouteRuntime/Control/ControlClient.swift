#if canImport(Glibc)
import Glibc
#endif
import CLinux
import EvrouteCore
import EvrouteJSON
import EvrouteSystem

/// The client side of the control socket, for `evroute status` and `evroute reload`:
/// connect, send one request line, read one response line. Blocking, with a timeout.
public enum ControlClient {
    /// Why a request got no answer.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        /// The daemon could not take the connection just then (tried again until the retry time is up).
        var retryable = false
        /// The socket refused the connection (`ECONNREFUSED`).
        var refused = false
        /// How many times the request was tried (1: not tried again).
        public internal(set) var attempts = 1

        public init(description: String) { self.description = description }
        init(description: String, retryable: Bool, refused: Bool) {
            self.description = description
            self.retryable = retryable
            self.refused = refused
        }
    }

    /// The default socket path (what the daemon and the systemd unit use).
    public static let defaultPath = "/run/evroute/control.sock"

    /// Sends `request` to the daemon listening on `path` and returns its answer.
    ///
    /// A daemon that is momentarily unable to take the connection — its listen queue full
    /// (`EAGAIN`) or all its control places taken (the `"busy"` answer) — is tried again with a
    /// short backoff (50 ms doubling to 500 ms) for up to `retrySeconds`; a socket that refuses
    /// connections (`ECONNREFUSED`: a daemon restarting, or a socket file left by a dead one)
    /// for up to `refusedRetrySeconds`. Any other failure is reported at once.
    public static func request(_ request: JSONValue, to path: String, timeoutSeconds: Int = 10,
                               retrySeconds: Double = 10, refusedRetrySeconds: Double = 2) throws(Failure) -> JSONValue {
        let start = MonotonicClock.now()
        let giveUp = start + .seconds(retrySeconds), giveUpRefused = start + .seconds(refusedRetrySeconds)
        var delay = Timestamp.Duration.milliseconds(50)
        var attempts = 0
        while true {
            attempts += 1
            var outcome = attempt(request, to: path, timeoutSeconds: timeoutSeconds)
            var deadline = giveUp
            let retryable: Bool
            switch outcome {
            case .success(let answer): retryable = answer[ControlProtocol.busy]?.boolValue == true
            case .failure(var failure):
                retryable = failure.retryable
                if failure.refused { deadline = giveUpRefused }
                failure.attempts = attempts
                outcome = .failure(failure)
            }
            if !retryable || MonotonicClock.now() + delay > deadline { return try outcome.get() }
            MonotonicClock.sleep(until: MonotonicClock.now() + delay)
            delay = Timestamp.Duration(microseconds: min(delay.microseconds * 2, 500_000))
        }
    }

    private struct Attempt: Error {
        var failure: Failure
        var retryable = false
        var refused = false
    }

    private static func attempt(_ request: JSONValue, to path: String, timeoutSeconds: Int) -> Result<JSONValue, Failure> {
        do throws(Attempt) {
            return .success(try connectAndAsk(request, to: path, timeoutSeconds: timeoutSeconds))
        } catch {
            return .failure(Failure(description: error.failure.description, retryable: error.retryable, refused: error.refused))
        }
    }

    private static func connectAndAsk(_ request: JSONValue, to path: String, timeoutSeconds: Int) throws(Attempt) -> JSONValue {
        func fail(_ description: String) -> Attempt { Attempt(failure: Failure(description: description)) }
        guard let address = UnixSocketAddress(path) else { throw fail("\(path): not a usable socket path") }
        let fd = socket(AF_UNIX, SocketType.stream, 0)
        guard fd >= 0 else { throw fail("socket: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        // Connect without waiting: a full listen queue is EAGAIN at once (then tried again)
        // instead of a wait of the whole send timeout.
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
        var connected = address.withSockaddr({ connect(fd, $0, $1) }) == 0
        while !connected && errno == EINTR { connected = address.withSockaddr({ connect(fd, $0, $1) }) == 0 }
        guard connected else {
            let e = errno
            let hint = switch e {
            case ENOENT, ECONNREFUSED: " (is the evroute daemon running? see `systemctl status evroute`)"
            case EACCES: " (only root, the daemon's user and the socket's group may use it)"
            case EAGAIN: " (the daemon is not accepting connections fast enough)"
            default: ""
            }
            var attempt = fail("cannot connect to \(path): \(String(cString: strerror(e)))\(hint)")
            attempt.retryable = e == EAGAIN || e == ECONNREFUSED
            attempt.refused = e == ECONNREFUSED
            throw attempt
        }
        _ = fcntl(fd, F_SETFL, flags)
        let bytes = Array((request.serialized + "\n").utf8)
        // A daemon that refuses the peer answers at once and closes: sending then fails
        // (EPIPE), but its answer ("permission denied") is still there to read. A request
        // (at most 64 KiB, `ControlServer.maximumRequest`) fits in the socket's buffer, so
        // the one write loop never needs to wait here.
        var sendFailure: Int32?
        let sent = bytes.withUnsafeBytes { raw -> Int in
            do throws(SystemError) {
                return try SystemCall.writeAll(FileDescriptor(rawValue: fd), raw, path: path, socket: true, whenFull: .stop)
            } catch {
                sendFailure = error.errno
                return 0
            }
        }
        if sendFailure == nil, sent < bytes.count {
            throw fail("\(path): the daemon took \(sent) of the request's \(bytes.count) bytes and reads no more")
        }
        if let e = sendFailure, e != EPIPE && e != ECONNRESET {
            throw fail("\(path): send: \(String(cString: strerror(e)))")
        }
        shutdown(fd, Int32(SHUT_WR))
        var answer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16384)
        while !answer.contains(0x0A) {
            let n = read(fd, &chunk, chunk.count)
            if n < 0 && errno == EINTR { continue }
            if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { throw fail("\(path): no answer within \(timeoutSeconds) s") }
            guard n > 0 else { break }
            answer += chunk[0..<n]
        }
        guard let newline = answer.firstIndex(of: 0x0A) else {
            if let e = sendFailure { throw fail("\(path): send: \(String(cString: strerror(e)))") }
            throw fail("\(path): the daemon closed the connection without answering")
        }
        do {
            return try JSONValue.parse(String(decoding: answer[..<newline], as: UTF8.self))
        } catch {
            throw fail("\(path): \(error)")
        }
    }
}
