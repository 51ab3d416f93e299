import EvrouteConfig
#if canImport(Glibc)
import Glibc
#endif
import EvrouteCore
import EvrouteSystem

extension PluginKind {
    /// Hosted: runs a command per event, the event in `EVROUTE_*` variables.
    public static let exec: PluginKind = "exec"
}

/// `exec`'s plugin-level options.
struct ExecOptions: Sendable, Equatable {
    /// The plugin's argv (a handler's own `command` wins); nil when only handlers give one.
    var command: [String]?
    var shell: Bool
    var maxConcurrent: Int
    var maxQueued: Int
    var timeout: Timestamp.Duration
    var killAfter: Timestamp.Duration
    var outputLimit: Int
}

/// The `exec` type: its options (typed once, when the layout compiles), a handler's own
/// `command` and `shell` (its argv, kept in ``Layout/handlerOptions``), its factory.
struct ExecPluginType: PluginType {
    var name: PluginKind { .exec }
    var pluginKeys: [ConfigKey] {
        [ConfigKey("command", .other("list of strings (argv), or a string with `shell: true`"),
                   "The command run per event (a handler's own `command` wins)."),
         ConfigKey("shell", .boolean, default: "false", "Run `command` as a string through /bin/sh -c."),
         ConfigKey("max-concurrent", .integer(1...256), default: "4", "Commands that run at once."),
         ConfigKey("max-queued", .integer(0...4096), default: "16", "Commands waiting for a free slot; events beyond are dropped (counted)."),
         ConfigKey("timeout", .number(nil), default: "10", "Seconds a command may run before SIGTERM (> 0, at most 86400)."),
         ConfigKey("kill-after", .number(nil), default: "1", "Seconds between SIGTERM and SIGKILL (> 0, at most 86400)."),
         ConfigKey("output-limit", .integer(0...(64 << 20)), default: "16384", "Bytes of a command's output that go to the log.")]
    }
    var handlerKeys: [ConfigKey] {
        [ConfigKey("command", .other("list of strings (argv), or a string with `shell: true`"), "The command this handler runs instead of its plugin's."),
         ConfigKey("shell", .boolean, default: "the plugin's", "Run the handler's `command` through /bin/sh -c.")]
    }
    var metrics: [PluginMetric] { ExecPlugin.metrics }

    func readOptions(_ r: inout PluginOptionReader) -> (any Sendable)? {
        let shell = r.bool("shell", default: false)
        return ExecOptions(command: r.command(shell: shell), shell: shell,
                           maxConcurrent: r.integer("max-concurrent", default: 4, in: 1...256),
                           maxQueued: r.integer("max-queued", default: 16, in: 0...4096),
                           timeout: r.seconds("timeout", default: 10), killAfter: r.seconds("kill-after", default: 1),
                           outputLimit: r.integer("output-limit", default: 16 * 1024, in: 0...(64 << 20)))
    }

    /// The argv the handler runs (its own `command`, else its plugin's); a handler with none
    /// anywhere routes, but no host can run it (``HandlerOptionCheck/runErrors``).
    func checkHandler(_ c: inout HandlerOptionCheck) {
        var r = c.reader
        let plugin = c.pluginOptions as? ExecOptions
        let shell = r.bool("shell", default: plugin?.shell ?? false)
        let argv = r.command(shell: shell) ?? (r.value("command") == nil ? plugin?.command : nil)
        // (A plugin `command` that is wrong has its own error.)
        if argv == nil, r.errors.isEmpty, c.declared?.options["command"] == nil {
            c.runErrors.append(Diagnostic("plugin \(c.handler.plugin): no `command`: give one on the handler or on the plugin", at: c.handler.location))
        }
        c.errors += r.errors
        c.options = argv
    }

    func makePlugin(spec: PluginSpec, options: (any Sendable)?, context: PluginContext) -> (any Plugin)? {
        (options as? ExecOptions).map { ExecPlugin(spec: spec, options: $0, context: context) }
    }
}

