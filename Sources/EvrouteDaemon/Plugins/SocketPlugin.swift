import EvrouteConfig
#if canImport(Glibc)
import Glibc
#endif
import CLinux
import EvrouteCore
import EvrouteJSON
import EvrouteRuntime
import EvrouteSystem

extension PluginKind {
    /// Hosted: the event's JSON line to each client of a Unix socket; clients may answer.
    public static let socket: PluginKind = "socket"
}

/// `socket`'s plugin-level options.
struct SocketOptions: Sendable, Equatable {
    var path: String
    var mode: UInt32
    var answers: Bool
    var deadline: Timestamp.Duration
    /// `on-timeout: unhandled`.
    var declineOnTimeout: Bool
    var maxBuffer: Int
    var maxClients: Int
}

/// The `socket` type: its options (typed once, when the layout compiles; a handler's other
/// options travel to its clients), its factory.
struct SocketPluginType: PluginType {
    var name: PluginKind { .socket }
    var pluginKeys: [ConfigKey] {
        [ConfigKey("path", .string, required: true, "The socket's file name (at most 107 bytes)."),
         ConfigKey("mode", .other("octal mode, e.g. \"0660\""), default: "0660", "The socket file's permissions."),
         ConfigKey("answers", .boolean, default: "false", "Clients may decline an event (`{\"id\":N,\"handled\":false}`)."),
         ConfigKey("deadline-ms", .integer(1...3_600_000), default: "50", "With `answers`, milliseconds an event waits for an answer."),
         ConfigKey("on-timeout", .choice(["handled", "unhandled"]), default: "handled", "What an event not answered in time counts as."),
         ConfigKey("max-buffer", .integer(1024...(64 << 20)), default: "262144", "Unsent bytes past which a client is disconnected."),
         ConfigKey("max-clients", .integer(1...4096), default: "64", "Clients connected at once; more are refused.")]
    }
    var metrics: [PluginMetric] { SocketPlugin.metrics }
    var handlerOptionsAreFreeForm: Bool { true }

    func readOptions(_ r: inout PluginOptionReader) -> (any Sendable)? {
        var path = ""
        if r.value("path") == nil { r.fail(nil, "`path` (the socket's file name) is required") }
        else if let s = r.string("path") {
            if s.isEmpty { r.fail("path", "`path` (the socket's file name) is required") }
            else if s.utf8.count >= 108 { r.fail("path", "`path` is longer than a Unix socket path may be (107 bytes)") }
            else { path = s }
        }
        var decline = false
        switch r.string("on-timeout") ?? "handled" {
        case "handled": break
        case "unhandled": decline = true
        default: r.fail("on-timeout", "`on-timeout` must be `handled` or `unhandled`")
        }
        return SocketOptions(path: path, mode: r.fileMode("mode", default: 0o660), answers: r.bool("answers", default: false),
                             deadline: r.milliseconds("deadline-ms", default: 50), declineOnTimeout: decline,
                             maxBuffer: r.integer("max-buffer", default: 256 * 1024, in: 1024...(64 << 20)),
                             maxClients: r.integer("max-clients", default: 64, in: 1...4096))
    }

    func makePlugin(spec: PluginSpec, options: (any Sendable)?, context: PluginContext) -> (any Plugin)? {
        (options as? SocketOptions).map { SocketPlugin(spec: spec, options: $0, context: context) }
    }
}

/// `socket`: a Unix stream socket at `path`; every connected client receives every event
/// as a JSON line. With `answers: true`, a client may answer `{"id":N,"handled":false}` to
/// decline (the first answer wins) within `deadline-ms`; without an answer by then the event
/// counts as `on-timeout` says (default handled). With no client connected, events are
/// declined and walk on. A client whose unsent output passes `max-buffer` is disconnected,
/// never waited on.
final class SocketPlugin: Plugin, EndOfFrameWriter {
    let spec: PluginSpec
    let config: SocketOptions
    private let context: PluginContext
    private(set) var statistics: PluginStatistics
    private var listener: UnixListener?
    private var clients: [ObjectIdentifier: LineConnection] = [:]
    private let pending: PendingAnswers
    /// The event lines of this wake-up, written straight here (one encoding per event, whatever
    /// the number of clients); they leave at its end, one write(2) per client (``writeQueued()``).
    /// The layout's names in them are encoded once per layout (``PluginEventJSON/Lines``).
    private var frame = PluginEventJSON.Lines(capacity: 16 * 1024)
    /// Whether ``frame`` holds lines and the end-of-frame write is registered.
    private var frameQueued = false
    /// With `answers`: the ids of the events queued since the last write. When no client is
    /// left to take them, they are declined, as an event delivered with no client is.
    private var frameIDs: [UInt64] = []
    private var garbageLogs = LogRateLimiter()
    private var clientLogs = LogRateLimiter()

    /// `options` were checked when the layout compiled (``Layout/pluginOptions``).
    init(spec: PluginSpec, options: SocketOptions, context: PluginContext) {
        self.spec = spec
        self.context = context
        config = options
        statistics = PluginStatistics(name: spec.name, type: spec.type)
        pending = PendingAnswers(loop: context.loop, timeout: config.deadline)
        pending.onExpired = { [weak self] entry in self?.expired(entry) }
        updateGauges()
    }

