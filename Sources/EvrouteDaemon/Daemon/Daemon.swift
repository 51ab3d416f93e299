#if canImport(Glibc)
import Glibc
#endif
import EvrouteConfig
import EvrouteCore
import EvrouteInput
import EvrouteJSON
import EvrouteRuntime
import EvrouteSystem
import CLinux

/// The evroute daemon: a list of components run by a ``Pipeline`` (its one event loop, signal
/// handling, session timer and flush policy) — the plugins, the control socket, the input
/// (``LiveInputSource``, which watches its own devices and the udev monitor in the loop, or a
/// ``ReplayDriver`` standing in for it), the plugins as the router's handlers, the watchdog —
/// around the ``RoutingSession``; it adds status, reload and systemd notification. Routing happens on the loop thread as events arrive and never waits
/// for a handler. The config is read in this process (libyaml, no Foundation) at start and on
/// every reload; no child process is started for it. A reload reads and compiles it on a thread
/// of its own (``BackgroundJob``), so a large config does not stall routing or the control
/// socket; the new layout is swapped in on the loop.
///
/// - Startup: config (errors → exit 1, each as `file:line:col`), plugins, control socket,
///   devices, then `READY=1` with a `STATUS=` line.
/// - `SIGHUP` (or `{"command":"reload"}` on the control socket): reload; see ``reload(answer:)``.
/// - `SIGTERM` / `SIGINT`: `STOPPING=1`, active touches and held keys cancelled (routed to
///   their handlers), plugins shut down, devices closed (ungrabbed), the control socket
///   removed, exit 0.
///
/// ```swift
/// Daemon.blockSignals()                // first thing in main, before any thread exists
/// let status = Daemon(options: options).run()
/// ```
public final class Daemon {
    /// The signals the daemon takes through its signalfd.
    public static let handledSignals: [Int32] = [SIGTERM, SIGINT, SIGHUP]

    /// Blocks the daemon's signals in the calling thread, and ignores `SIGPIPE`. Call it in
    /// `main` before anything starts a thread: threads inherit the mask, so no thread can take
    /// a signal meant for the signalfd.
    public static func blockSignals() {
        var mask = sigset_t()
        sigemptyset(&mask)
        for s in handledSignals { sigaddset(&mask, s) }
        pthread_sigmask(SIG_BLOCK, &mask, nil)
        signal(SIGPIPE, SIG_IGN)
    }

    let options: DaemonOptions
    let log: Log
    let notifier: SystemdNotifier

    /// The event loop, signals, session timer and flush policy, and the components (``components``).
    private(set) var pipeline: Pipeline!
    var loop: EventLoop { pipeline.loop }
    private(set) var session: RoutingSession!
    private(set) var plugins: PluginHost?
    private(set) var observer: DaemonObserver!
    private(set) var control: ControlServer?
    private(set) var live: LiveInputSource?
    private(set) var replay: ReplayDriver?
    /// The run-time layout commands (docs/ui-control.md), for the control socket and plugin peers.
    private(set) var layoutControl: RuntimeControl!
    /// The config file the running layout came from.
    private(set) var configSource = ConfigLoader.builtInName
    let startTime = MonotonicClock.now()
    private(set) var readyTime: Timestamp?
    /// When the running config was loaded (start, or the last reload that took).
    private(set) var lastConfigLoad = MonotonicClock.now()
    /// The metrics sink, while the config has a `metrics:` block.
    var metrics: MetricsSink?
    /// The next write of the metrics text file.
    var metricsTimer: EventLoop.TimerID?
    /// The `metrics:` block running (its text file and interval).
    var metricsSpec: MetricsSpec?
    /// The last write of the text file: its path, and what it failed with (nil: it worked).
    /// A failure is logged when it differs from the last one (another path, another error).
    var metricsLastWrite: MetricsWrite?
    /// The reload state machine (one compile at a time, one queued behind it, who is answered
    /// by which compile, the counters): plain logic this class drives (``ReloadCoordinator``).
    private var reloadState = ReloadCoordinator<ControlServer.PendingAnswer, LoadedConfig>()
    var reloads: Int { reloadState.reloads }
    var failedReloads: Int { reloadState.failedReloads }
    var lastReloadErrors: [String] { reloadState.lastErrors }
    /// The config being read and compiled off the loop for a reload (nil: none).
    private var reloadJob: BackgroundJob<ConfigLoad>?
    /// The thread freeing the layout a reload replaced (nil: none).
    private var layoutRelease: BackgroundJob<Void>?
    /// Whether a reload is being compiled (or one is queued behind it): `reloading` in `status`.
    var isReloading: Bool { reloadState.isReloading }
    /// Events read by input sources a reload replaced.
    private var earlierLiveEvents = 0
    /// Raw input events routed (live and replayed).
    var inputEvents: Int { earlierLiveEvents + (live?.eventsRead ?? 0) + (replay?.eventsFed ?? 0) }
    private var exitStatus: Int32 = 0
    private(set) var replayStarted = false
    private var stopping = false

