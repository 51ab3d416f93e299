import EvrouteConfig
#if canImport(Glibc)
import Glibc
#endif
import EvrouteCore
import EvrouteJSON
import EvrouteRuntime
import EvrouteSystem

extension PluginKind {
    /// Hosted: a long-running helper reads event JSON lines on stdin and answers on stdout.
    public static let process: PluginKind = "process"
}

/// `process`'s plugin-level options.
struct ProcessOptions: Sendable, Equatable {
    var command: [String]
    var deadline: Timestamp.Duration
    var maxBuffer: Int
    var restartMinimum: Timestamp.Duration
    var restartMaximum: Timestamp.Duration
    var stableAfter: Timestamp.Duration
}

/// The `process` type: its options (typed once, when the layout compiles; a handler's other
/// options travel to the helper), its factory.
struct ProcessPluginType: PluginType {
    var name: PluginKind { .process }
    var pluginKeys: [ConfigKey] {
        [ConfigKey("command", .other("list of strings (argv), or a string with `shell: true`"), required: true, "The helper's command."),
         ConfigKey("shell", .boolean, default: "false", "Run `command` as a string through /bin/sh -c."),
         ConfigKey("deadline-ms", .integer(1...3_600_000), default: "100", "Milliseconds an event waits for the helper's answer before it walks on."),
         ConfigKey("max-buffer", .integer(1024...(64 << 20)), default: "262144", "Bytes queued for the helper's stdin; events beyond are dropped (declined, counted)."),
         ConfigKey("restart-min-ms", .integer(1...3_600_000), default: "100", "The first delay before a helper that exited is restarted."),
         ConfigKey("restart-max-ms", .integer(1...3_600_000), default: "30000", "The longest delay, doubling from `restart-min-ms`."),
         ConfigKey("stable-after", .number(nil), default: "60", "Seconds a helper stays up before the delay goes back to `restart-min-ms`.")]
    }
    var metrics: [PluginMetric] { ProcessPlugin.metrics }
    var handlerOptionsAreFreeForm: Bool { true }

    func readOptions(_ r: inout PluginOptionReader) -> (any Sendable)? {
        let shell = r.bool("shell", default: false)
        let argv = r.command(shell: shell)
        if argv == nil, r.value("command") == nil { r.fail(nil, "`command` (the helper's argv) is required") }
        return ProcessOptions(command: argv ?? [], deadline: r.milliseconds("deadline-ms", default: 100),
                              maxBuffer: r.integer("max-buffer", default: 256 * 1024, in: 1024...(64 << 20)),
                              restartMinimum: r.milliseconds("restart-min-ms", default: 100),
                              restartMaximum: r.milliseconds("restart-max-ms", default: 30_000),
                              stableAfter: r.seconds("stable-after", default: 60))
    }

    func makePlugin(spec: PluginSpec, options: (any Sendable)?, context: PluginContext) -> (any Plugin)? {
        (options as? ProcessOptions).map { ProcessPlugin(spec: spec, options: $0, context: context) }
    }
}

/// `process`: a long-running helper that reads event JSON lines on stdin and writes answers
/// `{"id":N,"handled":true|false}` on stdout. Events are pipelined, each with its own
/// deadline (`deadline-ms`); an event declined, or not answered in time, walks on to the next
/// handler. Writes to the helper never block: past `max-buffer` unsent bytes, events are
/// dropped (declined, counted). A helper that exits is restarted with exponential backoff
/// (`restart-min-ms` doubling to `restart-max-ms`, back to the minimum once it has stayed up
/// `stable-after` seconds); while it is down its events are declined at once. Its stderr goes
/// to the log; garbage on stdout is counted and logged (rate-limited).
final class ProcessPlugin: Plugin, EndOfFrameWriter {
    /// A running helper and its three pipes.
    private final class Helper {
        let child: ChildProcess
        let stdinFD: FileDescriptor
        let stdin: OutboundBuffer
        var stdoutFD: FileDescriptor
        var stderrFD: FileDescriptor
        var watchingStdin = false
        var stdinBroken = false
        init(child: ChildProcess, stdinFD: FileDescriptor, stdoutFD: FileDescriptor, stderrFD: FileDescriptor, maxBuffer: Int) {
            self.child = child
            self.stdinFD = stdinFD
            self.stdoutFD = stdoutFD
            self.stderrFD = stderrFD
            stdin = OutboundBuffer(fd: stdinFD, limit: maxBuffer, isSocket: false)
        }
    }