    var liveChildren: [ChildProcess] { [] }

    // MARK: Listening

    func start() {
        do {
            let listener = try UnixListener(path: config.path, mode: mode_t(config.mode), loop: context.loop,
                                            maximumConnections: config.maxClients, overflow: .refuse,
                                            maximumLineLength: ControlServer.maximumRequest, maximumOutput: config.maxBuffer)
            listener.onConnection = { [weak self] connection in self?.accepted(connection) }
            listener.onRefused = { [weak self] in
                guard let self else { return }
                statistics[counter: .clientsRefused] += 1
                context.log.limited(.warning, &clientLogs, "socket \(spec.name): \(config.maxClients) clients connected; refused one")
            }
            listener.onDescriptorLimit = { [weak self] error, pause in
                guard let self else { return }
                statistics[counter: .clientsRefused] += 1
                context.log.limited(.warning, &clientLogs,
                                    "socket \(spec.name): out of file descriptors (\(String(cString: strerror(error)))); not accepting clients for \(pause.seconds) s or until one leaves")
            }
            self.listener = listener
            context.log.info(.pluginStarted, fields: [.plugin: spec.name], "socket \(spec.name): listening on \(config.path)")
        } catch {
            let reason = switch error.errno {
            case EADDRINUSE: "\(config.path) is in use by another process"
            case ENOTSOCK: "\(config.path) exists and is not a socket"
            default: "\(error.call) \(config.path): \(error.message)"
            }
            statistics.failures += 1
            statistics.lastError = reason
            context.log.error(.pluginFailed, fields: [.plugin: spec.name], "socket \(spec.name): \(reason); its events are declined")
        }
    }

    private func accepted(_ client: LineConnection) {
        // The lines queued before it connected go to the clients that were there.
        if frameQueued { writeQueued() }
        let key = ObjectIdentifier(client)
        clients[key] = client
        client.onLine = { [weak self, unowned client] line in self?.answer(line, from: client) }
        client.onOverlong = { [weak self, unowned client] prefix in self?.refuseOverlong(prefix, from: client) }
        client.onClose = { [weak self, unowned client] in
            guard let self, clients.removeValue(forKey: key) != nil else { return }
            context.log.debug("socket \(spec.name): client \(client.number) disconnected")
            updateGauges()
        }
        statistics[counter: .clientsAccepted] += 1
        context.log.debug("socket \(spec.name): client \(client.number) connected")
        updateGauges()
    }

    /// Disconnects a client that broke a bound.
    private func drop(_ client: LineConnection, reason: String) {
        clients[ObjectIdentifier(client)] = nil
        client.close()
        statistics[counter: .clientsDropped] += 1
        statistics.lastError = "client \(client.number) dropped: \(reason)"
        context.log.limited(.warning, &clientLogs, "socket \(spec.name): client \(client.number) dropped: \(reason)")
        updateGauges()
    }

    // MARK: Events


    /// After a line went into the frame's buffer: the end-of-frame write is registered once; a
    /// long wake-up (a replay's chunk) does not hold all its lines.
    private func lineWritten() {
        if !frameQueued {
            frameQueued = true
            context.writeAtEndOfFrame(self)
        } else if frame.json.bytes.count >= PluginContext.frameFlushBytes {
            writeLines()
        }
    }

    /// Without answers: the event's line written from the event as the host has it (no delivery
    /// record), as event `id` drawn only when a client is there to read it.
    func deliverInPlace(_ event: RoutedEvent, handler: Int, responder: ResponderID) -> HandlerVerdict {
        guard !clients.isEmpty else {
            statistics.declined += 1
            return .declined
        }
        frame.append(event, handler: event.layout.handlers[handler], responder: responder, id: context.drawEventID())
        lineWritten()
        statistics.handled += 1
        return .handled
    }

    /// Writes the event's line into the frame's buffer; the frame's lines leave at the end of
    /// the wake-up, one write(2) per client (``writeQueued()``).
    /// Without answers, an event never walks on from here, and draws an id only when a client
    /// is there to read its line; with answers, every event offered draws one.
    func deliver(_ d: PluginDelivery) -> HandlerVerdict {
        guard config.answers else { return deliverInPlace(d.event, handler: d.handlerIndex, responder: d.responder) }
        let id = context.drawEventID()
        guard !clients.isEmpty else {
            statistics.declined += 1
            return .declined
        }
        d.appendJSONLine(id: id, to: &frame.json)
        lineWritten()
        pending.add(id: id, event: d.event, handler: d.handler)
        frameIDs.append(id)
        updateGauges()
        return .handled
    }

    /// Writes the frame's lines to each client (a client that broke is closed: its onClose
    /// removes it; one that reads too slowly is dropped).
    private func writeLines() {
        guard !frame.json.bytes.isEmpty else { return }
        for client in clients.values {
            do {
                try client.sendFrame(frame.json.bytes)
            } catch .overLimit {
                drop(client, reason: "it reads too slowly (\(client.queuedBytes) bytes waiting)")
            } catch {}   // gone: its onClose has removed it
        }
        frame.json.reset()
    }

