#if canImport(Glibc)
import Glibc
#endif
import CLinux
import EvrouteCore
import EvrouteJSON
import EvrouteSystem

/// The daemon's control socket (`evroute status`, `evroute reload`): a Unix stream socket served
/// on the event loop, never blocking it. A client writes one JSON object per line
/// (`{"command":"status"}`) and reads one JSON object per line back; it may send several
/// requests on one connection, and closes it when done.
///
/// Who may connect: the socket file is mode 0660, and each accepted peer's credentials
/// (`SO_PEERCRED`) are checked too — root, the daemon's own user, and members of the socket
/// file's group (primary or supplementary: `SO_PEERGROUPS`, Linux 4.13+, else `getgrouplist`
/// of the peer's uid; never `/proc`) are served; anyone else gets `{"ok":false,"error":"permission denied"}`
/// and is disconnected. Built on the system layer's ``UnixListener`` and ``LineConnection``.
///
/// Limits (docs/daemon.md, "Control socket"): at most ``maximumClients`` at once — one more is
/// answered ``busyAnswer(maximumClients:)`` and disconnected, never left waiting; of them at most
/// ``maximumClientsPerProcess`` from one process and ``maximumClientsPerUser`` from one user other
/// than root, and the last ``reservedClients`` only for root and the socket group's members (so no
/// one client, nor the daemon's own user's plugin helpers, can take every place); a client that
/// completes no request for ``idleTimeout`` is closed; a request line is at most
/// ``maximumRequest`` bytes; a client that lets more than ``maximumQueuedAnswers`` bytes of
/// answers pile up is disconnected. Each is logged.
///
/// Answers later: a request's handler gets a ``PendingAnswer`` and may keep it (the daemon's
/// `reload` is answered when its compile, off the loop, ends). Meanwhile that connection is held
/// (``LineConnection/hold()``): its later requests wait and are answered in order after it, and
/// the idle timeout does not close it; every other connection is served as usual.
public final class ControlServer {
    /// The answer to one request, sent once with ``send(_:)``: at once by most handlers, or
    /// later. Until it is sent, the request's connection is held. Sending after the client left
    /// does nothing (the answer is dropped).
    public final class PendingAnswer {
        private weak var server: ControlServer?
        private weak var connection: LineConnection?
        /// Whether ``send(_:)`` was called.
        public private(set) var isAnswered = false
        /// Whether the connection was held for this answer.
        fileprivate var holds = false

        fileprivate init(server: ControlServer, connection: LineConnection) {
            self.server = server
            self.connection = connection
        }

        /// Whether the client is still connected to get it.
        public var isConnected: Bool { connection.map { !$0.isClosed } ?? false }

        /// Sends the answer (the first call only) and lets the connection's next request in.
        public func send(_ answer: JSONValue) {
            guard !isAnswered else { return }
            isAnswered = true
            guard let server, let connection, !connection.isClosed else { return }
            server.respond(connection, answer)
            if holds {
                holds = false
                connection.resume()
            }
        }
    }

    /// A failure to set the socket up.
    public struct SetupError: Error, CustomStringConvertible {
        public var description: String
    }

    /// The socket's path.
    public let path: String
    /// Answers one request, through its ``PendingAnswer`` (now or later). Runs on the event loop.
    public var handleRequest: (JSONValue, PendingAnswer) -> Void
    /// Requests answered so far.
    public private(set) var requests = 0

    private let log: Log
    private var listener: UnixListener?

    /// Most clients connected at once; one more is answered ``busyAnswer`` and disconnected
    /// at once (it does not wait, and cannot starve the others).
    public static let maximumClients = 64
    /// Longest accepted request line: on the control socket and on a `socket` or `process`
    /// plugin's connection alike (a `regions` request of a thousand-odd regions fits).
    public static let maximumRequest = 64 * 1024

    /// The answer to a request line longer than ``maximumRequest`` (`prefix`: its first part; the
    /// line is never executed): `{"ok":false,"error":"request line too long …"}`, with the
    /// request's `"tag"` when the prefix holds it whole (a tag written before the long members).
    public static func lineTooLongAnswer(prefix: ArraySlice<UInt8>) -> JSONValue {
        ControlProtocol.tagged(ControlProtocol.failure("request line too long (the most is \(maximumRequest) bytes)"),
                               tag: JSONValue.member(ControlProtocol.tag, ofCutObject: prefix))
    }
    /// Most answer bytes queued for one client that does not read them; past it the client is
    /// disconnected (with a log line).
    public static let maximumQueuedAnswers = 1 << 20
    /// A connection that completes no request line for this long is closed (with a log line),
    /// so idle clients cannot hold the socket's places.
    public static let idleTimeout = Timestamp.Duration.seconds(10)

    /// Most connections one process (`SO_PEERCRED` pid) holds at once: one more is answered
    /// busy and closed. A misbehaving client process takes at most this many of the
    /// ``maximumClients`` places.
    public static let maximumClientsPerProcess = 8
    /// Most connections one user other than root (`SO_PEERCRED` uid) holds at once, over all its
    /// processes: half the places.
    public static let maximumClientsPerUser = 32
    /// The last places, kept for root and the socket group's members (operators): the daemon's
    /// own user, as which plugin helpers and exec commands run, does not get them.
    public static let reservedClients = 8

