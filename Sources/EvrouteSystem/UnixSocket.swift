#if canImport(Glibc)
import Glibc
#endif
import CLinux
import EvrouteTime

/// A listening Unix stream socket served on the event loop: evroute's one listener, shared by
/// the control socket and the `socket` plugin. Each accepted peer becomes a ``LineConnection``.
///
/// Setting up: a stale socket file (left by a process that died) is replaced; one something
/// still answers on is an error, as is a path that exists and is not a socket. The file gets
/// `mode` (set through the umask while binding, so it is never wider even for an instant), and
/// is removed by ``close()`` only if it is still the file this listener created.
///
/// At the descriptor limit (`accept` fails with `EMFILE` or `ENFILE`) the pending connection
/// stays queued and the listening socket stays readable: watched level-triggered, it would wake
/// the loop again at once, forever. So the listener then (1) gives up its *reserve descriptor*
/// (one `/dev/null` it holds open for this) for a moment, accepts the peer at the head of the
/// queue, writes it the ``refusal`` for ``Refusal/outOfDescriptors`` and closes it — the peer
/// is told at once instead of hanging — and opens the reserve again; (2) stops watching the
/// socket until one of its own connections closes (a descriptor is free again) or a timer
/// (100 ms, doubling up to 2 s while the limit lasts; the loop's one timer facility) tries
/// again. ``onDescriptorLimit`` is told, for the log.
///
/// With ``servesOnReserve`` (the control socket), the peer accepted on the reserve's place is
/// served instead of refused: an operator's `status` is answered even while other clients hold
/// every descriptor. One such connection at a time; the reserve is opened again when it closes.
public final class UnixListener {
    /// What happens to a peer that connects while ``maximumConnections`` are open.
    public enum Overflow: Sendable {
        /// Stop accepting until a connection closes: the kernel's backlog holds the rest.
        case wait
        /// Accept and close it at once (``onRefused`` is told).
        case refuse
    }

    public let path: String
    /// The socket file's group (a peer in it may be authorized).
    public private(set) var group: gid_t = 0
    /// Connections open at once, at most.
    public let maximumConnections: Int
    public let overflow: Overflow
    /// Called for each accepted connection; set its `onLine` and `onClose` here.
    public var onConnection: (LineConnection) -> Void = { _ in }
    /// Called when a peer was refused under ``Overflow/refuse``.
    public var onRefused: () -> Void = {}
    /// Why a peer is refused.
    public enum Refusal: Sendable {
        /// ``maximumConnections`` are open (under ``Overflow/refuse``).
        case full
        /// The process is at its descriptor limit (`EMFILE`, `ENFILE`).
        case outOfDescriptors
    }
    /// The line written to a refused peer before it is closed (one line, so a client learns why
    /// instead of seeing the connection drop); nil: closed without a word.
    public var refusal: (Refusal) -> [UInt8]? = { _ in nil }
    /// `accept` failed with `errno` (`EMFILE` or `ENFILE`): the listener pauses for `pause`
    /// (or until one of its connections closes).
    public var onDescriptorLimit: (_ errno: Int32, _ pause: Timestamp.Duration) -> Void = { _, _ in }
    /// A connection that completes no line for this long is closed (its ``LineConnection/onIdle``
    /// is told first); nil: connections may stay idle. Applies to connections accepted after it is set.
    public var idleTimeout: Timestamp.Duration?
    /// The kernel's queue of connections not yet accepted (`listen(2)`'s backlog, capped by
    /// `net.core.somaxconn`).
    public static let backlog: Int32 = 4096
    /// Line and output limits of accepted connections.
    public let maximumLineLength: Int
    public let maximumOutput: Int