    /// The end of the wake-up: the frame's lines leave; events of the frame whose lines found no
    /// client left are declined, as an event delivered with no client is.
    func writeEndOfFrame() { writeQueued() }

    private func writeQueued() {
        frameQueued = false
        writeLines()
        guard !frameIDs.isEmpty else { return }
        let unsent = clients.isEmpty ? frameIDs.compactMap { pending.resolve($0) } : []
        frameIDs.removeAll(keepingCapacity: true)
        guard !unsent.isEmpty else { return }
        // Every client left before the lines went out.
        statistics.declined += unsent.count
        updateGauges()
        for entry in unsent { context.continueRouting(entry.event, entry.handler) }
    }

    private func answer(_ line: ArraySlice<UInt8>, from client: LineConnection) {
        if let reply = context.reply(toCommand: line) {
            statistics[counter: .commands] += 1
            do { try client.send(reply) } catch .overLimit {
                drop(client, reason: "it reads too slowly (\(client.queuedBytes) bytes waiting)")
            } catch {}
            return
        }
        let settlement = pending.settle(line, accepting: config.answers)
        let outcome = statistics.count(settlement) { text in
            context.log.limited(.warning, &garbageLogs,
                                "socket \(spec.name): client \(client.number) sent a line that is not an answer: \(text)")
        }
        if outcome.settled { updateGauges() }
        // Last, with nothing of this plugin's held: the walk may come back to it.
        if let entry = outcome.declined { context.continueRouting(entry.event, entry.handler) }
    }

    /// A line past ``ControlServer/maximumRequest`` (none of it is executed): answered with the
    /// error (tagged when the tag is in its first part), counted as garbage; the client stays.
    private func refuseOverlong(_ prefix: ArraySlice<UInt8>, from client: LineConnection) {
        statistics[counter: .garbageLines] += 1
        context.log.limited(.warning, &garbageLogs,
                            "socket \(spec.name): client \(client.number) sent a line longer than \(ControlServer.maximumRequest) bytes; refused")
        let reply = context.reply(toOverlong: prefix)
        do { try client.send(reply) } catch .overLimit {
            drop(client, reason: "it reads too slowly (\(client.queuedBytes) bytes waiting)")
        } catch {}
    }

    private func expired(_ entry: PendingAnswers.Entry) {
        statistics.timedOut += 1
        updateGauges()
        if config.declineOnTimeout { context.continueRouting(entry.event, entry.handler) }
    }

    // MARK: Stopping

    func stop(_ reason: PluginStopReason) {
        let waiting = pending.removeAll()
        if frameQueued { writeQueued() }   // the last frame's lines are not lost
        if reason == .shutdown {
            // At exit a client still reading gets what waits for it (the touches' and keys'
            // cancellations last) before its connection closes: `exitFlushGrace` at most for
            // them all. What one has not read by then goes with its connection, said so.
            let deadline = MonotonicClock.now() + Self.exitFlushGrace
            for client in clients.values { client.flush(until: deadline) }
            // One line per client (at most `max-clients`), not rate-limited: a limiter's count
            // of what it swallowed would come with a later line, and there is none after a stop.
            for client in clients.values where client.queuedBytes > 0 {
                context.log.log(.warning,
                                "socket \(spec.name): client \(client.number) did not read its last \(client.queuedBytes) bytes within \(Int(Self.exitFlushGrace.seconds)) s of the stop; closed with them unread")
            }
        }
        listener?.close()   // closes every client too
        listener = nil
        clients.removeAll()
        updateGauges()
        if reason == .reload && config.declineOnTimeout {
            for entry in waiting { context.continueRouting(entry.event, entry.handler) }
        }
    }

    /// How long the daemon's exit waits for its clients to read what waits for them.
    static let exitFlushGrace: Timestamp.Duration = .seconds(3)

    /// Events waiting for a client's answer.
    var isBusy: Bool { (statistics[gauge: .pending] ?? 0) > 0 }

    private func updateGauges() {
        statistics[gauge: .clients] = clients.count
        if config.answers { statistics[gauge: .pending] = pending.count }
    }
}

extension PluginMetric {
    /// `socket`: clients connected.
    static let clients = PluginMetric(gauge: "clients", help: "Clients connected.")
    /// `socket`: clients accepted.
    static let clientsAccepted = PluginMetric(counter: "clients_accepted", help: "Clients accepted.")
    /// `socket`: clients disconnected for reading too slowly.
    static let clientsDropped = PluginMetric(counter: "clients_dropped", help: "Clients disconnected for reading too slowly.")
    /// `socket`: connections refused at `max-clients`.
    static let clientsRefused = PluginMetric(counter: "clients_refused", help: "Connections refused at `max-clients`.")
}

extension SocketPlugin {
    static let metrics: [PluginMetric] = [.clients, .clientsAccepted, .clientsDropped, .clientsRefused] + PluginMetric.answers
}
