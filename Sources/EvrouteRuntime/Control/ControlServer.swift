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

    private let log: Log
    private let loop: EventLoop
    private var listener: UnixListener?
    /// Each open connection and when it last completed a request (or connected).
    private var activity: [ObjectIdentifier: (connection: LineConnection, since: Timestamp)] = [:]
    private var sweep: EventLoop.TimerID?

    /// Most clients served at once; more wait in the listen backlog.
    static let maximumClients = 16
    /// A client that sends no complete request for this long (after connecting, or after its
    /// last answer) is disconnected: idle connections cannot hold the 16 places and lock out
    /// `evroute status` (a waiting client is in the listen backlog meanwhile, and `evroute`
    /// waits 10 s for an answer).
    static let idleTimeout = Timestamp.Duration.seconds(5)
    /// Longest accepted request line.
    static let maximumRequest = 64 * 1024
    /// Most answer bytes queued for one client that does not read them.
    static let maximumQueuedAnswers = 1 << 20

    /// Creates, binds (mode 0660; the parent directory is created 0755 when missing) and
    /// listens on `path`. A stale socket file left by a dead daemon is replaced; a live one
    /// (something answers on it) is an error, as is a path that exists and is not a socket.
    public init(path: String, loop: EventLoop, log: Log, handleRequest: @escaping (JSONValue) -> JSONValue) throws(SetupError) {
        self.path = path
        self.log = log
        self.loop = loop
        self.handleRequest = handleRequest
        guard path.hasPrefix("/") || path.hasPrefix("."), UnixSocketAddress(path) != nil else {
            throw SetupError(description: "control socket \(path): not a usable socket path (absolute, at most 107 bytes)")
        }
        do {
            listener = try UnixListener(path: path, mode: 0o660, loop: loop, maximumConnections: ControlServer.maximumClients,
                                        overflow: .wait, maximumLineLength: ControlServer.maximumRequest,
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
    }

    deinit { shutdown() }

    /// Connected clients.
    public var clientCount: Int { listener?.connectionCount ?? 0 }

    /// Closes every connection and the listening socket, and removes the socket file.
    public func shutdown() {
        if let sweep { loop.cancel(sweep) }
        sweep = nil
        activity = [:]
        listener?.close()
        listener = nil
    }

    /// Closes connections idle for ``idleTimeout``; runs once a second while any is open.
    private func sweepIdle() {
        sweep = nil
        let now = MonotonicClock.now()
        for (key, entry) in activity where now - entry.since >= ControlServer.idleTimeout {
            log.debug("control socket: closed a connection idle for \(ControlServer.idleTimeout.seconds) s")
            activity[key] = nil
            entry.connection.close()
        }
        scheduleSweep()
    }

    private func scheduleSweep() {
        guard sweep == nil, !activity.isEmpty else { return }
        sweep = loop.schedule(after: .seconds(1)) { [unowned self] in sweepIdle() }
    }

    // MARK: Connections

    private func accepted(_ connection: LineConnection) {
        guard let listener, ControlServer.isAuthorized(connection, group: listener.group) else {
            log.warning("control socket: refused a client without permission")
            respond(connection, .object([("ok", .bool(false)), ("error", .string("permission denied"))]))
            connection.closeWhenFlushed()
            return
        }
        let key = ObjectIdentifier(connection)
        activity[key] = (connection, MonotonicClock.now())
        scheduleSweep()
        connection.onClose = { [unowned self] in
            activity[key] = nil
            // No connection, no sweep: an idle daemon makes no wakeup.
            if activity.isEmpty, let sweep {
                loop.cancel(sweep)
                self.sweep = nil
            }
        }
        connection.onLine = { [unowned self, unowned connection] line in
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x0D }) { return }
            activity[key] = (connection, MonotonicClock.now())
            respond(connection, answer(String(decoding: line, as: UTF8.self)))
        }
        connection.onOverlong = { [unowned self, unowned connection] in
            respond(connection, .object([("ok", .bool(false)), ("error", .string("request line too long"))]))
            connection.closeWhenFlushed()
        }
    }

    /// Root, the daemon's user, or a member (primary or supplementary) of the socket file's group.
    static func isAuthorized(_ connection: LineConnection, group: gid_t) -> Bool {
        guard let peer = connection.peerCredentials else { return false }
        return isAuthorized(uid: peer.uid, gid: peer.gid, group: group) {
            connection.peerGroups ?? UserGroups.of(uid: peer.uid, primaryGroup: peer.gid) ?? []
        }
    }

    /// The rule: root, the daemon's own user, the group as primary group, or `supplementaryGroups()`
    /// holds it. The groups are the peer's own from the kernel (`SO_PEERGROUPS`, Linux 4.13+),
    /// else the user database's (`getgrouplist` of the peer's uid); never `/proc/PID/status`,
    /// which a daemon under `ProtectProc=invisible` (`hidepid=invisible`) cannot see.
    static func isAuthorized(uid: uid_t, gid: gid_t, group: gid_t, supplementaryGroups: () -> [gid_t]) -> Bool {
        if uid == 0 || uid == geteuid() || gid == group { return true }
        return supplementaryGroups().contains(group)
    }

    private func answer(_ line: String) -> JSONValue {
        requests += 1
        do {
            return handleRequest(try JSONValue.parse(line))
        } catch {
            return .object([("ok", .bool(false)), ("error", .string("\(error)"))])
        }
    }

    /// Queues one answer line; a client that lets answers pile up past the bound is dropped.
    private func respond(_ connection: LineConnection, _ response: JSONValue) {
        do {
            try connection.send(Array((response.serialized + "\n").utf8))
        } catch .overLimit {
            log.warning("control socket: dropped a client that does not read its answers")
            connection.close()
        } catch {}
    }
}
