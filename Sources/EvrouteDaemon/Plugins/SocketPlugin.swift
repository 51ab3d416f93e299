#if canImport(Glibc)
import Glibc
#endif
import CLinux
import EvrouteCore

/// `socket`: a Unix stream socket at `path`; every connected client receives every event
/// as a JSON line. With `answers: true`, a client may answer `{"id":N,"handled":false}` to
/// decline (the first answer wins) within `deadline-ms`; without an answer by then the event
/// counts as `on-timeout` says (default handled). With no client connected, events are
/// declined and walk on. A client whose unsent output passes `max-buffer` is disconnected,
/// never waited on.
final class SocketPlugin: Plugin {
    struct Config {
        var path: String
        var mode: UInt32
        var answers: Bool
        var deadline: Timestamp.Duration
        var declineOnTimeout: Bool
        var maxBuffer: Int
        var maxClients: Int

        init(_ spec: PluginSpec) throws(PluginConfigError) {
            let r = PluginOptionReader(plugin: spec.name, options: spec.options, location: spec.location)
            guard let path = try r.string("path"), !path.isEmpty else { throw r.fail("`path` (the socket's file name) is required") }
            guard path.utf8.count < 108 else { throw r.fail("`path` is longer than a Unix socket path may be (107 bytes)") }
            self.path = path
            mode = try r.fileMode("mode", default: 0o660)
            answers = try r.bool("answers", default: false)
            deadline = try r.milliseconds("deadline-ms", default: 50)
            switch try r.string("on-timeout") ?? "handled" {
            case "handled": declineOnTimeout = false
            case "unhandled": declineOnTimeout = true
            default: throw r.fail("`on-timeout` must be `handled` or `unhandled`")
            }
            maxBuffer = try r.integer("max-buffer", default: 256 * 1024, in: 1024...(64 << 20))
            maxClients = try r.integer("max-clients", default: 64, in: 1...4096)
        }
    }

    private final class Client {
        let fd: Int32
        let number: Int
        let output: OutboundBuffer
        let input: LineReader
        var wantsWritable = false
        init(fd: Int32, number: Int, maxBuffer: Int) {
            self.fd = fd
            self.number = number
            output = OutboundBuffer(fd: fd, limit: maxBuffer, isSocket: true)
            input = LineReader(fd: fd, maximumLineLength: 4096)
        }
    }

    let spec: PluginSpec
    let config: Config
    private let context: PluginContext
    private(set) var statistics: PluginStatistics
    private var listenFD: Int32 = -1
    /// The socket file we created (device, inode), so we only ever unlink our own.
    private var socketFile: (dev: UInt64, ino: UInt64)?
    private var clients: [Int32: Client] = [:]
    private var nextClientNumber = 1
    private let pending: PendingAnswers
    private var garbageLogs = LogRateLimiter()
    private var clientLogs = LogRateLimiter()

    init(spec: PluginSpec, context: PluginContext) throws(PluginConfigError) {
        self.spec = spec
        self.context = context
        config = try Config(spec)
        statistics = PluginStatistics(name: spec.name, type: spec.type)
        pending = PendingAnswers(loop: context.loop, timeout: config.deadline)
        pending.onExpired = { [weak self] entry in self?.expired(entry) }
        updateGauges()
    }

    var liveChildren: [ChildProcess] { [] }

    // MARK: Listening

    func start() {
        do {
            try listen()
            context.log.info("socket \(spec.name): listening on \(config.path)")
        } catch {
            statistics.failures += 1
            statistics.lastError = error.description
            context.log.error("socket \(spec.name): \(error.description); its events are declined")
        }
    }

    struct SocketError: Error, CustomStringConvertible {
        var description: String
    }

    private func listen() throws(SocketError) {
        let path = config.path
        func failure(_ what: String) -> SocketError { SocketError(description: "\(what) \(path): \(String(cString: strerror(errno)))") }
        var st = stat()
        if lstat(path, &st) == 0 {
            guard st.st_mode & S_IFMT == S_IFSOCK else { throw SocketError(description: "\(path) exists and is not a socket") }
            if SocketPlugin.someoneListens(at: path) { throw SocketError(description: "\(path) is in use by another process") }
            unlink(path)
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw failure("socket") }
        var address = SocketPlugin.address(path)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0 else { let e = failure("bind"); close(fd); throw e }
        if chmod(path, mode_t(config.mode)) != 0 { context.log.warning("socket \(spec.name): chmod \(path): \(String(cString: strerror(errno)))") }
        guard Glibc.listen(fd, 16) == 0 else { let e = failure("listen"); close(fd); unlink(path); throw e }
        if lstat(path, &st) == 0 { socketFile = (UInt64(st.st_dev), UInt64(st.st_ino)) }
        do {
            try context.loop.watch(fd) { [weak self] _ in self?.acceptClients() }
        } catch {
            close(fd)
            unlink(path)
            throw SocketError(description: "\(error)")
        }
        listenFD = fd
    }

