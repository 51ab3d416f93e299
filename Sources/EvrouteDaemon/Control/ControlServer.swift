#if canImport(Glibc)
import Glibc
#endif
import CLinux

/// The daemon's control socket (`evroute status`, `evroute reload`): a Unix stream socket served
/// on the event loop, never blocking it. A client writes one JSON object per line
/// (`{"command":"status"}`) and reads one JSON object per line back; it may send several
/// requests on one connection, and closes it when done.
///
/// Who may connect: the socket file is mode 0660, and each accepted peer's credentials
/// (`SO_PEERCRED`) are checked too — root, the daemon's own user, and members of the socket
/// file's group (primary or supplementary, read from `/proc/PID/status`) are served; anyone
/// else gets `{"ok":false,"error":"permission denied"}` and is disconnected.
public final class ControlServer {
    /// A failure to set the socket up.
    public struct SetupError: Error, CustomStringConvertible {
        public var description: String
    }

    /// The socket's path.
    public let path: String
    /// Answers one request. Runs on the event loop.
    public var handleRequest: (JSONValue) -> JSONValue
    /// Requests answered so far.
    public private(set) var requests = 0

    private let loop: EventLoop
    private let log: Log
    private var listenFD: Int32 = -1
    private var socketGroup: gid_t = 0
    private var clients: [Int32: Client] = [:]

    /// Most clients served at once; more wait in the listen backlog.
    static let maximumClients = 16
    /// Longest accepted request line.
    static let maximumRequest = 64 * 1024

    final class Client {
        var input: [UInt8] = []
        var output: [UInt8] = []
        var closeWhenFlushed = false
    }

    /// Creates, binds (mode 0660; the parent directory is created 0755 when missing) and
    /// listens on `path`. A stale socket file left by a dead daemon is replaced; a live one
    /// (something answers on it) is an error, as is a path that exists and is not a socket.
    public init(path: String, loop: EventLoop, log: Log, handleRequest: @escaping (JSONValue) -> JSONValue) throws(SetupError) {
        self.path = path
        self.loop = loop
        self.log = log
        self.handleRequest = handleRequest
        guard path.hasPrefix("/") || path.hasPrefix("."), let address = UnixSocketAddress(path) else {
            throw SetupError(description: "control socket \(path): not a usable socket path (absolute, at most 107 bytes)")
        }
        try ControlServer.makeParentDirectory(of: path)
        try ControlServer.removeStale(path, address: address)
        let fd = socket(AF_UNIX, SocketType.stream | SocketType.nonBlocking, 0)
        guard fd >= 0 else { throw SetupError(description: "control socket: socket: \(String(cString: strerror(errno)))") }
        let oldMask = umask(0o117)
        let bound = address.withSockaddr { bind(fd, $0, $1) }
        let bindErrno = errno
        umask(oldMask)
        guard bound == 0 else {
            close(fd)
            throw SetupError(description: "control socket \(path): bind: \(String(cString: strerror(bindErrno)))")
        }
        chmod(path, 0o660)
        guard listen(fd, 16) == 0 else {
            let e = errno
            close(fd)
            unlink(path)
            throw SetupError(description: "control socket \(path): listen: \(String(cString: strerror(e)))")
        }
        var st = stat()
        socketGroup = stat(path, &st) == 0 ? st.st_gid : getegid()
        listenFD = fd
        do {
            try loop.watch(fd) { [unowned self] _ in self.acceptClients() }
        } catch {
            close(fd)
            unlink(path)
            throw SetupError(description: "control socket: \(error)")
        }
    }

    deinit { shutdown() }

    /// Connected clients.
    public var clientCount: Int { clients.count }

    /// Closes every connection and the listening socket, and removes the socket file.
    public func shutdown() {
        for fd in Array(clients.keys) { drop(fd) }
        if listenFD >= 0 {
            loop.unwatch(listenFD)
            close(listenFD)
            listenFD = -1
            unlink(path)
        }
    }

    // MARK: Setup