    private let loop: EventLoop
    private var fd = FileDescriptor.invalid
    private var file: (dev: UInt64, ino: UInt64)?
    private var connections: [ObjectIdentifier: LineConnection] = [:]
    private var accepting = false
    private var nextNumber = 1
    /// Held open to be given up at the descriptor limit (see the type's documentation).
    private var reserve = FileDescriptor.invalid
    /// At the descriptor limit, serve the peer accepted on the reserve's place rather than refuse
    /// it (see the type's documentation).
    public var servesOnReserve = false
    /// The connection served on the reserve's place, while it is open.
    private var onReserve: ObjectIdentifier?
    /// The next pause at the descriptor limit, and the timer of the current one.
    private var limitPause = UnixListener.firstLimitPause
    private var limitTimer: EventLoop.TimerID?
    static let firstLimitPause = Timestamp.Duration.milliseconds(100)
    static let longestLimitPause = Timestamp.Duration.seconds(2)

    /// Creates, binds (creating missing parent directories 0755 when asked) and listens.
    /// Errors are ``SystemError``s naming the call and the path; a live socket already there is
    /// `EADDRINUSE`, a path that is not a socket `ENOTSOCK`.
    public init(path: String, mode: mode_t, loop: EventLoop, maximumConnections: Int, overflow: Overflow,
                maximumLineLength: Int, maximumOutput: Int, createParentDirectories: Bool = false) throws(SystemError) {
        self.path = path
        self.loop = loop
        self.maximumConnections = max(1, maximumConnections)
        self.overflow = overflow
        self.maximumLineLength = maximumLineLength
        self.maximumOutput = maximumOutput
        guard let address = UnixSocketAddress(path), !path.hasPrefix("@") else {
            throw SystemError(errno: ENAMETOOLONG, call: "bind", path: path)
        }
        if createParentDirectories { try UnixListener.makeParentDirectories(of: path) }
        try UnixListener.removeStale(path, address: address)
        let socketFD = FileDescriptor(rawValue: try SystemCall.retryingInterrupts("socket", path: path) {
            socket(AF_UNIX, SocketType.stream | SocketType.nonBlocking, 0)
        })
        do throws(SystemError) {
            let oldMask = umask(~mode & 0o777)
            defer { umask(oldMask) }
            _ = try SystemCall.retryingInterrupts("bind", path: path) { address.withSockaddr { bind(socketFD.rawValue, $0, $1) } }
            chmod(path, mode)
            _ = try SystemCall.retryingInterrupts("listen", path: path) { listen(socketFD.rawValue, UnixListener.backlog) }
            var st = stat()
            if lstat(path, &st) == 0 {
                file = (UInt64(st.st_dev), UInt64(st.st_ino))
                group = st.st_gid
            } else {
                group = getegid()
            }
            fd = socketFD
            reserve = UnixListener.openReserve()
            try resumeAccepting()
        } catch {
            try? SystemCall.close(socketFD)
            if file != nil { unlink(path) }
            fd = .invalid
            throw error
        }
    }

    deinit { close() }

    /// Open connections.
    public var connectionCount: Int { connections.count }

    /// Closes every connection and the listening socket, and removes the socket file if it is
    /// still ours.
    public func close() {
        for connection in Array(connections.values) { connection.close() }
        if let limitTimer { loop.cancel(limitTimer); self.limitTimer = nil }
        if reserve.isValid { try? SystemCall.close(reserve); reserve = .invalid }
        guard fd.isValid else { return }
        loop.unwatch(fd)
        try? SystemCall.close(fd)
        fd = .invalid
        var st = stat()
        if let file, lstat(path, &st) == 0, UInt64(st.st_dev) == file.dev, UInt64(st.st_ino) == file.ino {
            unlink(path)
        }
        file = nil
    }

    private func resumeAccepting() throws(SystemError) {
        guard !accepting, fd.isValid else { return }
        if let limitTimer { loop.cancel(limitTimer); self.limitTimer = nil }
        if !reserve.isValid { reserve = UnixListener.openReserve() }
        try loop.watch(fd) { [unowned self] _ in acceptConnections() }
        accepting = true
    }

    private static func openReserve() -> FileDescriptor {
        FileDescriptor(rawValue: open("/dev/null", O_RDONLY | O_CLOEXEC))
    }