    let spec: PluginSpec
    let config: ProcessOptions
    private let context: PluginContext
    private(set) var statistics: PluginStatistics
    private var helper: Helper?
    /// Helpers stopped or dead whose exit has not been reaped yet.
    private var exiting: [ChildProcess] = []
    private var restartTimer: EventLoop.TimerID?
    private var backoff: Timestamp.Duration
    private let pending: PendingAnswers
    private var stopped = false
    private var garbageLogs = LogRateLimiter()
    private var timeoutLogs = LogRateLimiter()
    private var dropLogs = LogRateLimiter()
    private var stderrLogs = LogRateLimiter(burst: 50, window: .seconds(10))
    private let environment: [String]

    /// `options` were checked when the layout compiled (``Layout/pluginOptions``).
    init(spec: PluginSpec, options: ProcessOptions, context: PluginContext) {
        self.spec = spec
        self.context = context
        config = options
        statistics = PluginStatistics(name: spec.name, type: spec.type)
        backoff = config.restartMinimum
        pending = PendingAnswers(loop: context.loop, timeout: config.deadline)
        environment = ChildEnvironment.inherited() + ["EVROUTE_PLUGIN=\(spec.name)"]
        pending.onExpired = { [weak self] entry in self?.expired(entry) }
        updateGauges()
    }

    var liveChildren: [ChildProcess] {
        (exiting + [helper?.child].compactMap { $0 }).filter(\.isRunning)
    }

    // MARK: Life cycle

    func start() { launch() }

    private func launch() {
        restartTimer = nil
        guard !stopped, helper == nil else { return }
        var opened: [FileDescriptor] = []
        do {
            let input = try Pipe.make(), output = try Pipe.make(), errors = try Pipe.make()
            opened = [input.read, input.write, output.read, output.write, errors.read, errors.write]
            // Its own process group, killed with it: a helper's background children do not
            // outlive it (not its exit, not a restart, not the daemon's shutdown).
            let child = try ChildProcess.spawn(config.command, environment: environment, stdin: input.read,
                                               stdout: output.write, stderr: errors.write, loop: context.loop,
                                               killsGroupOnExit: true)
            for fd in [input.read, output.write, errors.write] { try? SystemCall.close(fd) }
            opened = [input.write, output.read, errors.read]
            for fd in opened { try SystemCall.setNonBlocking(fd) }
            let h = Helper(child: child, stdinFD: input.write, stdoutFD: output.read, stderrFD: errors.read, maxBuffer: config.maxBuffer)
            helper = h
            child.onExit = { [weak self] child in self?.helperExited(child) }
            watchStdout(h)
            watchStderr(h)
            statistics[gauge: .pid] = Int(child.pid)
            context.log.info(.pluginStarted, fields: [.plugin: spec.name], "process \(spec.name): helper started [\(child.pid)]: \(config.command.joined(separator: " "))")
        } catch {
            for fd in opened { try? SystemCall.close(fd) }
            statistics.failures += 1
            statistics.lastError = "\(error)"
            context.log.error(.pluginFailed, fields: [.plugin: spec.name], "process \(spec.name): \(error); retrying in \(backoff.seconds) s")
            scheduleRestart(after: nextBackoff())
        }
        updateGauges()
    }

    private func nextBackoff() -> Timestamp.Duration {
        let delay = backoff
        backoff = Timestamp.Duration(microseconds: min(backoff.microseconds * 2, config.restartMaximum.microseconds))
        return delay
    }