    static func makeParentDirectory(of path: String) throws(SetupError) {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return }
        let parent = String(path[..<slash])
        var st = stat()
        if stat(parent, &st) == 0 { return }
        try makeParentDirectory(of: parent)
        if mkdir(parent, 0o755) != 0 && errno != EEXIST {
            throw SetupError(description: "control socket: cannot create \(parent): \(String(cString: strerror(errno)))")
        }
    }

    static func removeStale(_ path: String, address: UnixSocketAddress) throws(SetupError) {
        var st = stat()
        guard lstat(path, &st) == 0 else { return }
        guard (st.st_mode & S_IFMT) == S_IFSOCK else {
            throw SetupError(description: "control socket \(path): exists and is not a socket")
        }
        let probe = socket(AF_UNIX, SocketType.stream, 0)
        defer { close(probe) }
        if address.withSockaddr({ connect(probe, $0, $1) }) == 0 {
            throw SetupError(description: "control socket \(path): another evroute daemon is listening on it")
        }
        unlink(path)
    }

    // MARK: Connections

    private func acceptClients() {
        while clients.count < ControlServer.maximumClients {
            let fd = accept(listenFD, nil, nil)
            guard fd >= 0 else { return }   // EAGAIN: all accepted
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            let client = Client()
            clients[fd] = client
            do {
                try loop.watch(fd) { [unowned self] ready in self.service(fd, ready) }
            } catch {
                clients[fd] = nil
                close(fd)
                continue
            }
            if !isAuthorized(fd) {
                log.warning("control socket: refused a client without permission")
                respond(fd, client, .object([("ok", .bool(false)), ("error", .string("permission denied"))]))
                client.closeWhenFlushed = true
                flush(fd, client)
            }
        }
        // At the limit: stop accepting until a client leaves (the backlog holds the rest).
        loop.unwatch(listenFD)
    }

    /// Root, the daemon's user, or a member of the socket file's group.
    private func isAuthorized(_ fd: Int32) -> Bool {
        var cred: (pid: Int32, uid: UInt32, gid: UInt32) = (0, 0, 0)
        var length = socklen_t(MemoryLayout.size(ofValue: cred))
        guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &length) == 0 else { return false }
        if cred.uid == 0 || cred.uid == geteuid() || cred.gid == socketGroup { return true }
        return ControlServer.supplementaryGroups(of: cred.pid).contains(socketGroup)
    }

    /// The `Groups:` line of `/proc/PID/status`.
    static func supplementaryGroups(of pid: Int32) -> [gid_t] {
        let fd = open("/proc/\(pid)/status", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return [] }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = read(fd, &chunk, chunk.count)
            if n <= 0 { break }
            bytes += chunk[0..<n]
        }
        let text = String(decoding: bytes, as: UTF8.self)
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("Groups:") }) else { return [] }
        return line.dropFirst("Groups:".count).split(whereSeparator: { $0 == " " || $0 == "\t" }).compactMap { gid_t($0) }
    }

    private func service(_ fd: Int32, _ ready: EventLoop.Readiness) {
        guard let client = clients[fd] else { return }
        if ready.contains(.writable) { flush(fd, client) }
        guard clients[fd] != nil else { return }
        if ready.contains(.readable) || ready.contains(.hangup) { receive(fd, client) }
    }

    private func receive(_ fd: Int32, _ client: Client) {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = read(fd, &chunk, chunk.count)
            if n > 0 {
                if !client.closeWhenFlushed { client.input += chunk[0..<n] }
                continue
            }
            if n < 0 && (errno == EAGAIN || errno == EINTR) { break }
            // End of input (or an error): answer what is complete, then close once written.
            client.closeWhenFlushed = true
            break
        }
        while let newline = client.input.firstIndex(of: 0x0A) {
            let line = String(decoding: client.input[..<newline], as: UTF8.self)
            client.input.removeSubrange(...newline)
            if line.allSatisfy({ $0 == " " || $0 == "\r" }) { continue }
            respond(fd, client, answer(line))
        }
        if client.input.count > ControlServer.maximumRequest {
            respond(fd, client, .object([("ok", .bool(false)), ("error", .string("request line too long"))]))
            client.input.removeAll()
            client.closeWhenFlushed = true
        }
        flush(fd, client)
    }

    private func answer(_ line: String) -> JSONValue {
        requests += 1
        do {
            return handleRequest(try JSONValue.parse(line))
        } catch {
            return .object([("ok", .bool(false)), ("error", .string("\(error)"))])
        }
    }

    private func respond(_ fd: Int32, _ client: Client, _ response: JSONValue) {
        client.output += Array((response.serialized + "\n").utf8)
    }

    private func flush(_ fd: Int32, _ client: Client) {
        while !client.output.isEmpty {
            let n = client.output.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n > 0 { client.output.removeFirst(n); continue }
            if n < 0 && errno == EINTR { continue }
            if n < 0 && errno == EAGAIN {
                try? loop.change(fd, to: client.closeWhenFlushed ? .writable : [.readable, .writable])
                return
            }
            drop(fd)   // the client went away
            return
        }
        if client.closeWhenFlushed {
            drop(fd)
        } else {
            try? loop.change(fd, to: .readable)
        }
    }

    private func drop(_ fd: Int32) {
        guard clients.removeValue(forKey: fd) != nil else { return }
        loop.unwatch(fd)
        close(fd)
        if listenFD >= 0 && clients.count == ControlServer.maximumClients - 1 {
            try? loop.watch(listenFD) { [unowned self] _ in self.acceptClients() }
        }
    }
}