    /// Reads the systemd environment (`$NOTIFY_SOCKET`, `$WATCHDOG_USEC`); nothing starts
    /// before ``run()``.
    public init(options: DaemonOptions, log: Log? = nil) {
        self.options = options
        self.log = log ?? Log(threshold: options.logLevel, journalSocket: Log.journalSocketPath)
        notifier = SystemdNotifier()
    }

    /// Starts, runs until SIGTERM / SIGINT (or the end of the replays with
    /// ``DaemonOptions/exitAfterReplay``), shuts down, and returns the exit status:
    /// 0 after a clean stop, 1 when startup failed.
    public func run() -> Int32 {
        Daemon.blockSignals()
        // The log never waits for its reader (journald stuck, a paused terminal, `| less`):
        // routing, the control socket and SIGTERM go on; lines beyond its backlog are dropped
        // and counted (docs/daemon.md).
        log.writeWithoutWaiting()
        do {
            try start()
        } catch {
            // What had started is stopped already, in reverse (``Pipeline/start(_:)``).
            log.error(.startFailed, "\(error)")
            notifier.notify("STATUS=failed to start: \(error)".replacingNewlines())
            return 1
        }
        // Info and debug lines (the `log` plugin's among them) are buffered; notices, warnings
        // and errors go out at once. After each wakeup the gesture timer follows what it routed,
        // and the plugins write the event lines they queued (one write(2) per socket client; a `process`
        // helper's stdin is still written per event).
        log.buffered = true
        log.watchWritability(in: loop)
        // Buffered lines (the journal's t= is the event's time) leave per the one flush
        // policy (``OutputFlush``): live, at the end of a wake-up once they have waited long
        // enough by the event's time; else by a timer.
        pipeline.run(afterWakeup: { [plugins, unowned self] in
                         plugins?.writeFrame()
                         metrics?.wakeupEnded()
                     },
                     pending: { [log] in log.hasPending }, flush: { [log] in log.flush() }, liveInput: live != nil)
        // The last lines (the stop's notice among them) and the count of those dropped: written
        // before exit, waiting for a reader that is behind at most a bounded time (well within
        // the unit's TimeoutStopSec=10s); what journald did not take by then goes to stderr.
        log.buffered = false
        log.drain(waitingAtMost: Daemon.logDrainMilliseconds)
        return exitStatus
    }

    /// How long the stop waits for the log's reader (journald, a pipe) to take the last lines.
    static let logDrainMilliseconds = 2000

    /// A device's node: its `/dev/input/event*` path live, its recording replayed (nil: neither).
    func node(of id: DeviceID) -> String? {
        live?.device(id)?.path ?? replay?.devices.first { $0.id == id }?.path
    }

    /// A startup failure, already worded for the log.
    struct StartupError: Error, CustomStringConvertible {
        var description: String
    }

    // MARK: Startup