    private func scheduleRestart(after delay: Timestamp.Duration) {
        guard !stopped, restartTimer == nil else { return }
        restartTimer = context.loop.schedule(after: delay) { [weak self] in
            guard let self else { return }
            self.statistics.restarts += 1
            self.launch()
        }
    }

    /// The helper is gone (exited, or its stdin broke): close its pipes, walk its waiting
    /// events on, and restart it later.
    private func takeDown(_ h: Helper, why: String) {
        guard helper === h else { return }
        helper = nil
        frame.reset()   // the lines of its waiting events, which walk on below
        // Answers it wrote before going are still honoured.
        if h.stdoutFD.isValid { drainStdout(h) }
        closePipes(h)
        if h.child.isRunning {
            h.child.signal(SIGTERM)
            exiting.append(h.child)
        }
        statistics.failures += 1
        statistics.lastError = "helper [\(h.child.pid)] \(why)"
        statistics[gauge: .pid] = nil
        let uptime = MonotonicClock.now() - h.child.startTime
        if uptime >= config.stableAfter { backoff = config.restartMinimum }
        let delay = nextBackoff()
        context.log.warning(.pluginRestarting, fields: [.plugin: spec.name], "process \(spec.name): helper [\(h.child.pid)] \(why); restarting in \(delay.seconds) s")
        let waiting = pending.removeAll()
        updateGauges()
        scheduleRestart(after: delay)
        for entry in waiting {
            statistics.declined += 1
            context.continueRouting(entry.event, entry.handler)
        }
    }

    private func helperExited(_ child: ChildProcess) {
        exiting.removeAll { $0 === child }
        if child.killedLeftovers {
            context.log.info("process \(spec.name): helper [\(child.pid)] exited; killed what it left running in its process group")
        }
        if let h = helper, h.child === child {
            takeDown(h, why: child.exitDescription)
        }
    }

    private func closePipes(_ h: Helper) {
        if h.watchingStdin { context.loop.unwatch(h.stdinFD) }
        try? SystemCall.close(h.stdinFD)
        h.stdinBroken = true
        if h.stdoutFD.isValid {
            stdoutReaders.removeValue(forKey: h.stdoutFD)?.stop()
            context.loop.unwatch(h.stdoutFD); try? SystemCall.close(h.stdoutFD); h.stdoutFD = .invalid
        }
        if h.stderrFD.isValid {
            // Keep what it said last.
            let reader = LineReader(fd: h.stderrFD, maximumLineLength: 4096)
            reader.onLine = { [weak self] line in self?.logStderr(line, pid: h.child.pid) }
            reader.onOverlong = reader.onLine   // logged cut at the limit
            _ = reader.readAvailable(budget: 16 * 1024)
            context.loop.unwatch(h.stderrFD); try? SystemCall.close(h.stderrFD); h.stderrFD = .invalid
        }
    }

    func stop(_ reason: PluginStopReason) {
        stopped = true
        if let h = helper { writeLines(h) }   // the last frame's lines are not lost
        if let t = restartTimer { context.loop.cancel(t); restartTimer = nil }
        let waiting = pending.removeAll()
        if let h = helper {
            helper = nil
            closePipes(h)   // EOF on its stdin: a polite helper exits by itself
            h.child.signal(SIGTERM)
            if h.child.isRunning {
                exiting.append(h.child)
                h.child.onExit = { [weak self] child in self?.helperExited(child) }
            }
        }
        updateGauges()
        if reason == .reload {
            for entry in waiting {
                statistics.declined += 1
                context.continueRouting(entry.event, entry.handler)
            }
        }
    }

    // MARK: Events