/// `exec`: runs a command per event, without a shell unless `shell: true`, with the event in
/// `EVROUTE_*` environment variables. Commands start right after the current loop callback.
/// At most `max-concurrent` run at once; more wait in a queue of `max-queued`, beyond which
/// events are dropped (counted, warned). A
/// command running longer than `timeout` gets SIGTERM, then SIGKILL `kill-after` later. Its
/// stdout and stderr go to the log line by line, up to `output-limit` bytes. Always handles:
/// whether the command succeeds is its own business.
final class ExecPlugin: Plugin {
    private struct Job {
        var argv: [String]
        var environment: [String]
        var label: String
    }

    private final class Running {
        let child: ChildProcess
        var timeoutTimer: EventLoop.TimerID?
        var killTimer: EventLoop.TimerID?
        init(child: ChildProcess) { self.child = child }
    }

    let spec: PluginSpec
    let config: ExecOptions
    private let context: PluginContext
    private(set) var statistics: PluginStatistics
    private let baseEnvironment: [String]
    private var running: [pid_t: Running] = [:]
    private var queue: [Job] = []
    private var dropWarnings = LogRateLimiter()
    private var errorLogs = LogRateLimiter()
    private var stopped = false
    private var startScheduled = false

    /// `options` and each handler's argv (``Layout/handlerOptions``) were checked when the layout compiled.
    init(spec: PluginSpec, options: ExecOptions, context: PluginContext) {
        self.spec = spec
        self.context = context
        config = options
        statistics = PluginStatistics(name: spec.name, type: spec.type)
        baseEnvironment = ChildEnvironment.inherited()
        updateGauges()
    }

    func start() {}

    var liveChildren: [ChildProcess] { running.values.map(\.child).filter(\.isRunning) }

    func deliver(_ d: PluginDelivery) -> HandlerVerdict {
        statistics.handled += 1
        // The argv of the handler in the layout the event belongs to (handler indices are per layout).
        let id = context.drawEventID()
        guard let argv = d.handlerOptions as? [String] else {
            fail("handler \(d.handlerIndex) has no command in its layout")
            return .handled
        }
        let job = Job(argv: argv, environment: baseEnvironment + EventEnvironment.variables(for: d, id: id),
                      label: "\(spec.name)/\(argv.last.map { String($0.prefix(40)) } ?? "")")
        if stopped {
            statistics.dropped += 1
        } else if running.count + queue.count < config.maxConcurrent + config.maxQueued {
            queue.append(job)
            scheduleStarts()
        } else {
            statistics.dropped += 1
            context.log.limited(.warning, &dropWarnings,
                                "exec \(spec.name): \(running.count) commands running and \(queue.count) queued; event dropped")
        }
        updateGauges()
        return .handled
    }

    /// posix_spawn suspends the caller until the child has exec'd (about a millisecond):
    /// commands start right after the current loop callback, so the frame being routed
    /// finishes first and dispatch returns in microseconds.
    private func scheduleStarts() {
        guard !startScheduled else { return }
        startScheduled = true
        context.loop.schedule(after: .init(microseconds: 0)) { [weak self] in
            guard let self else { return }
            self.startScheduled = false
            self.startQueued()
        }
    }

    private func startQueued() {
        while !stopped, running.count < config.maxConcurrent, !queue.isEmpty {
            run(queue.removeFirst())
        }
        statistics[gauge: .peakRunning] = max(statistics[gauge: .peakRunning] ?? 0, running.count)
        updateGauges()
    }

    func stop(_ reason: PluginStopReason) {
        stopped = true
        statistics.dropped += queue.count
        queue.removeAll()
        if reason == .shutdown {
            for r in running.values { r.child.signal(SIGTERM) }
        }
        updateGauges()
    }

    private func fail(_ message: String) {
        statistics.failures += 1
        statistics.lastError = message
        context.log.limited(.error, &errorLogs, "exec \(spec.name): \(message)")
    }