    /// `accept` failed with EMFILE / ENFILE: refuse the peer at the head of the queue with the
    /// reserve descriptor, then stop watching until a connection closes or the pause ends.
    private func pauseAtDescriptorLimit(_ error: Int32) {
        if reserve.isValid {
            try? SystemCall.close(reserve)
            reserve = .invalid
            let accepted = evroute_accept_nonblocking(fd.rawValue)
            if accepted >= 0 {
                let peer = FileDescriptor(rawValue: accepted)
                if servesOnReserve && onReserve == nil && connections.count < maximumConnections {
                    // The peer has the reserve's place until it leaves (then the reserve is
                    // opened again): no reserve meanwhile, so later peers wait in the backlog.
                    if let connection = serve(peer) { onReserve = ObjectIdentifier(connection) }
                } else {
                    refuse(peer, .outOfDescriptors)
                }
            }
            // May fail while the limit lasts: tried again on resuming.
            if onReserve == nil { reserve = UnixListener.openReserve() }
        }
        loop.unwatch(fd)
        accepting = false
        let pause = limitPause
        limitPause = Timestamp.Duration(microseconds: min(pause.microseconds * 2, UnixListener.longestLimitPause.microseconds))
        limitTimer = loop.schedule(after: pause) { [weak self] in
            guard let self else { return }
            limitTimer = nil
            try? resumeAccepting()
        }
        onDescriptorLimit(error, pause)
    }

    /// Writes the refusal line to a peer just accepted, and closes it.
    private func refuse(_ peer: FileDescriptor, _ why: Refusal) {
        if let line = refusal(why) {
            // The new socket's buffer is empty: one short line always fits, never blocks.
            _ = line.withUnsafeBytes { Glibc.send(peer.rawValue, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
        }
        try? SystemCall.close(peer)
    }

    private func acceptConnections() {
        while fd.isValid {
            if connections.count >= maximumConnections && overflow == .wait {
                loop.unwatch(fd)   // the backlog holds the rest until a connection closes
                accepting = false
                return
            }
            let accepted = evroute_accept_nonblocking(fd.rawValue)
            if accepted < 0 {
                let error = errno
                if error == EINTR { continue }
                if error == EMFILE || error == ENFILE { pauseAtDescriptorLimit(error) }
                return   // EAGAIN, or a transient error: try on the next readiness
            }
            limitPause = UnixListener.firstLimitPause
            let peer = FileDescriptor(rawValue: accepted)
            if connections.count >= maximumConnections {
                refuse(peer, .full)
                onRefused()
                continue
            }
            serve(peer)
        }
    }

    /// Starts serving an accepted peer (``onConnection``); nil when it could not be watched.
    @discardableResult
    private func serve(_ peer: FileDescriptor) -> LineConnection? {
        let connection = LineConnection(fd: peer, number: nextNumber, loop: loop,
                                        maximumLineLength: maximumLineLength, maximumOutput: maximumOutput,
                                        idleTimeout: idleTimeout)
        nextNumber += 1
        do {
            try connection.start()
        } catch {
            try? SystemCall.close(peer)
            return nil
        }
        let key = ObjectIdentifier(connection)
        connections[key] = connection
        connection.listenerClosed = { [weak self] in
            guard let self else { return }
            connections[key] = nil
            if onReserve == key {
                // Its descriptor is closed: the reserve takes the place back.
                onReserve = nil
                if !reserve.isValid { reserve = UnixListener.openReserve() }
            }
            if !accepting { try? resumeAccepting() }
        }
        onConnection(connection)
        return connection
    }

    // MARK: Setup

    static func makeParentDirectories(of path: String) throws(SystemError) {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return }
        let parent = String(path[..<slash])
        var st = stat()
        if stat(parent, &st) == 0 { return }
        try makeParentDirectories(of: parent)
        if mkdir(parent, 0o755) != 0 && errno != EEXIST { throw SystemError(errno: errno, call: "mkdir", path: parent) }
    }

    /// Removes a socket file nobody answers on; refuses a live one or a file that is not a socket.
    static func removeStale(_ path: String, address: UnixSocketAddress) throws(SystemError) {
        var st = stat()
        guard lstat(path, &st) == 0 else { return }
        guard (st.st_mode & S_IFMT) == S_IFSOCK else { throw SystemError(errno: ENOTSOCK, call: "bind", path: path) }
        let probe = socket(AF_UNIX, SocketType.stream | SocketType.nonBlocking, 0)
        if probe >= 0 {
            defer { Glibc.close(probe) }
            let r = address.withSockaddr { connect(probe, $0, $1) }
            if r == 0 || errno == EAGAIN { throw SystemError(errno: EADDRINUSE, call: "bind", path: path) }
        }
        unlink(path)
    }
}

/// One connected stream socket on the loop, read as lines and written through a bounded
/// buffer: reading never blocks (at most a budget per wakeup, so one flooding peer cannot
/// starve the loop), writing never waits (what the socket does not take is queued, up to
/// `maximumOutput`).
///
/// A line whose answer comes later (a reload's, when its compile ends) ``hold()``s the
/// connection: the lines after it wait, in order, until ``resume()``; the socket is not read
/// meanwhile (the kernel's buffer holds what the peer sends on), the idle timeout does not run,
/// and a peer that shut down only its sending side still gets the answer before the connection
/// closes. A peer that hangs up entirely meanwhile is closed at once.
public final class LineConnection {
    /// Why ``send(_:)`` did not queue the bytes.
    public enum SendFailure: Error, Sendable {
        /// The peer reads too slowly: the bytes would pass `maximumOutput` (nothing was queued).
        case overLimit
        /// The peer is gone; the connection is closed.
        case closed
    }