    func start() throws {
        // Each control or plugin client is a descriptor: the soft limit (often 1024) goes up to
        // the hard one (docs/daemon.md, "Control socket").
        let descriptors = DescriptorLimit.raiseSoftToHard()
        log.debug("descriptor limit (RLIMIT_NOFILE): \(descriptors.before == descriptors.after ? "\(descriptors.after), as it was" : "raised from \(descriptors.before) to \(descriptors.after)")")
        let layout = try takeConfig(Daemon.readConfig(path: options.configPath, controlSocket: options.controlSocketPath)).get()
        session = RoutingSession(layout: layout, clock: ManualClock())
        pipeline = try Pipeline(session: session)
        try pipeline.handleSignals(more: [SIGHUP]) { [unowned self] signal in self.signalled(signal) }

        session.onDeviceIgnored = { [log] _, description, kind, reason, _ in
            log.info(.deviceIgnored, "device ignored: \"\(Log.escaped(description.name))\" (\(kind.rawValue)): \(reason)")
        }
        session.onDeviceWarning = { [unowned self] info, warning, _ in
            // Lost events have their own kind and name the node too: which of a rule's devices,
            // the one `status` lists.
            var kind = LogKind.deviceWarning, node = ""
            if case .eventsDropped = warning {
                kind = .eventsDropped
                node = self.node(of: info.id).map { ", \(Log.escaped($0))" } ?? ""
            }
            log.warning(kind, fields: [.device: info.ruleName], "input: device \"\(Log.escaped(info.name))\" (rule \(info.ruleName)\(node)): \(warning)")
        }
        session.onWarning = { [log] message, _ in log.warning(.deviceWarning, message) }
        session.onDeviceAdded = { [unowned self] info, description, mapper in
            plugins?.deviceAdded(info, description: description, mapper: mapper)
        }
        session.onDeviceRemoved = { [unowned self] id, _ in plugins?.deviceRemoved(id) }
        layoutControl = RuntimeControl(session: session) { [unowned self] in advanceToNow() }
        observer = DaemonObserver(log: log)
        session.router.observer = RouteFanOut([observer])
        try pipeline.start(components(layout: layout))
        metrics?.measuresLatency = live != nil
        readyTime = MonotonicClock.now()
        notifier.ready(status: statusLine())
        log.notice(.ready, "ready: \(statusLine())")
        // Start-up code (argument parsing, the YAML reader, the layout compiler) is not run
        // again until a reload: let its pages go from the resident set (docs/daemon.md).
        ResidentCode.release()
    }

    /// What reading and compiling the config gave: the layout with the file it came from and its
    /// warnings (each `file:line:col: message`), or the errors (each `file:line:col: error: …`).
    /// Plain values: it is made off the loop and handed to it.
    enum ConfigLoad: Sendable {
        case loaded(LoadedConfig)
        case failed([String])

        /// The same, for ``ReloadCoordinator``.
        var compileResult: ReloadCoordinator<ControlServer.PendingAnswer, LoadedConfig>.CompileResult {
            switch self {
            case .loaded(let config): .compiled(config)
            case .failed(let errors): .failed(errors)
            }
        }
    }

    /// A config read and compiled without errors: the layout, the file it came from, its warnings.
    struct LoadedConfig: Sendable {
        var layout: Layout
        var source: String
        var warnings: [String]
    }

    /// Reads and compiles the config: pure work (file reads, libyaml, the spec reader, the layout
    /// compiler, the checks), no daemon state, so a reload runs it on a ``BackgroundJob`` thread.
    static func readConfig(path: String?, controlSocket: String?) -> ConfigLoad {
        do {
            let (spec, layout) = try ConfigLoader.loadLayout(path: path, pluginTypes: PluginTypes.all, controlSocket: controlSocket)
            let source = spec.source ?? path ?? ConfigLoader.builtInName
            // What `evroute check` warns about, for the journal at start and at each reload.
            let descriptors = DescriptorBudget.warning(for: layout, file: source).map { [$0] } ?? []
            let warnings = (ConfigLoader.warnings(of: layout, file: source) + descriptors).map { $0.rendered(showingSeverity: false) }
            return .loaded(LoadedConfig(layout: layout, source: source, warnings: warnings))
        } catch {
            return .failed(error.description.split(separator: "\n").map(String.init))
        }
    }