    /// The line a client beyond ``maximumClients`` gets before it is disconnected; `"busy"`
    /// tells ``ControlClient`` to try again shortly.
    public static func busyAnswer(maximumClients: Int) -> JSONValue {
        busyAnswer("too many control clients (\(maximumClients) connected)")
    }

    /// `{"ok":false,"error":"REASON; try again","busy":true}`.
    static func busyAnswer(_ reason: String) -> JSONValue {
        .object([(ControlProtocol.ok, .bool(false)), (ControlProtocol.error, .string("\(reason); try again")),
                 (ControlProtocol.busy, .bool(true))])
    }

    /// Why an authorized client may not have the place it connected to, or nil when it may.
    /// `open`: the connections open now, this one included; `ofProcess`, `ofUser`: those of the
    /// client's process and user before this one. `privileged`: root or a member of the socket's
    /// group other than the daemon's own user.
    public static func placeRefusal(pid: pid_t, uid: uid_t, privileged: Bool, open: Int, ofProcess: Int, ofUser: Int,
                             maximumClients: Int) -> String? {
        if ofProcess >= maximumClientsPerProcess {
            return "too many control connections from process \(pid) (\(ofProcess) open, the most for one process)"
        }
        if uid != 0 && ofUser >= maximumClientsPerUser {
            return "too many control connections from user \(uid) (\(ofUser) open, the most for one user)"
        }
        if !privileged && open > maximumClients - reservedClients {
            return "too many control clients (\(open - 1) connected; the last \(reservedClients) places are kept for root and the socket's group)"
        }
        return nil
    }

    private var clientsOfProcess: [pid_t: Int] = [:]
    private var clientsOfUser: [uid_t: Int] = [:]

    private var refusedSinceLog = 0
    private var lastRefusalLog: Timestamp?

    /// Creates, binds (mode 0660; the parent directory is created 0755 when missing) and
    /// listens on `path`. A stale socket file left by a dead daemon is replaced; a live one
    /// (something answers on it) is an error, as is a path that exists and is not a socket.
    /// `maximumClients` and `idleTimeout` are for tests; the daemon uses the defaults.
    /// `handleRequest` answers every request at once.
    public convenience init(path: String, loop: EventLoop, log: Log, maximumClients: Int = ControlServer.maximumClients,
                            idleTimeout: Timestamp.Duration = ControlServer.idleTimeout,
                            handleRequest: @escaping (JSONValue) -> JSONValue) throws(SetupError) {
        try self.init(path: path, loop: loop, log: log, maximumClients: maximumClients, idleTimeout: idleTimeout,
                      answering: { request, answer in answer.send(handleRequest(request)) })
    }

    /// As above, with a handler that answers through the ``PendingAnswer`` it is given, at once
    /// or later.
    public init(path: String, loop: EventLoop, log: Log, maximumClients: Int = ControlServer.maximumClients,
                idleTimeout: Timestamp.Duration = ControlServer.idleTimeout,
                answering handleRequest: @escaping (JSONValue, PendingAnswer) -> Void) throws(SetupError) {
        self.path = path
        self.log = log
        self.handleRequest = handleRequest
        self.maximumClients = maximumClients
        guard path.hasPrefix("/") || path.hasPrefix("."), UnixSocketAddress(path) != nil else {
            throw SetupError(description: "control socket \(path): not a usable socket path (absolute, at most 107 bytes)")
        }
        do {
            listener = try UnixListener(path: path, mode: 0o660, loop: loop, maximumConnections: maximumClients,
                                        overflow: .refuse, maximumLineLength: ControlServer.maximumRequest,
                                        maximumOutput: ControlServer.maximumQueuedAnswers, createParentDirectories: true)
        } catch {
            let reason = switch error.errno {
            case EADDRINUSE: "another evroute daemon is listening on it"
            case ENOTSOCK: "exists and is not a socket"
            default: "\(error.call): \(error.message)"
            }
            throw SetupError(description: "control socket \(error.path ?? path): \(reason)")
        }
        listener?.onConnection = { [unowned self] connection in accepted(connection) }
        // The descriptor limit never locks the operator out: the listener's reserve descriptor
        // is the control socket's place, its peer served, not refused.
        listener?.servesOnReserve = true
        listener?.idleTimeout = idleTimeout
        listener?.refusal = { why in
            let answer = switch why {
            case .full: ControlServer.busyAnswer(maximumClients: maximumClients)
            case .outOfDescriptors: ControlServer.busyAnswer("the daemon is out of file descriptors")
            }
            return Array((answer.serialized + "\n").utf8)
        }
        listener?.onDescriptorLimit = { [unowned self] error, pause in
            refused("out of file descriptors (\(String(cString: strerror(error)))): not accepting for \(pause.seconds) s or until a client leaves")
        }
        listener?.onRefused = { [unowned self] in refused("\(maximumClients) connected, the most served at once") }
    }