    public let fd: FileDescriptor
    /// 1, 2, … in the order a listener accepted them (for messages).
    public let number: Int
    /// A complete line from the peer (without its newline).
    public var onLine: (ArraySlice<UInt8>) -> Void = { _ in }
    /// A line longer than the limit arrived: its first `maximumLineLength` bytes (the line is
    /// refused whole: none of it goes to ``onLine``; the rest, up to its newline, is discarded).
    public var onOverlong: (ArraySlice<UInt8>) -> Void = { _ in }
    /// The connection closed (the peer left, an error, or ``close()``); called once.
    public var onClose: () -> Void = {}
    /// The peer completed no line within the idle timeout; the connection closes right after.
    public var onIdle: () -> Void = {}
    /// How long the peer may go without completing a line (nil: forever).
    public let idleTimeout: Timestamp.Duration?
    private var lastLine = Timestamp.zero
    private var idleTimer: EventLoop.TimerID?
    var listenerClosed: () -> Void = {}

    private let loop: EventLoop
    private let reader: LineReader
    private let output: OutboundBuffer
    private var interest: EventLoop.Readiness = .readable
    private var closeAfterFlush = false
    public private(set) var isClosed = false
    /// Between ``hold()`` and ``resume()``.
    public private(set) var isHeld = false
    /// What arrived after the line that held the connection, delivered on ``resume()``.
    private enum HeldInput {
        case line([UInt8])
        case overlong([UInt8])
    }
    private var heldInput: [HeldInput] = []
    /// The peer's end of input was read while held: close once the answer is out.
    private var inputEnded = false

    init(fd: FileDescriptor, number: Int, loop: EventLoop, maximumLineLength: Int, maximumOutput: Int,
         idleTimeout: Timestamp.Duration? = nil) {
        self.fd = fd
        self.number = number
        self.loop = loop
        self.idleTimeout = idleTimeout
        reader = LineReader(fd: fd, maximumLineLength: maximumLineLength)
        output = OutboundBuffer(fd: fd, limit: maximumOutput, isSocket: true)
    }

    func start() throws(SystemError) {
        let timed = idleTimeout != nil
        reader.onLine = { [unowned self] line in
            if closeAfterFlush { return }
            if isHeld { heldInput.append(.line(Array(line))); return }
            if timed { lastLine = MonotonicClock.now() }
            onLine(line)
        }
        reader.onOverlong = { [unowned self] prefix in
            if closeAfterFlush { return }
            if isHeld { heldInput.append(.overlong(Array(prefix))) } else { onOverlong(prefix) }
        }
        if let idleTimeout {
            lastLine = MonotonicClock.now()
            armIdleTimer(at: lastLine + idleTimeout)
        }
        try loop.watch(fd) { [unowned self] ready in service(ready) }
    }