    /// At start: logs a loaded config's warnings and takes its source as the running one's name
    /// (the caller then runs the layout); the errors of a failed one.
    private func takeConfig(_ load: ConfigLoad) -> Result<Layout, StartupError> {
        switch load {
        case .loaded(let config):
            configSource = config.source
            for w in config.warnings { log.warning(.configWarning, w) }
            return .success(config.layout)
        case .failed(let errors):
            return .failure(StartupError(description: errors.joined(separator: "\n")))
        }
    }

    /// The daemon's components, in start order (``Pipeline`` stops them in reverse): the plugins,
    /// the control socket, the input (live devices or the replays), the plugins as the router's
    /// handlers, the watchdog. The stop is thus: active touches and held keys cancelled (routed to
    /// their handlers), plugins shut down, devices closed (ungrabbed), the control socket removed.
    private func components(layout: Layout) -> [PipelineComponent] {
        var list: [PipelineComponent] = []
        list.append(PipelineStep("plugins", start: { [unowned self] pipeline in
            do {
                plugins = try PluginHost(layout: layout, loop: pipeline.loop, log: log)
                plugins?.showKeycodes = options.showKeycodes
            } catch {
                throw StartupError(description: "plugins: \(error)")
            }
            plugins?.answerCommand = { [unowned self] request in
                layoutControl.answer(request) ?? RuntimeControl.refusal(
                    "\"\(ControlProtocol.commandName(of: request) ?? "?")\" is not a layout command (a plugin connection takes: \(RuntimeControl.commands.sorted().joined(separator: ", ")))",
                    to: request)
            }
        }, stop: { [unowned self] in
            // Shut down already by "handlers" below, unless a later start failed.
            plugins?.shutdown()
        }))
        if let path = options.controlSocketPath {
            list.append(PipelineStep("control socket", start: { [unowned self] pipeline in
                control = try ControlServer(path: path, loop: pipeline.loop, log: log,
                                            answering: { [unowned self] request, answer in self.answer(request, answer) })
            }, stop: { [unowned self] in
                control?.shutdown()
                control = nil
            }))
        }
        // Before the input: its stop (after the input's) writes the last text file.
        list.append(PipelineStep("metrics", start: { [unowned self] _ in
            if let spec = layout.spec.metrics { startMetrics(spec) }
        }, stop: { [unowned self] in
            if metrics != nil { stopMetrics() }
        }))
        list.append(PipelineStep("input", start: { [unowned self] pipeline in
            do {
                try startInput(layout: layout, pipeline: pipeline)
            } catch {
                // As a stop would (the handlers' part first): what it began is undone.
                stopHandlers()
                stopInput()
                throw error
            }
        }, stop: { [unowned self] in stopInput() }))
        list.append(PipelineStep("handlers", start: { [unowned self] _ in
            plugins?.attach(to: session.router)
        }, stop: { [unowned self] in stopHandlers() }))
        if let interval = notifier.watchdogInterval {
            list.append(PipelineStep("watchdog", start: { [unowned self] _ in
                scheduleWatchdog(every: Timestamp.Duration(microseconds: max(interval.microseconds / 2, 1000)))
            }))
        }
        return list
    }

    /// Live devices (with the session timer), or the replays (started unless `--replay-paused`).
    private func startInput(layout: Layout, pipeline: Pipeline) throws {
        if options.replayPaths.isEmpty {
            pipeline.useSessionTimer()
            try startLive(rules: layout.deviceRules)
        } else {
            do {
                replay = try ReplayDriver(paths: options.replayPaths, descriptionPath: options.descriptionPath,
                                          keepDevices: options.keepReplayDevices)
            } catch {
                throw StartupError(description: "\(error)")
            }
            for warning in replay?.warnings ?? [] { log.warning(warning.rendered(showingSeverity: false)) }
            for note in replay?.clockNotes ?? [] { log.info(note) }
            if !options.replayPaused { startReplay() }
        }
    }

    /// Active touches and held keys cancelled (routed to their handlers), plugins shut down, no
    /// handler run any more.
    private func stopHandlers() {
        session.router.cancelAll(time: advanceToNow())
        plugins?.shutdown()
        // Nothing runs handlers any more: what the closing devices still route is only recorded.
        session.router.dispatcher = nil
    }

