#if canImport(Glibc)
import Glibc
#endif
import EvrouteSystem

/// The one Unix-socket line client of the tests (a UI on a `socket` plugin, a control client,
/// a peer that misbehaves). Blocking by default: `send`, then `wait(for:)` / `readLine()` poll
/// with a guard deadline. `attach(to:)` instead serves it from an `EventLoop` (the test drives
/// the loop that also runs the code under test), collecting lines and optionally answering
/// each one.
public final class LineClient {
    public private(set) var fd: Int32
    /// Every complete line received so far, in order.
    public private(set) var lines: [String] = []
    /// How many of `lines` `readLine()` has returned.
    private var consumed = 0
    private var partial: [UInt8] = []
    /// Whether the peer closed the connection (end of file seen while reading).
    public private(set) var sawEndOfFile = false

    /// Connects to `path`. `receiveTimeout` bounds each blocking `recv` (SO_RCVTIMEO).
    public init(path: String, receiveTimeout: Double? = nil) throws {
        fd = socket(AF_UNIX, SocketType.stream, 0)
        guard fd >= 0 else { throw TestSupportError("socket: \(String(cString: strerror(errno)))") }
        if let receiveTimeout {
            var timeout = timeval(tv_sec: Int(receiveTimeout), tv_usec: Int((receiveTimeout - receiveTimeout.rounded(.down)) * 1e6))
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        }
        guard let address = UnixSocketAddress(path), address.withSockaddr({ connect(fd, $0, $1) }) == 0 else {
            let e = errno
            close()  // and forget the number: the deinit that follows a throwing init must not close it again
            throw TestSupportError("connect \(path): \(String(cString: strerror(e)))")
        }
    }

    /// A connection the test accepted (a fake peer's end).
    public init(adopting fd: Int32) { self.fd = fd }

    deinit { close() }

    public func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }

    /// Serves the client from `loop`: every line received is appended to `lines`; `answer`,
    /// when given, is asked about each line and what it returns is sent back.
    public func attach(to loop: EventLoop, answer: ((String) -> String?)? = nil) throws {
        try SystemCall.setNonBlocking(FileDescriptor(rawValue: fd))
        try loop.watch(FileDescriptor(rawValue: fd)) { [unowned self] _ in
            var buf = [UInt8](repeating: 0, count: 65536)
            let n = read(self.fd, &buf, buf.count)
            if n <= 0 {
                if n == 0 { self.sawEndOfFile = true }
                loop.unwatch(FileDescriptor(rawValue: self.fd))
                return
            }
            for line in self.take(buf[0..<n]) {
                if let answer, let reply = answer(line) { self.send(reply) }
            }
        }
    }

    /// Makes the descriptor non-blocking (for tests that must never wait on it).
    public func setNonBlocking() throws { try SystemCall.setNonBlocking(FileDescriptor(rawValue: fd)) }

    /// Sends `text` as it is (add the newline); the bytes sent, or -1. Never raises SIGPIPE;
    /// with `wait: false` it does not block either (MSG_DONTWAIT).
    @discardableResult
    public func send(_ text: String, wait: Bool = true) -> Int {
        send(Array(text.utf8)[...], wait: wait)
    }

    @discardableResult
    public func send(_ bytes: ArraySlice<UInt8>, wait: Bool = true) -> Int {
        let flags = Int32(MSG_NOSIGNAL) | (wait ? 0 : Int32(MSG_DONTWAIT))
        return bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, flags) }
    }

    /// Sends all of `text` (blocking), however many writes it takes; stops at the first failure.
    /// The bytes sent.
    @discardableResult
    public func sendAll(_ text: String) -> Int {
        let bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let n = send(bytes[sent...])
            if n <= 0 { break }
            sent += n
        }
        return sent
    }

    /// Half-closes the connection: the peer sees the end of input.
    public func shutdownWriting() { shutdown(fd, Int32(SHUT_WR)) }

    /// Reads until a line satisfies `predicate` (returns it; lines already received count too)
    /// or the guard deadline / end of file (nil).
    public func wait(seconds: Double = 20, for predicate: (String) -> Bool) -> String? {
        if let l = lines.first(where: predicate) { return l }
        let deadline = monotonicSeconds() + seconds
        let start = lines.count
        while receiveOnce(until: deadline) {
            if let l = lines[start...].first(where: predicate) { return l }
        }
        return nil
    }

    /// The next line not returned before, waiting up to `seconds`; nil at the deadline or end of file.
    public func readLine(seconds: Double = 10) -> String? {
        let deadline = monotonicSeconds() + seconds
        while consumed == lines.count {
            guard receiveOnce(until: deadline) else { return nil }
        }
        consumed += 1
        return lines[consumed - 1]
    }

    /// Every byte readable now, up to end of file or (blocking descriptors) the receive
    /// timeout, as text; lines kept in `lines` are not repeated.
    public func readAll() -> String {
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { if n == 0 { sawEndOfFile = true }; break }
            out += buffer[0..<n]
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Whether the peer has closed the connection (no data waiting, end of file), without blocking.
    public var isClosedByPeer: Bool {
        var byte: UInt8 = 0
        return recv(fd, &byte, 1, Int32(MSG_DONTWAIT | MSG_PEEK)) == 0
    }

    /// Whether a byte is waiting, without blocking or consuming it.
    public var hasData: Bool {
        var byte: UInt8 = 0
        return recv(fd, &byte, 1, Int32(MSG_DONTWAIT | MSG_PEEK)) == 1
    }

    /// One read (waiting until `deadline`); false at the deadline, end of file or an error.
    private func receiveOnce(until deadline: Double) -> Bool {
        guard fd >= 0, waitReadable(fd, until: deadline) else { return false }
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = recv(fd, &chunk, chunk.count, 0)
        if n < 0 && (errno == EINTR || errno == EAGAIN) { return true }
        if n <= 0 { if n == 0 { sawEndOfFile = true }; return false }
        _ = take(chunk[0..<n])
        return true
    }

    /// Appends the complete lines in `bytes` (with what was left over before); the new lines.
    private func take(_ bytes: ArraySlice<UInt8>) -> [String] {
        partial += bytes
        var new: [String] = []
        while let nl = partial.firstIndex(of: 0x0A) {
            new.append(String(decoding: partial[..<nl], as: UTF8.self))
            partial.removeSubrange(...nl)
        }
        lines += new
        return new
    }
}