    /// Holds the connection until ``resume()``: call it when the line just delivered is answered
    /// later. Lines already read wait in order; the socket is not read; the idle timer stops.
    public func hold() {
        guard !isClosed, !isHeld else { return }
        isHeld = true
        if let idleTimer { loop.cancel(idleTimer); self.idleTimer = nil }
        updateInterest()
    }

    /// Ends a ``hold()`` (after the answer was sent): the lines that waited are delivered in order
    /// (one of them may hold the connection again), reading goes on, and the idle time counts
    /// from now. A peer whose end of input came meanwhile is closed once its answers are written.
    public func resume() {
        guard isHeld else { return }
        isHeld = false
        guard !isClosed else { return }
        if let idleTimeout {
            lastLine = MonotonicClock.now()
            if idleTimer == nil { armIdleTimer(at: lastLine + idleTimeout) }
        }
        while !isHeld, !isClosed, !closeAfterFlush, !heldInput.isEmpty {
            switch heldInput.removeFirst() {
            case .line(let line): onLine(line[...])
            case .overlong(let prefix): onOverlong(prefix[...])
            }
        }
        guard !isHeld, !isClosed, !closeAfterFlush else { return }
        if inputEnded { closeWhenFlushed() } else { updateInterest() }
    }

    /// One timer per connection, re-armed from the last line when it fires (a line costs a
    /// clock read, not a timer change).
    private func armIdleTimer(at deadline: Timestamp) {
        idleTimer = loop.schedule(at: deadline) { [weak self] in
            guard let self, !isClosed, !isHeld, let timeout = idleTimeout else { return }
            idleTimer = nil
            let due = lastLine + timeout
            if MonotonicClock.now() < due { armIdleTimer(at: due); return }
            onIdle()
            close()
        }
    }

    /// Bytes queued and not yet taken by the socket.
    public var queuedBytes: Int { output.queued }

    /// The peer's pid, uid and gid (`SO_PEERCRED`), as of when it connected.
    public var peerCredentials: (pid: pid_t, uid: uid_t, gid: gid_t)? {
        var cred: (pid: Int32, uid: UInt32, gid: UInt32) = (0, 0, 0)
        var length = socklen_t(MemoryLayout.size(ofValue: cred))
        guard getsockopt(fd.rawValue, SOL_SOCKET, SO_PEERCRED, &cred, &length) == 0 else { return nil }
        return (cred.pid, cred.uid, cred.gid)
    }

    /// The peer's supplementary groups (`SO_PEERGROUPS`, Linux 4.13+), as of when it
    /// connected: the kernel's own record, so it needs no `/proc` (it works when the peer's
    /// `/proc/PID` is hidden, as under `ProtectProc=invisible`). nil when the kernel cannot tell
    /// (older than 4.13).
    public var peerGroups: [gid_t]? {
        var groups = [gid_t](repeating: 0, count: 64)
        while true {
            var length = socklen_t(groups.count * MemoryLayout<gid_t>.size)
            if getsockopt(fd.rawValue, SOL_SOCKET, evroute_so_peergroups, &groups, &length) == 0 {
                return Array(groups.prefix(Int(length) / MemoryLayout<gid_t>.size))
            }
            // ERANGE: the buffer was too small and `length` is what it takes (at most NGROUPS_MAX).
            guard errno == ERANGE, Int(length) > groups.count * MemoryLayout<gid_t>.size else { return nil }
            groups = [gid_t](repeating: 0, count: Int(length) / MemoryLayout<gid_t>.size)
        }
    }

    /// Queues `bytes` and writes what the socket takes now.
    public func send(_ bytes: [UInt8]) throws(SendFailure) {
        guard !isClosed else { throw .closed }
        guard output.fits(bytes.count) else { throw .overLimit }
        try writeNow(bytes)
    }