    /// Devices closed (what they still route is recorded), the session finished, the timer off.
    private func stopInput() {
        live?.stop()
        session.finish(at: session.now)
        live = nil
        pipeline.timer?.isEnabled = false
    }

    private func startLive(rules: [DeviceRuleSpec]) throws {
        do {
            let source = try LiveInputSource(rules: rules)
            source.onError = { [log] error in log.warning(.inputError, "input: \(error)") }
            live = source
            let session = self.session!
            source.sink = session
            pipeline.timer?.readPendingInput = { [unowned source] in source.readPending() }
            try source.start(in: loop)
        } catch {
            throw StartupError(description: "input: \(error)")
        }
    }

    private func scheduleWatchdog(every interval: Timestamp.Duration) {
        notifier.watchdog()
        loop.schedule(after: interval) { [weak self] in self?.scheduleWatchdog(every: interval) }
    }

    // MARK: Replay

    /// Starts feeding the recordings (at startup, or on a control request with `--replay-paused`).
    /// Returns false when there is no replay or it has already started.
    @discardableResult
    func startReplay() -> Bool {
        guard let replay, !replayStarted else { return false }
        replayStarted = true
        let pace: ReplayDriver.Pace = options.replayRealtime ? .recorded : .chunked(options.replayChunk)
        replay.start(in: loop, into: session, pace: pace) { [unowned self] in
            guard !stopping else { return }
            log.info("replay finished: \(replay.eventsFed) events from \(replay.devices.count) recording(s)")
            notifier.status(statusLine())
            if options.exitAfterReplay { stopWhenDrained(deadline: MonotonicClock.now() + .seconds(5)) }
        }
        return true
    }

    /// Whether a plugin still has work in flight: commands running or queued, answers pending,
    /// bytes queued for a helper.
    var pluginsBusy: Bool { plugins?.busy ?? false }

    /// `--exit-after-replay`: stops once the plugins have nothing in flight, or at `deadline`.
    /// The plugin host has no "drained" notification, so this one test-oriented path re-checks
    /// every 20 ms for at most 5 s; the running daemon never does.
    private func stopWhenDrained(deadline: Timestamp) {
        guard !stopping else { return }
        if !pluginsBusy || MonotonicClock.now() >= deadline {
            if pluginsBusy { log.warning("replay finished; plugins still busy after 5 s, stopping anyway") }
            stop()
            return
        }
        loop.schedule(after: .milliseconds(20)) { [unowned self] in self.stopWhenDrained(deadline: deadline) }
    }

    // MARK: Signals, reload, stop

    private func signalled(_ signal: Int32) {
        switch signal {
        case SIGHUP:
            log.notice(.reloadRequested, "SIGHUP: reloading \(options.configPath ?? configSource)")
            reload(answer: nil)
        default:
            log.notice(.stopping, "signal \(signal == SIGINT ? "SIGINT" : "SIGTERM"): stopping")
            stop()
        }
    }

    /// Advances the session's clock to now and returns the time, for things that are not input
    /// events (a reload, a layout command, shutdown): the kernel's monotonic clock for live
    /// devices (the session's clock moves to it, firing what falls due); for replays the
    /// recording's time, which alone drives it (nothing moves).
    private func advanceToNow() -> Timestamp {
        if replay == nil { session.advanceTime(to: MonotonicClock.now()) }
        return session.now
    }

    /// Reloads the config. The file is read and compiled off the loop, on a ``BackgroundJob``
    /// thread (pure work: no router, plugin, log or connection is touched there), while the loop
    /// goes on routing and answering; the result is swapped in on the loop (``finishReload(_:)``).
    /// `answer` (a control client's `reload`) gets the outcome then: `{"ok":true,"config":…,
    /// "reloads":N}`, or `ok: false` with every error as `file:line:col: error: …`.
    ///
    /// One compile at a time. A reload asked for while one compiles starts no second one: it is
    /// noted, and one more compile starts when the current one ends (the file may have changed
    /// since that one read it); every client waiting then is answered by that next compile. A
    /// storm of `SIGHUP`s costs at most the compile in flight and one queued.
    ///
    /// `RELOADING=1` (with `MONOTONIC_USEC`) goes to systemd when a compile starts, `READY=1` with
    /// the new `STATUS=` when it ends, whatever its outcome.
    public func reload(answer: ControlServer.PendingAnswer? = nil) {
        guard !stopping else {
            answer?.send(Daemon.reloadRefusal("the daemon is stopping"))
            return
        }
        switch reloadState.requested(answer: answer) {
        case .queued:
            log.info("reload: a reload is being compiled; one more follows it")
        case .startCompile:
            startReloadCompile()
        }
    }