    static func address(_ path: String) -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, b) in path.utf8.prefix(raw.count - 1).enumerated() { raw[i] = b }
        }
        return address
    }

    /// Whether a live process accepts connections at `path` (a stale socket refuses them).
    static func someoneListens(at path: String) -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = address(path)
        let r = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        return r == 0 || errno == EAGAIN
    }

    private func acceptClients() {
        while true {
            let fd = evroute_accept_nonblocking(listenFD)
            if fd < 0 {
                if errno == EINTR { continue }
                return   // EAGAIN, or a transient error (EMFILE …): try on the next readiness
            }
            guard clients.count < config.maxClients else {
                close(fd)
                statistics.details["clients_refused", default: 0] += 1
                context.log.limited(.warning, &clientLogs, "socket \(spec.name): \(config.maxClients) clients connected; refused one")
                continue
            }
            let client = Client(fd: fd, number: nextClientNumber, maxBuffer: config.maxBuffer)
            nextClientNumber += 1
            client.input.onLine = { [weak self, weak client] line in
                guard let self, let client else { return }
                self.answer(line, from: client)
            }
            do {
                try context.loop.watch(fd) { [weak self, weak client] ready in
                    guard let self, let client else { return }
                    self.serviceClient(client, ready)
                }
            } catch {
                close(fd)
                continue
            }
            clients[fd] = client
            statistics.details["clients_accepted", default: 0] += 1
            context.log.debug("socket \(spec.name): client \(client.number) connected")
            updateGauges()
        }
    }

    private func serviceClient(_ client: Client, _ ready: EventLoop.Readiness) {
        if ready.contains(.writable) {
            switch client.output.flush() {
            case .drained: setWritableInterest(client, false)
            case .pending: break
            case .failed: drop(client, reason: nil); return
            }
        }
        if ready.contains(.readable) || !ready.isDisjoint(with: .hangup) {
            if client.input.readAvailable(budget: 64 * 1024) == .endOfFile {
                drop(client, reason: nil)
            }
        }
    }

    private func setWritableInterest(_ client: Client, _ on: Bool) {
        guard client.wantsWritable != on else { return }
        client.wantsWritable = on
        try? context.loop.change(client.fd, to: on ? [.readable, .writable] : .readable)
    }

    private func drop(_ client: Client, reason: String?) {
        guard clients.removeValue(forKey: client.fd) != nil else { return }
        context.loop.unwatch(client.fd)
        close(client.fd)
        if let reason {
            statistics.details["clients_dropped", default: 0] += 1
            statistics.lastError = "client \(client.number) dropped: \(reason)"
            context.log.limited(.warning, &clientLogs, "socket \(spec.name): client \(client.number) dropped: \(reason)")
        } else {
            context.log.debug("socket \(spec.name): client \(client.number) disconnected")
        }
        updateGauges()
    }

    // MARK: Events

    func deliver(_ d: PluginDelivery) -> HandlerVerdict {
        for client in Array(clients.values) {
            guard client.output.fits(d.json.count) else {
                drop(client, reason: "it reads too slowly (\(client.output.queued) bytes waiting)")
                continue
            }
            switch client.output.send(d.json) {
            case .drained: break
            case .pending: setWritableInterest(client, true)
            case .failed: drop(client, reason: nil)
            }
        }
        guard !clients.isEmpty else {
            statistics.declined += 1
            return .declined
        }
        if config.answers {
            pending.add(id: d.id, event: d.event, handler: d.handler)
            updateGauges()
        } else {
            statistics.handled += 1
        }
        return .handled
    }

    private func answer(_ line: ArraySlice<UInt8>, from client: Client) {
        let settled = pending.settle(line, accepting: config.answers, statistics: &statistics, context: context) { text in
            context.log.limited(.warning, &garbageLogs,
                                "socket \(spec.name): client \(client.number) sent a line that is not an answer: \(text)")
        }
        if settled { updateGauges() }
    }

    private func expired(_ entry: PendingAnswers.Entry) {
        statistics.timedOut += 1
        updateGauges()
        if config.declineOnTimeout { context.continueRouting(entry.event, entry.handler) }
    }

    // MARK: Stopping

    func stop(_ reason: PluginStopReason) {
        let waiting = pending.removeAll()
        for client in Array(clients.values) { drop(client, reason: nil) }
        if listenFD >= 0 {
            context.loop.unwatch(listenFD)
            close(listenFD)
            listenFD = -1
            var st = stat()
            if let file = socketFile, lstat(config.path, &st) == 0, UInt64(st.st_dev) == file.dev, UInt64(st.st_ino) == file.ino {
                unlink(config.path)
            }
            socketFile = nil
        }
        updateGauges()
        if reason == .reload && config.declineOnTimeout {
            for entry in waiting { context.continueRouting(entry.event, entry.handler) }
        }
    }

    private func updateGauges() {
        statistics.details["clients"] = clients.count
        if config.answers { statistics.details["pending"] = pending.count }
    }
}