    /// Writes the event's line into the frame's buffer; the frame's lines leave at the end of
    /// the wake-up in one write(2) to the helper's stdin (``writeFrame()``).
    func deliver(_ d: PluginDelivery) -> HandlerVerdict {
        let id = context.drawEventID()
        guard let h = helper, !h.stdinBroken else {
            statistics.declined += 1
            statistics[counter: .declinedWhileDown] += 1
            return .declined
        }
        let before = frame.bytes.count
        d.appendJSONLine(id: id, to: &frame)
        guard h.stdin.fits(frame.bytes.count) else {
            frame.bytes.removeSubrange(before...)
            statistics.dropped += 1
            context.log.limited(.warning, &dropLogs,
                                "process \(spec.name): helper [\(h.child.pid)] is not reading its stdin (\(h.stdin.queued) bytes waiting); event dropped")
            return .declined
        }
        if !frameQueued {
            frameQueued = true
            context.writeAtEndOfFrame(self)
        } else if frame.bytes.count >= PluginContext.frameFlushBytes {
            writeLines(h)   // a long wake-up (a replay's chunk) does not hold all its lines
            guard helper === h else {   // its stdin broke: taken down
                statistics.declined += 1
                return .declined
            }
        }
        pending.add(id: id, event: d.event, handler: d.handler)
        updateGauges()
        return .handled
    }

    /// The event lines of this wake-up (``deliver(_:)``).
    private var frame = JSONWriter(capacity: 4096)
    /// Whether the end-of-frame write is registered.
    private var frameQueued = false
    /// The end of the wake-up (registered with ``PluginContext/writeAtEndOfFrame(_:)``).
    func writeEndOfFrame() {
        frameQueued = false
        if let h = helper { writeLines(h) } else { frame.reset() }
    }

    /// Writes the frame's lines to `h`'s stdin (what the pipe does not take waits for it to be
    /// writable); a helper whose stdin broke is taken down (its waiting events, this frame's
    /// included, walk on).
    private func writeLines(_ h: Helper) {
        guard !frame.bytes.isEmpty else { return }
        defer { frame.reset() }
        guard !h.stdinBroken else { return }
        switch h.stdin.send(frame.bytes) {
        case .drained: break
        case .pending: watchStdin(h)
        case .failed(let e):
            h.stdinBroken = true
            takeDown(h, why: "closed its stdin (\(String(cString: strerror(e))))")
        }
        updateGauges()
    }

    private func watchStdin(_ h: Helper) {
        guard !h.watchingStdin else { return }
        h.watchingStdin = true
        do {
            try context.loop.watch(h.stdinFD, for: .writable) { [weak self, weak h] _ in
                guard let self, let h else { return }
                switch h.stdin.flush() {
                case .drained:
                    h.watchingStdin = false
                    self.context.loop.unwatch(h.stdinFD)
                case .pending: break
                case .failed(let e):
                    h.stdinBroken = true
                    self.takeDown(h, why: "closed its stdin (\(String(cString: strerror(e))))")
                }
            }
        } catch {
            h.watchingStdin = false
        }
    }

    private func watchStdout(_ h: Helper) {
        let reader = LineReader(fd: h.stdoutFD, maximumLineLength: ControlServer.maximumRequest)
        reader.onLine = { [weak self] line in self?.answer(line, pid: h.child.pid) }
        reader.onOverlong = { [weak self] prefix in
            // Never executed: counted as garbage and answered with the error (tagged when it can be).
            guard let self else { return }
            statistics[counter: .garbageLines] += 1
            reply(context.reply(toOverlong: prefix))
        }
        stdoutReaders[h.stdoutFD] = reader
        do {
            try context.loop.watch(h.stdoutFD) { [weak self, weak h] _ in
                guard let self, let h else { return }
                if reader.readAvailable() == .endOfFile {
                    self.context.loop.unwatch(h.stdoutFD)
                    self.stdoutReaders[h.stdoutFD] = nil
                    try? SystemCall.close(h.stdoutFD)
                    h.stdoutFD = .invalid
                }
            }
        } catch {}
    }

    private var stdoutReaders: [FileDescriptor: LineReader] = [:]