    private func startReloadCompile() {
        notifier.reloading(at: MonotonicClock.now())
        let path = options.configPath, control = options.controlSocketPath
        do {
            reloadJob = try BackgroundJob(loop: loop, name: "evroute-reload", work: { Daemon.readConfig(path: path, controlSocket: control) }) {
                [unowned self] load in finishReload(load)
            }
        } catch {
            // No thread to be had (the task limit): read it here, stalling the loop as before.
            log.warning("reload: cannot start a thread for the config (\(error.call): \(error.message)); reading it on the loop")
            finishReload(Daemon.readConfig(path: path, controlSocket: control))
        }
    }

    /// On the loop, when the compile is done: the swap (or the errors), the waiting clients'
    /// answers, `READY=1`; then the queued compile, if one was asked for meanwhile.
    private func finishReload(_ load: ConfigLoad) {
        let started = reloadJob?.started
        reloadJob = nil
        let finish: ReloadCoordinator<ControlServer.PendingAnswer, LoadedConfig>.Finish
        switch reloadState.compileEnded(load.compileResult) {
        case .finished(let ended):
            if case .failed(let errors) = ended.outcome { reloadFailed(errors) }
            finish = ended
        case .swapIn(let config):
            let errors = swapIn(config, compileTime: started.map { MonotonicClock.now() - $0 })
            finish = reloadState.swapEnded(errors: errors)
        }
        let answer: JSONValue = switch finish.outcome {
        case .reloaded(let count):
            ControlProtocol.success([(ControlProtocol.Status.config, .string(configSource)), (ControlProtocol.Status.reloads, .int(count))])
        case .failed(let errors):
            ControlProtocol.failure("the config has errors; the previous configuration keeps running", errors: errors)
        }
        // The queued compile starts before the answers go out: answering lets a client's next
        // request in (``LineConnection/resume()``), and a reload among those then queues behind
        // this compile instead of starting one of its own beside it.
        let again = finish.startCompile && !stopping
        if finish.startCompile && stopping { _ = reloadState.abandon() }   // dropped, as the stop found it
        if again { startReloadCompile() }
        for client in finish.answer { client.send(answer) }
        if !again && layoutRelease == nil {
            releaseResidentMemory()   // else once the replaced layout is freed (it checks that no compile runs)
        }
    }

    /// After a reload (and the freeing of the layout it replaced), unless another compile runs:
    /// the reader's and compiler's code is not run again until the next reload, and the pages of
    /// their freed data (in the reader thread's malloc arena) would stay resident (docs/daemon.md).
    private func releaseResidentMemory() {
        guard reloadJob == nil, !stopping else { return }
        let start = MonotonicClock.now()
        ResidentCode.release()
        ResidentCode.releaseFreeHeap()
        log.debug("reload: resident code and free heap given back in \(Daemon.milliseconds(MonotonicClock.now() - start)) ms")
    }

    /// A reload that was not done: `ok: false` with `error`.
    static func reloadRefusal(_ why: String) -> JSONValue {
        ControlProtocol.failure("\(why); the reload was not applied")
    }