    private let maximumClients: Int

    /// A client beyond a limit was told it is busy: logged, at most once per 10 s with a count
    /// (and the last reason).
    private func refused(_ reason: String) {
        refusedSinceLog += 1
        let now = MonotonicClock.now()
        if let last = lastRefusalLog, now - last < .seconds(10) { return }
        log.warning(.controlClientRefused, "control socket: refused \(refusedSinceLog) client(s): \(reason)")
        refusedSinceLog = 0
        lastRefusalLog = now
    }

    deinit { shutdown() }

    /// Connected clients.
    public var clientCount: Int { listener?.connectionCount ?? 0 }

    /// Closes every connection and the listening socket, and removes the socket file.
    public func shutdown() {
        listener?.close()
        listener = nil
    }

    // MARK: Connections

    private func accepted(_ connection: LineConnection) {
        guard let listener, let peer = connection.peerCredentials else { return refuseUnauthorized(connection) }
        var groups: [gid_t]?
        func supplementaryGroups() -> [gid_t] {
            if groups == nil { groups = connection.peerGroups ?? UserGroups.of(uid: peer.uid, primaryGroup: peer.gid) ?? [] }
            return groups!
        }
        guard ControlServer.isAuthorized(uid: peer.uid, gid: peer.gid, group: listener.group, supplementaryGroups: supplementaryGroups) else {
            return refuseUnauthorized(connection)
        }
        let privileged = peer.uid == 0
            || (peer.uid != geteuid() && (peer.gid == listener.group || supplementaryGroups().contains(listener.group)))
        if let reason = ControlServer.placeRefusal(pid: peer.pid, uid: peer.uid, privileged: privileged, open: listener.connectionCount,
                                                   ofProcess: clientsOfProcess[peer.pid] ?? 0, ofUser: clientsOfUser[peer.uid] ?? 0,
                                                   maximumClients: maximumClients) {
            refused(reason)
            respond(connection, ControlServer.busyAnswer(reason))
            connection.closeWhenFlushed()
            return
        }
        clientsOfProcess[peer.pid, default: 0] += 1
        clientsOfUser[peer.uid, default: 0] += 1
        connection.onClose = { [unowned self] in
            clientsOfProcess[peer.pid]! -= 1
            if clientsOfProcess[peer.pid] == 0 { clientsOfProcess[peer.pid] = nil }
            clientsOfUser[peer.uid]! -= 1
            if clientsOfUser[peer.uid] == 0 { clientsOfUser[peer.uid] = nil }
        }
        connection.onLine = { [unowned self, unowned connection] line in
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x0D }) { return }
            let answer = PendingAnswer(server: self, connection: connection)
            handle(String(decoding: line, as: UTF8.self), answer)
            if !answer.isAnswered && !connection.isClosed {
                // Answered later: the connection's next requests wait for this one.
                answer.holds = true
                connection.hold()
            }
        }
        connection.onIdle = { [unowned self, unowned connection] in
            log.info("control socket: closed client \(connection.number): no request for \(connection.idleTimeout.map { "\($0.seconds)" } ?? "?") s")
        }
        connection.onOverlong = { [unowned self, unowned connection] prefix in
            respond(connection, ControlServer.lineTooLongAnswer(prefix: prefix))
            connection.closeWhenFlushed()
        }
    }

    private func refuseUnauthorized(_ connection: LineConnection) {
        log.warning(.controlClientRefused, "control socket: refused a client without permission")
        respond(connection, ControlProtocol.failure("permission denied"))
        connection.closeWhenFlushed()
    }

    /// The rule: root, the daemon's own user, the group as primary group, or `supplementaryGroups()`
    /// holds it. The groups are the peer's own from the kernel (`SO_PEERGROUPS`, Linux 4.13+),
    /// else the user database's (`getgrouplist` of the peer's uid); never `/proc/PID/status`,
    /// which a daemon under `ProtectProc=invisible` (`hidepid=invisible`) cannot see.
    static func isAuthorized(uid: uid_t, gid: gid_t, group: gid_t, supplementaryGroups: () -> [gid_t]) -> Bool {
        if uid == 0 || uid == geteuid() || gid == group { return true }
        return supplementaryGroups().contains(group)
    }

    private func handle(_ line: String, _ answer: PendingAnswer) {
        requests += 1
        let request: JSONValue
        do {
            request = try JSONValue.parse(line)
        } catch {
            answer.send(ControlProtocol.failure("\(error)"))
            return
        }
        handleRequest(request, answer)
    }

    /// Queues one answer line; a client that lets answers pile up past the bound is dropped.
    fileprivate func respond(_ connection: LineConnection, _ response: JSONValue) {
        do {
            try connection.send(Array((response.serialized + "\n").utf8))
        } catch .overLimit {
            log.warning(.controlClientRefused, "control socket: dropped client \(connection.number): it does not read its answers (\(connection.queuedBytes) bytes waiting, the most is \(ControlServer.maximumQueuedAnswers))")
            connection.close()
        } catch {}
    }
}