    private func run(_ job: Job) {
        let pipe: Pipe
        do { pipe = try Pipe.make() } catch { fail("\(error)"); return }
        let child: ChildProcess
        do {
            child = try ChildProcess.spawn(job.argv, environment: job.environment, stdin: nil,
                                           stdout: pipe.write, stderr: pipe.write, loop: context.loop)
        } catch {
            try? SystemCall.close(pipe.read)
            try? SystemCall.close(pipe.write)
            fail("\(error)")
            return
        }
        try? SystemCall.close(pipe.write)
        statistics[counter: .started] += 1
        watchOutput(pipe.read, pid: child.pid, label: job.label)
        let r = Running(child: child)
        running[child.pid] = r
        child.onExit = { [weak self] child in self?.exited(child) }
        r.timeoutTimer = context.loop.schedule(after: config.timeout) { [weak self, weak r] in
            guard let self, let r, r.child.isRunning else { return }
            r.timeoutTimer = nil
            self.statistics[counter: .timeouts] += 1
            self.fail("\(job.label) [\(r.child.pid)] still running after \(self.config.timeout.seconds) s: SIGTERM")
            r.child.signal(SIGTERM)
            r.killTimer = self.context.loop.schedule(after: self.config.killAfter) { [weak r] in
                guard let r, r.child.isRunning else { return }
                r.child.signal(SIGKILL)
            }
        }
    }

    private func exited(_ child: ChildProcess) {
        guard let r = running.removeValue(forKey: child.pid) else { return }
        if let t = r.timeoutTimer { context.loop.cancel(t) }
        if let t = r.killTimer { context.loop.cancel(t) }
        if !child.exitedCleanly {
            statistics[counter: .nonzeroExits] += 1
            context.log.limited(.notice, &errorLogs, "exec \(spec.name): \(child.argv[0]) [\(child.pid)] \(child.exitDescription)")
        }
        startQueued()
    }

    /// Logs the child's output line by line, up to `output-limit` bytes; drains (and drops)
    /// the rest so the child never blocks on a full pipe.
    private func watchOutput(_ fd: FileDescriptor, pid: pid_t, label: String) {
        try? SystemCall.setNonBlocking(fd)
        let reader = LineReader(fd: fd, maximumLineLength: 4096)
        let limit = config.outputLimit
        let log = context.log
        var logged = 0
        var truncated = false
        reader.onLine = { [weak self] line in
            guard !truncated else { return }
            logged += line.count + 1
            if logged > limit {
                truncated = true
                self?.statistics[counter: .outputTruncated] += 1
                log.notice("exec \(label) [\(pid)]: output beyond \(limit) bytes dropped")
                return
            }
            log.info("exec \(label) [\(pid)]: \(Log.escaped(line))")
        }
        reader.onOverlong = reader.onLine   // logged cut at the limit
        let loop = context.loop
        do {
            try loop.watch(fd) { _ in
                if reader.readAvailable() == .endOfFile {
                    loop.unwatch(fd)
                    try? SystemCall.close(fd)
                }
            }
        } catch {
            try? SystemCall.close(fd)
        }
    }

    /// Commands running or waiting for a slot.
    var isBusy: Bool { (statistics[gauge: .running] ?? 0) > 0 || (statistics[gauge: .queued] ?? 0) > 0 }

    private func updateGauges() {
        statistics[gauge: .running] = running.count
        statistics[gauge: .queued] = queue.count
    }
}

extension PluginMetric {
    /// `exec`: commands running.
    static let running = PluginMetric(gauge: "running", help: "Commands running.")
    /// `exec`: commands waiting for a free slot.
    static let queued = PluginMetric(gauge: "queued", help: "Commands waiting for a free slot.")
    /// `exec`: the most commands that ran at once.
    static let peakRunning = PluginMetric(gauge: "peak_running", help: "The most commands that ran at once.")
    /// `exec`: commands started.
    static let started = PluginMetric(counter: "started", help: "Commands started.")
    /// `exec`: commands still running at `timeout` (sent SIGTERM).
    static let timeouts = PluginMetric(counter: "timeouts", help: "Commands still running at `timeout` (sent SIGTERM).")
    /// `exec`: commands that exited non-zero or were killed by a signal.
    static let nonzeroExits = PluginMetric(counter: "nonzero_exits", help: "Commands that exited non-zero or were killed by a signal.")
    /// `exec`: commands whose output went beyond `output-limit`.
    static let outputTruncated = PluginMetric(counter: "output_truncated", help: "Commands whose output went beyond `output-limit`.")
}

extension ExecPlugin {
    static let metrics: [PluginMetric] = [.running, .queued, .peakRunning, .started, .timeouts, .nonzeroExits, .outputTruncated]
}