    /// Writes `bytes` (nothing waits before them): what the socket does not take waits for
    /// writability; a failed write closes the connection.
    private func writeNow(_ bytes: [UInt8]) throws(SendFailure) {
        switch output.send(bytes) {
        case .drained: break
        case .pending: updateInterest()
        case .failed:
            close()
            throw .closed
        }
    }

    /// Writes a frame's lines after what waits: one write(2) when nothing waits, straight from
    /// `bytes`. What the socket does not take waits for writability; only that counts against
    /// `maximumOutput` (when `bytes` would pass it, what waits is written first): past it, the
    /// bytes stay queued and ``SendFailure/overLimit`` is thrown (the caller drops the client).
    public func sendFrame(_ bytes: [UInt8]) throws(SendFailure) {
        guard !isClosed else { throw .closed }
        if !output.fits(bytes.count) {
            writeQueued(evenWhileFull: true)
            guard !isClosed else { throw .closed }
        }
        if output.queued == 0 {
            try writeNow(bytes)
            guard output.queued <= output.limit else { throw .overLimit }
            return
        }
        guard output.fits(bytes.count) else { throw .overLimit }
        output.queue(bytes)
        writeQueued()
    }

    /// Writes what waits; what the socket does not take waits for writability
    /// (while it does, the loop's writability writes it: no write is tried before). A broken
    /// peer is closed.
    public func writeQueued(evenWhileFull: Bool = false) {
        guard !isClosed, output.queued > 0, evenWhileFull || !interest.contains(.writable) else { return }
        switch output.flush() {
        case .drained: break
        case .pending: updateInterest()
        case .failed: close()
        }
    }

    /// At exit: writes what waits, waiting in poll(2) (blocking the loop) while the peer reads,
    /// until all of it is written, the peer is gone or `deadline` passes; what is left then is
    /// dropped by ``close()``.
    public func flush(until deadline: Timestamp) {
        while !isClosed, output.queued > 0 {
            switch output.flush() {
            case .drained: return
            case .failed: close(); return
            case .pending:
                let remaining = (deadline - MonotonicClock.now()).microseconds
                guard remaining > 0 else { return }
                _ = try? SystemCall.waitWritable(fd, timeout: Int32(min(max(1, remaining / 1000), 60_000)))
            }
        }
    }

    /// Reads no more; closes once everything queued is written.
    public func closeWhenFlushed() {
        closeAfterFlush = true
        writeQueued()
        guard !isClosed else { return }
        if output.queued == 0 { close() } else { updateInterest() }
    }

    /// Closes now (queued bytes are dropped).
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        reader.stop()
        if let idleTimer { loop.cancel(idleTimer); self.idleTimer = nil }
        loop.unwatch(fd)
        try? SystemCall.close(fd)
        listenerClosed()
        onClose()
    }

    private func service(_ ready: EventLoop.Readiness) {
        if ready.contains(.writable) {
            switch output.flush() {
            case .drained:
                if closeAfterFlush { close(); return }
                updateInterest()
            case .pending: break
            case .failed: close(); return
            }
        }
        guard !closeAfterFlush else { return }
        if isHeld {
            // Not reading while an answer is pending. Only a hang-up or error is reported now
            // (level-triggered, it would be reported again and again): a peer that closed its
            // end entirely cannot read the answer, so the connection goes.
            if !ready.isDisjoint(with: .hangup) { close() }
            return
        }
        if ready.contains(.readable) || !ready.isDisjoint(with: .hangup) {
            if reader.readAvailable(budget: 64 * 1024) == .endOfFile {
                if isHeld {
                    // A line read just now holds the connection: its answer first, then close.
                    inputEnded = true
                    updateInterest()
                } else {
                    // Answer what was complete, then close once written.
                    closeWhenFlushed()
                }
            }
        }
    }

    /// Readable while reading (not once closing, nor while held), writable while bytes wait.
    private func updateInterest() {
        guard !isClosed else { return }
        let waiting = output.queued > 0
        let reading = !closeAfterFlush && !isHeld
        var wanted: EventLoop.Readiness = reading ? .readable : []
        if waiting { wanted.insert(.writable) }
        guard wanted != interest else { return }
        interest = wanted
        try? loop.change(fd, to: wanted)
    }
}
