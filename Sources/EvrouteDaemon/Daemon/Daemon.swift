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
/// let status = Daemon.run(options: options)
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

    /// The event loop, signals, session timer and flush policy, and the components started.
    let pipeline: Pipeline
    var loop: EventLoop { pipeline.loop }
    let session: RoutingSession
    /// Counts and logs device and layout changes: the router's first observer.
    let observer: DaemonObserver
    /// The components (listed in start order by ``components``).
    private lazy var plugging = PluginsComponent(layout: session.layout, log: log, showKeycodes: options.showKeycodes) {
        [unowned self] request in
        layoutControl.answer(request) ?? RuntimeControl.refusal(
            "\"\(ControlProtocol.commandName(of: request) ?? "?")\" is not a layout command (a plugin connection takes: \(RuntimeControl.commands.sorted().joined(separator: ", ")))",
            to: request)
    }
    private lazy var controlSocket = options.controlSocketPath.map { path in
        ControlSocketComponent(path: path, log: log) { [unowned self] request, answer in self.answer(request, answer) }
    }
    private let liveInput: LiveInputComponent?
    private let replaying: ReplayComponent?
    var plugins: PluginHost? { plugging.host }
    var control: ControlServer? { controlSocket?.server }
    var live: LiveInputSource? { liveInput?.source }
    var replay: ReplayDriver? { replaying?.driver }
    /// The run-time layout commands (docs/ui-control.md), for the control socket and plugin peers.
    private(set) lazy var layoutControl = RuntimeControl(session: session) { [unowned self] in advanceToNow() }
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
    /// Raw input events routed (live and replayed).
    var inputEvents: Int { (liveInput?.eventsRead ?? 0) + (replay?.eventsFed ?? 0) }
    private var exitStatus: Int32 = 0
    var replayStarted: Bool { replaying?.hasBegun ?? false }
    private var stopping = false

    /// Reads the systemd environment (`$NOTIFY_SOCKET`, `$WATCHDOG_USEC`), starts, runs until
    /// SIGTERM / SIGINT (or the end of the replays with ``DaemonOptions/exitAfterReplay``), shuts
    /// down, and returns the exit status: 0 after a clean stop, 1 when startup failed.
    public static func run(options: DaemonOptions, log: Log? = nil) -> Int32 {
        Daemon.blockSignals()
        let log = log ?? Log(threshold: options.logLevel, journalSocket: Log.journalSocketPath)
        let notifier = SystemdNotifier()
        // The log never waits for its reader (journald stuck, a paused terminal, `| less`):
        // routing, the control socket and SIGTERM go on; lines beyond its backlog are dropped
        // and counted (docs/daemon.md).
        log.writeWithoutWaiting()
        let daemon: Daemon
        do {
            daemon = try Daemon(options: options, log: log, notifier: notifier)
            try daemon.start()
        } catch {
            // What had started is stopped already, in reverse (``Pipeline/start(_:)``).
            log.error(.startFailed, "\(error)")
            notifier.notify("STATUS=failed to start: \(error)".replacingNewlines())
            return 1
        }
        return daemon.runLoop()
    }

    /// Runs the started daemon's loop until it stops; the exit status.
    private func runLoop() -> Int32 {
        // Info and debug lines (the `log` plugin's among them) are buffered; notices, warnings
        // and errors go out at once. After each wakeup (the hooks the components added to the loop)
        // the gesture timer follows what it routed, and the plugins write the event lines they queued (one write(2) per socket client; a `process`
        // helper's stdin is still written per event).
        log.buffered = true
        log.watchWritability(in: loop)
        // Buffered lines (the journal's t= is the event's time) leave per the one flush
        // policy (``OutputFlush``): live, at the end of a wake-up once they have waited long
        // enough by the event's time; else by a timer.
        pipeline.run(pending: { [log] in log.hasPending }, flush: { [log] in log.flush() }, liveInput: live != nil)
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

    /// Reads and compiles the config (errors: each `file:line:col`), and makes the session, the
    /// loop and the components; nothing starts before ``start()``.
    private init(options: DaemonOptions, log: Log, notifier: SystemdNotifier) throws {
        self.options = options
        self.log = log
        self.notifier = notifier
        // Each control or plugin client is a descriptor: the soft limit (often 1024) goes up to
        // the hard one (docs/daemon.md, "Control socket").
        let descriptors = DescriptorLimit.raiseSoftToHard()
        log.debug("descriptor limit (RLIMIT_NOFILE): \(descriptors.before == descriptors.after ? "\(descriptors.after), as it was" : "raised from \(descriptors.before) to \(descriptors.after)")")
        let config = try Daemon.takeConfig(Daemon.readConfig(path: options.configPath, controlSocket: options.controlSocketPath), log: log).get()
        let layout = config.layout
        session = RoutingSession(layout: layout, clock: ManualClock())
        pipeline = try Pipeline(session: session)
        observer = DaemonObserver(log: log)
        if options.replayPaths.isEmpty {
            let live = LiveInputComponent(rules: layout.deviceRules, prepare: { [log] source in
                source.onError = { error in log.warning(.inputError, "input: \(error)") }
            })
            live.describeError = { StartupError(description: "input: \($0)") }
            liveInput = live
            replaying = nil
        } else {
            liveInput = nil
            replaying = ReplayComponent(.paths(options.replayPaths, descriptionPath: options.descriptionPath,
                                               keepDevices: options.keepReplayDevices, numbering: .processWide),
                                        pace: options.replayRealtime ? .recorded : .chunked(options.replayChunk),
                                        paused: options.replayPaused)
        }
        configSource = config.source
        replaying?.onLoaded = { [log] driver in
            for warning in driver.warnings { log.warning(warning.rendered(showingSeverity: false)) }
            for note in driver.clockNotes { log.info(note) }
        }
        replaying?.onFinished = { [unowned self] in replayFinished() }
        setObservers()
        observeSession()
    }

    /// The router's observers: the daemon's, then the metrics sink while there is one. The one
    /// place the fan-out is set (at the start, and when metrics start or end).
    func setObservers() {
        session.router.observer = RouteFanOut([observer] + (metrics.map { [$0] } ?? []))
    }

    /// Starts the components (``components``), then says `READY=1`.
    private func start() throws {
        try pipeline.handleSignals(more: [SIGHUP]) { [unowned self] signal in self.signalled(signal) }
        try pipeline.start(components)
        metrics?.measuresLatency = live != nil
        readyTime = MonotonicClock.now()
        notifier.ready(status: statusLine())
        log.notice(.ready, "ready: \(statusLine())")
        // Start-up code (argument parsing, the YAML reader, the layout compiler) is not run
        // again until a reload: let its pages go from the resident set (docs/daemon.md).
        ResidentCode.release()
    }

    /// The session's device callbacks: ignored devices and warnings logged, devices told to the plugins.
    private func observeSession() {
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
    private static func takeConfig(_ load: ConfigLoad, log: Log) -> Result<LoadedConfig, StartupError> {
        switch load {
        case .loaded(let config):
            for w in config.warnings { log.warning(.configWarning, w) }
            return .success(config)
        case .failed(let errors):
            return .failure(StartupError(description: errors.joined(separator: "\n")))
        }
    }

    /// The daemon's components, in start order (``Pipeline`` stops them in reverse): the plugins,
    /// the control socket, the metrics, the session's end, the input (live devices or the
    /// replays), the plugins as the router's handlers, the watchdog. The stop is thus: active
    /// touches and held keys cancelled (routed to their handlers), plugins shut down, devices
    /// closed (ungrabbed), the session finished, the last metrics written, the control socket
    /// removed.
    private var components: [PipelineComponent] {
        var list: [PipelineComponent] = [plugging]
        if let controlSocket { list.append(controlSocket) }
        // Before the input: its stop (after the input's) writes the last text file.
        list.append(MetricsComponent(daemon: self, spec: session.layout.spec.metrics))
        list.append(SessionEndComponent(pipeline: pipeline))
        if let liveInput { list.append(liveInput) }
        if let replaying { list.append(replaying) }
        list.append(HandlersComponent(daemon: self))
        if let interval = notifier.watchdogInterval {
            list.append(WatchdogComponent(notifier: notifier, interval: Timestamp.Duration(microseconds: max(interval.microseconds / 2, 1000))))
        }
        return list
    }

    /// Active touches and held keys cancelled (routed to their handlers), plugins shut down, no
    /// handler run any more.
    func stopHandlers() {
        session.router.cancelAll(time: advanceToNow())
        plugins?.shutdown()
        // Nothing runs handlers any more: what the closing devices still route is only recorded.
        session.router.dispatcher = nil
    }

    // MARK: Replay

    /// Starts feeding the recordings (on a control request with `--replay-paused`).
    /// Returns false when there is no replay or it has already started.
    @discardableResult
    func startReplay() -> Bool {
        replaying?.begin() ?? false
    }

    /// Every recording routed.
    private func replayFinished() {
        guard !stopping, let replay else { return }
        log.info("replay finished: \(replay.eventsFed) events from \(replay.devices.count) recording(s)")
        notifier.status(statusLine())
        if options.exitAfterReplay { stopWhenDrained(deadline: MonotonicClock.now() + .seconds(5)) }
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
        if replaying == nil { session.advanceTime(to: MonotonicClock.now()) }
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
        if let liveInput, live != nil, rulesChanged {
            log.notice("reload: device rules changed; reopening input devices")
            do { try liveInput.reopen(rules: layout.deviceRules) } catch { log.error(.reloadFailed, "reload: \(error)") }
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
        pipeline.stop()
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
        let devices = session.activeDevices.count
        var line = "routing \(devices) device(s)"
        if let replay { line += replay.isFinished ? ", replay finished" : ", replaying \(replay.devices.count) recording(s)" }
        line += "; config \(configSource)"
        if let plugins { line += "; \(plugins.statistics.count) plugin(s)" }
        return line
    }
}