    private func drainStdout(_ h: Helper) {
        guard let reader = stdoutReaders.removeValue(forKey: h.stdoutFD) else { return }
        _ = reader.readAvailable()
        reader.stop()   // the pipe closes next: a read under way (this answer's caller) ends
    }

    private func watchStderr(_ h: Helper) {
        let reader = LineReader(fd: h.stderrFD, maximumLineLength: 4096)
        let pid = h.child.pid
        reader.onLine = { [weak self] line in self?.logStderr(line, pid: pid) }
        reader.onOverlong = reader.onLine   // logged cut at the limit
        do {
            try context.loop.watch(h.stderrFD) { [weak self, weak h] _ in
                guard let self, let h else { return }
                if reader.readAvailable(budget: 64 * 1024) == .endOfFile {
                    self.context.loop.unwatch(h.stderrFD)
                    try? SystemCall.close(h.stderrFD)
                    h.stderrFD = .invalid
                }
            }
        } catch {}
    }

    private func logStderr(_ line: ArraySlice<UInt8>, pid: pid_t) {
        context.log.limited(.info, &stderrLogs, "process \(spec.name) [\(pid)]: \(Log.escaped(line))")
    }

    private func answer(_ line: ArraySlice<UInt8>, pid: pid_t) {
        if let answer = context.reply(toCommand: line) {
            statistics[counter: .commands] += 1
            reply(answer)
            return
        }
        let settlement = pending.settle(line)
        let outcome = statistics.count(settlement) { text in
            context.log.limited(.warning, &garbageLogs, "process \(spec.name) [\(pid)]: not an answer: \(text)")
        }
        if outcome.settled { updateGauges() }
        // Last, with nothing of this plugin's held: the walk may come back to it.
        if let entry = outcome.declined { context.continueRouting(entry.event, entry.handler) }
    }

    /// Writes an answer line to the helper's stdin (dropped when it does not read it).
    private func reply(_ bytes: [UInt8]) {
        if let h = helper { writeLines(h) }   // after the event lines already queued
        guard let h = helper, !h.stdinBroken, h.stdin.fits(bytes.count) else { return }
        switch h.stdin.send(bytes) {
        case .drained: break
        case .pending: watchStdin(h)
        case .failed: h.stdinBroken = true
        }
    }

    private func expired(_ entry: PendingAnswers.Entry) {
        statistics.timedOut += 1
        updateGauges()
        context.log.limited(.warning, &timeoutLogs,
                            "process \(spec.name): no answer to event \(entry.id) within \(config.deadline.microseconds / 1000) ms; it walks on")
        context.continueRouting(entry.event, entry.handler)
    }

    /// Events waiting for the helper's answer, or bytes for its stdin (a running helper is not busy).
    var isBusy: Bool { (statistics[gauge: .pending] ?? 0) > 0 || (statistics[gauge: .queuedBytes] ?? 0) > 0 }

    private func updateGauges() {
        statistics[gauge: .pending] = pending.count
        statistics[gauge: .helperRunning] = helper == nil ? 0 : 1
        statistics[gauge: .queuedBytes] = helper?.stdin.queued ?? 0
    }
}

extension PluginMetric {
    /// `process`: the helper's process id (absent while it is down).
    static let pid = PluginMetric(gauge: "pid", help: "The helper's process id (absent while it is down).")
    /// `process`: 1 while the helper runs, else 0 (not work in flight).
    static let helperRunning = PluginMetric(gauge: "running", help: "1 while the helper runs, else 0.")
    /// `process`: bytes waiting to be written to the helper's stdin.
    static let queuedBytes = PluginMetric(gauge: "queued_bytes", help: "Bytes waiting to be written to the helper's stdin.")
    /// `process`: events declined at once because the helper was down.
    static let declinedWhileDown = PluginMetric(counter: "declined_while_down", help: "Events declined at once because the helper was down.")
}

extension ProcessPlugin {
    static let metrics: [PluginMetric] = [.pid, .helperRunning, .queuedBytes, .declinedWhileDown] + PluginMetric.answers
}