    /// Runs a config that compiled without errors (a compile with errors never gets here:
    /// ``finishReload(_:)`` logs them). The plugins check their options first; one they refuse
    /// changes nothing (the error is logged and returned). Else it replaces the layout — active touches stay
    /// bound to their old regions until they end (those whose region is gone are cancelled),
    /// new touches use the new layout — and the plugins.
    ///
    /// Device rules: when the reload changes the `devices:` section, the live devices are
    /// closed and reopened under the new rules (touches in progress on them are cancelled);
    /// when it does not, every device stays open and every touch stays bound. Replayed
    /// devices are matched when they appear, so a new rule applies to the recordings that
    /// start after the reload.
    ///
    /// - Returns: the errors; empty when the new config is running.
    private func swapIn(_ config: LoadedConfig, compileTime: Timestamp.Duration?) -> [String] {
        let swapStart = MonotonicClock.now()
        for w in config.warnings { log.warning(.configWarning, w) }
        do {
            // Checked first: a plugin option error leaves everything as it was.
            try plugins?.reload(layout: config.layout)
        } catch {
            return reloadFailed(["\(error)"])
        }
        let layout = config.layout
        configSource = config.source
        var old: Layout? = session.layout
        let rulesChanged = old?.deviceRules != layout.deviceRules
        session.replaceLayout(layout, time: advanceToNow())
        lastConfigLoad = MonotonicClock.now()
        if let spec = layout.spec.metrics {
            startMetrics(spec)
        } else if metrics != nil {
            endMetrics()
        }
        // The replaced layout is freed off the loop (unless a touch still bound to it holds it);
        // then the loop gives back what the reload left resident.
        layoutRelease = BackgroundJob.release(&old, loop: loop) { [unowned self] in
            layoutRelease = nil
            releaseResidentMemory()
        }
        if let live, rulesChanged {
            log.notice("reload: device rules changed; reopening input devices")
            live.stop()
            earlierLiveEvents += live.eventsRead
            self.live = nil
            do { try startLive(rules: layout.deviceRules) } catch { log.error(.reloadFailed, "reload: \(error)") }
        }
        metrics?.measuresLatency = live != nil
        let swapped = "swapped in on the loop in \(Daemon.milliseconds(MonotonicClock.now() - swapStart)) ms"
        let took = compileTime.map { " (read and compiled off the loop in \(Daemon.milliseconds($0)) ms; \(swapped))" } ?? " (\(swapped))"
        log.notice(.reloaded, "reloaded: \(statusLine())\(took)")
        notifier.notify("READY=1", "STATUS=\(statusLine())")
        return []
    }

    static func milliseconds(_ d: Timestamp.Duration) -> Int { Int(d.microseconds / 1000) }

    /// Logs a reload's errors and tells systemd (the count is ``reloadState``'s).
    @discardableResult
    private func reloadFailed(_ errors: [String]) -> [String] {
        for line in errors { log.error(.reloadFailed, "reload: \(line)") }
        log.error(.reloadFailed, "reload failed: still running the previous configuration")
        notifier.notify("READY=1", "STATUS=reload failed (\(errors.first ?? "")); running the previous configuration")
        return errors
    }

    /// Begins the orderly stop: `STOPPING=1`, then the components stopped in reverse
    /// (``components(layout:)``): touches and held keys cancelled and routed, plugins shut down,
    /// devices closed, the control socket removed; ``run()`` then returns 0.
    public func stop() {
        guard !stopping else { return }
        stopping = true
        notifier.stopping()
        abandonReload()
        pipeline?.stop()
    }

    /// Stopping while a reload compiles: its result is dropped (the thread is not waited for: it
    /// only computes, and ends with the process), and the clients waiting for it are told.
    private func abandonReload() {
        guard let job = reloadJob else { return }
        job.cancel()
        reloadJob = nil
        log.notice("stopping: the reload being compiled is abandoned")
        let waiting = reloadState.abandon()
        for client in waiting { client.send(Daemon.reloadRefusal("the daemon is stopping")) }
    }

    // MARK: Status

    /// One line for `STATUS=` and the log.
    func statusLine() -> String {
        let devices = session?.activeDevices.count ?? 0
        var line = "routing \(devices) device(s)"
        if let replay { line += replay.isFinished ? ", replay finished" : ", replaying \(replay.devices.count) recording(s)" }
        line += "; config \(configSource)"
        if let plugins { line += "; \(plugins.statistics.count) plugin(s)" }
        return line
    }
}
