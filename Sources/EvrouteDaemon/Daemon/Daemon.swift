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

/// The evroute daemon: a thin composition of one event loop (``EventLoop``), the input
/// (``LiveInputSource``, which watches its own devices and the udev monitor in the loop, or a
/// ``ReplayDriver`` standing in for it), the ``RoutingSession``, the plugins, the control socket
/// and systemd notification. Routing happens on the loop thread as events arrive and never waits
/// for a handler. The config is read in this process (libyaml, no Foundation) at start and on
/// every reload; no child process is started for it.
///
/// - Startup: config (errors → exit 1, each as `file:line:col`), plugins, control socket,
///   devices, then `READY=1` with a `STATUS=` line.
/// - `SIGHUP` (or `{"command":"reload"}` on the control socket): reload; see ``reload()``.
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

    private(set) var loop: EventLoop!
    private(set) var session: RoutingSession!
    private(set) var plugins: PluginHost?
    private(set) var observer: DaemonObserver!
    private(set) var control: ControlServer?
    private(set) var live: LiveInputSource?
    private(set) var replay: ReplayDriver?
    private var gestureTimer: GestureTimer?
    /// The run-time layout commands (SPEC §8), for the control socket and plugin peers.
    private(set) var layoutControl: RuntimeControl!
    /// The config file the running layout came from.
    private(set) var configSource = ConfigLoader.builtInName
    let startTime = MonotonicClock.now()
    private(set) var readyTime: Timestamp?
    private(set) var reloads = 0
    private(set) var failedReloads = 0
    private(set) var lastReloadErrors: [String] = []
    private var liveEvents = 0
    /// Raw input events routed (live and replayed).
    var inputEvents: Int { liveEvents + (replay?.eventsFed ?? 0) }
    private var exitStatus: Int32 = 0
    private(set) var replayStarted = false
    private var stopping = false

    /// Reads the systemd environment (`$NOTIFY_SOCKET`, `$WATCHDOG_USEC`); nothing starts
    /// before ``run()``.
    public init(options: DaemonOptions, log: Log? = nil) {
        self.options = options
        self.log = log ?? Log(threshold: options.logLevel)
        notifier = SystemdNotifier()
    }

    /// Starts, runs until SIGTERM / SIGINT (or the end of the replays with
    /// ``DaemonOptions/exitAfterReplay``), shuts down, and returns the exit status:
    /// 0 after a clean stop, 1 when startup failed.
    public func run() -> Int32 {
        Daemon.blockSignals()
        do {
            try start()
        } catch {
            log.error("\(error)")
            notifier.notify("STATUS=failed to start: \(error)".replacingNewlines())
            shutdown()
            return 1
        }
        // Log lines (the `log` plugin's among them) go out once per loop wakeup, after the
        // gesture timer follows what the wakeup routed.
        log.buffered = true
        loop.afterWakeup = { [gestureTimer] in gestureTimer?.rearm() }
        // Log lines go out when the loop idles, or within 50 ms of the first one waiting: one
        // write(2) for a burst of frames instead of one per wakeup (their t= is the event's time).
        loop.lazyFlush = EventLoop.LazyFlush(delay: .milliseconds(50), pending: { [log] in log.hasPending }, flush: { [log] in log.flush() })
        loop.run()
        log.buffered = false
        log.flush()
        return exitStatus
    }

    /// A startup failure, already worded for the log.
    struct StartupError: Error, CustomStringConvertible {
        var description: String
    }

    // MARK: Startup

    func start() throws {
        let layout = try loadConfig().get()
        loop = try EventLoop()
        try loop.handleSignals(Daemon.handledSignals) { [unowned self] signal in self.signalled(signal) }

        session = RoutingSession(layout: layout, clock: ManualClock())
        session.onDeviceIgnored = { [log] _, description, kind, reason, _ in
            log.info("device ignored: \"\(description.name)\" (\(kind.rawValue)): \(reason)")
        }
        session.onDeviceWarning = { [log] info, warning, _ in
            log.warning("input: device \"\(info.name)\" (rule \(info.ruleName)): \(warning)")
        }
        session.onWarning = { [log] message, _ in log.warning(message) }
        observer = DaemonObserver(log: log)
        do {
            plugins = try PluginHost(layout: layout, loop: loop, log: log)
            plugins?.showKeycodes = options.showKeycodes
        } catch {
            throw StartupError(description: "plugins: \(error)")
        }
        plugins?.attach(to: session.router)
        layoutControl = RuntimeControl(session: session) { [unowned self] in currentTime }
        plugins?.answerCommand = { [unowned self] request in
            layoutControl.answer(request) ?? RuntimeControl.refusal(
                "\"\(request["command"]?.stringValue ?? "?")\" is not a layout command (a plugin connection takes: \(RuntimeControl.commands.sorted().joined(separator: ", ")))",
                to: request)
        }
        observer.next = session.router.observer
        session.router.observer = observer

        if let path = options.controlSocketPath {
            control = try ControlServer(path: path, loop: loop, log: log) { [unowned self] request in self.answer(request) }
        }

        if options.replayPaths.isEmpty {
            gestureTimer = GestureTimer(loop: loop, session: session)
            try startLive(rules: layout.deviceRules)
        } else {
            do {
                replay = try ReplayDriver(paths: options.replayPaths, descriptionPath: options.descriptionPath,
                                          keepDevices: options.keepReplayDevices)
            } catch {
                throw StartupError(description: "\(error)")
            }
            for warning in replay?.warnings ?? [] { log.warning("\(warning.location): \(warning.message)") }
            if !options.replayPaused { startReplay() }
        }

        if let interval = notifier.watchdogInterval {
            scheduleWatchdog(every: Timestamp.Duration(microseconds: max(interval.microseconds / 2, 1000)))
        }
        readyTime = MonotonicClock.now()
        notifier.ready(status: statusLine())
        log.notice("ready: \(statusLine())")
        // Start-up code (argument parsing, the YAML reader, the layout compiler) is not run
        // again until a reload: let its pages go from the resident set (docs/daemon.md).
        ResidentCode.release()
    }

    /// Reads and compiles the config in this process (logging its warnings); the errors, each as
    /// `file:line:col: error: …`.
    func loadConfig() -> Result<Layout, StartupError> {
        do {
            let (spec, layout) = try ConfigLoader.loadLayout(path: options.configPath)
            configSource = spec.source ?? options.configPath ?? ConfigLoader.builtInName
            // What `evroute check` warns about, in the journal at start and at each reload.
            for w in ConfigLoader.warnings(of: layout, file: configSource) {
                log.warning(w.line > 0 ? "\(w.file):\(w.line):\(w.column): \(w.message)" : "\(w.file): \(w.message)")
            }
            return .success(layout)
        } catch {
            return .failure(StartupError(description: error.description))
        }
    }

    private func startLive(rules: [DeviceRuleSpec]) throws {
        do {
            let source = try LiveInputSource(rules: rules)
            source.onError = { [log] error in log.warning("input: \(error)") }
            live = source
            try source.start(in: loop) { [unowned self] item in
                if case .event = item { liveEvents += 1 }
                session.handle(item)
            }
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
    var pluginsBusy: Bool {
        (plugins?.statistics ?? []).contains { s in
            // A running `process` helper is not work in flight; running `exec` commands are.
            let running: Int = s.type == .process ? 0 : s[gauge: .running] ?? 0
            let waiting: Int = (s[gauge: .queued] ?? 0) + (s[gauge: .pending] ?? 0) + (s[gauge: .queuedBytes] ?? 0)
            return running > 0 || waiting > 0
        }
    }

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
            log.notice("SIGHUP: reloading \(options.configPath ?? configSource)")
            _ = reload()
        default:
            log.notice("signal \(signal == SIGINT ? "SIGINT" : "SIGTERM"): stopping")
            stop()
        }
    }

    /// The router's "now" for things that are not input events (reload, shutdown): the kernel's
    /// monotonic clock for live devices; for replays the recording's time, which alone drives it.
    private var currentTime: Timestamp {
        if replay == nil { session.advanceTime(to: MonotonicClock.now()) }
        return session.now
    }

    /// Reloads the config. A config with errors changes nothing (they are logged and returned,
    /// each as `file:line:col: error: …`). A good one replaces the layout — active touches stay
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
    @discardableResult
    public func reload() -> [String] {
        notifier.reloading(at: MonotonicClock.now())
        let layout: Layout
        switch loadConfig() {
        case .failure(let error):
            return reloadFailed(error.description.split(separator: "\n").map(String.init))
        case .success(let l):
            layout = l
        }
        do {
            // Checked first: a plugin option error leaves everything as it was.
            try plugins?.reload(layout: layout)
        } catch {
            return reloadFailed(["\(error)"])
        }
        let old = session.layout
        session.replaceLayout(layout, time: currentTime)
        if let live, old.deviceRules != layout.deviceRules {
            log.notice("reload: device rules changed; reopening input devices")
            live.stop()
            self.live = nil
            do { try startLive(rules: layout.deviceRules) } catch { log.error("reload: \(error)") }
        }
        reloads += 1
        lastReloadErrors = []
        log.notice("reloaded: \(statusLine())")
        ResidentCode.release()
        notifier.notify("READY=1", "STATUS=\(statusLine())")
        return []
    }

    private func reloadFailed(_ errors: [String]) -> [String] {
        for line in errors { log.error("reload: \(line)") }
        log.error("reload failed: still running the previous configuration")
        failedReloads += 1
        lastReloadErrors = errors
        notifier.notify("READY=1", "STATUS=reload failed (\(errors.first ?? "")); running the previous configuration")
        return errors
    }

    /// Begins the orderly stop: `STOPPING=1`, touches and held keys cancelled and routed,
    /// plugins shut down, devices closed, the control socket removed; ``run()`` then returns 0.
    public func stop() {
        guard !stopping else { return }
        stopping = true
        notifier.stopping()
        shutdown()
        loop.stop()
    }

    private func shutdown() {
        if let session {
            session.router.cancelAll(time: currentTime)
            plugins?.shutdown()
            // Nothing runs handlers any more: what the closing devices still route is only recorded.
            session.router.dispatcher = nil
            live?.stop()
            session.finish(at: session.now)
        }
        live = nil
        gestureTimer?.isEnabled = false
        control?.shutdown()
        control = nil
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
