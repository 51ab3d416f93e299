#if canImport(Glibc)
import Glibc
#endif
import EvrouteConfig
import EvrouteCore
import EvrouteInput
import EvrouteRuntime
import CLinux

/// The evroute daemon: one event loop serving input devices (or `--replay` recordings standing
/// in for them), the udev hotplug monitor, signals, the control socket, plugins and the
/// systemd watchdog. Routing happens on the loop thread as events arrive and never waits for
/// a handler.
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
    private(set) var replay: ReplayFeeder?
    /// Where a live device's events come from, by id (to unwatch its descriptor when it goes).
    private var liveDescriptors: [DeviceID: Int32] = [:]
    /// The config file the running layout came from.
    private(set) var configSource = ConfigLoader.builtInName
    let startTime = MonotonicClock.now()
    private(set) var readyTime: Timestamp?
    private(set) var reloads = 0
    private(set) var failedReloads = 0
    private(set) var lastReloadErrors: [String] = []
    private(set) var inputEvents = 0
    /// The loop timer armed for the router's next gesture-recognizer deadline (live input).
    private var gestureTimer: (id: EventLoop.TimerID, deadline: Timestamp)?
    private var exitStatus: Int32 = 0
    private(set) var replayStarted = false
    /// `--replay-realtime`: when the replay started (monotonic) and its first item's recording time.
    private var replayClockOrigin: (wall: Timestamp, recording: Timestamp)?
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
        // Log lines (the `log` plugin's among them) go out once per loop wakeup.
        log.buffered = true
        loop.afterWakeup = { [log] in log.flush() }
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
        session.onDeviceIgnored = { [log] description, kind, _ in
            log.info("device ignored: \"\(description.name)\" (\(kind.rawValue)): no device rule matches")
        }
        observer = DaemonObserver(log: log)
        do {
            plugins = try PluginHost(layout: layout, loop: loop, log: log)
        } catch {
            throw StartupError(description: "plugins: \(error)")
        }
        plugins?.attach(to: session.router)
        observer.next = session.router.observer
        session.router.observer = observer

        if let path = options.controlSocketPath {
            control = try ControlServer(path: path, loop: loop, log: log) { [unowned self] request in self.answer(request) }
        }

        if options.replayPaths.isEmpty {
            try startLive(rules: layout.deviceRules)
        } else {
            do {
                replay = try ReplayFeeder(paths: options.replayPaths, descriptionPath: options.descriptionPath,
                                          keepDevices: options.keepReplayDevices)
            } catch {
                throw StartupError(description: "\(error)")
            }
            if !options.replayPaused { startReplay() }
        }

        if let interval = notifier.watchdogInterval {
            scheduleWatchdog(every: Timestamp.Duration(microseconds: max(interval.microseconds / 2, 1000)))
        }
        readyTime = MonotonicClock.now()
        notifier.ready(status: statusLine())
        log.notice("ready: \(statusLine())")
    }

    /// Loads and compiles the config; the errors, each as `file:line:col: error: …`.
    ///
    /// The YAML is read in a child process (``ConfigChild``: this binary's
    /// `__compile-config`, which uses the Foundation-based YAML loader), so the long-running
    /// daemon never executes Foundation; the spec comes back as JSON and is compiled here.
    func loadConfig() -> Result<Layout, StartupError> {
        let spec: LayoutSpec
        switch ConfigChild.load(executable: options.configCompiler, configPath: options.configPath) {
        case .failure(let errors): return .failure(StartupError(description: errors.description))
        case .success(let s): spec = s
        }
        let file = spec.source ?? options.configPath ?? ConfigLoader.builtInName
        do {
            // The child compiled it already; this only fails if the two disagree.
            let layout = try Layout.compile(spec)
            configSource = file
            return .success(layout)
        } catch {
            return .failure(StartupError(description: error.errors.map { e in
                e.location.map { "\($0): error: \(e.message)" } ?? "\(file): error: \(e.message)"
            }.joined(separator: "\n")))
        }
    }

    private func startLive(rules: [DeviceRuleSpec]) throws {
        let source: LiveInputSource
        do { source = try LiveInputSource(rules: rules) } catch {
            throw StartupError(description: "input: \(error)")
        }
        source.onError = { [log] error in log.warning("input: \(error)") }
        live = source
        try loop.watch(source.monitorFileDescriptor) { [unowned self] _ in self.liveReadable(source.monitorFileDescriptor) }
        route(source.start())
    }

    private func scheduleWatchdog(every interval: Timestamp.Duration) {
        notifier.watchdog()
        loop.schedule(after: interval) { [weak self] in self?.scheduleWatchdog(every: interval) }
    }

    // MARK: Input

    private func liveReadable(_ fd: Int32) {
        guard let live else { return }
        live.handleReadable(fd: fd) { route($0) }
        armGestureTimer()
    }

    /// Routes live items on the loop thread, keeping the watched descriptors in step with the
    /// open devices. Router time is the events' kernel time (CLOCK_MONOTONIC, set by the source).
    private func route(_ items: [InputItem]) {
        for item in items { route(item) }
        armGestureTimer()
    }

    private func route(_ item: InputItem) {
        let router = session.router
        switch item {
        case .event(_, let e):
            router.advanceTime(to: e.time)
            inputEvents += 1
        case .added(let id, _):
            router.advanceTime(to: MonotonicClock.now())
            if let fd = live?.device(id)?.fileDescriptor {
                liveDescriptors[id] = fd
                do {
                    try loop.watch(fd) { [unowned self] _ in self.liveReadable(fd) }
                } catch {
                    log.warning("input: cannot watch device \(id.rawValue): \(error)")
                }
            }
        case .removed(let id, let time):
            router.advanceTime(to: time)
            if let fd = liveDescriptors.removeValue(forKey: id) { loop.unwatch(fd) }
        }
        session.handle(item)
    }

    /// Live input: keeps one loop timer on the router's next recognizer deadline (a long press
    /// fires while the finger rests and nothing arrives). Event times are CLOCK_MONOTONIC, the
    /// loop's clock, so the deadline is used as is. No pending recognizer, no timer.
    private func armGestureTimer() {
        guard replay == nil, !stopping else { return }
        let deadline = session.router.nextTimerDeadline
        if gestureTimer?.deadline == deadline { return }
        if let armed = gestureTimer { loop.cancel(armed.id) }
        gestureTimer = nil
        guard let deadline else { return }
        let id = loop.schedule(at: deadline) { [unowned self] in
            self.gestureTimer = nil
            self.session.router.advanceTime(to: max(deadline, MonotonicClock.now()))
            self.armGestureTimer()
        }
        gestureTimer = (id, deadline)
    }

    /// Starts feeding the recordings (at startup, or on a control request with `--replay-paused`).
    /// Returns false when there is no replay or it has already started.
    @discardableResult
    func startReplay() -> Bool {
        guard replay != nil, !replayStarted else { return false }
        replayStarted = true
        loop.schedule(after: Timestamp.Duration(microseconds: 0)) { [unowned self] in self.feedReplay() }
        return true
    }

    private func feedReplay() {
        guard let replay, !stopping else { return }
        let before = replay.eventsFed
        let more: Bool
        if options.replayRealtime {
            // Paced by the recording: route what is due, then sleep until the next item is.
            let now = MonotonicClock.now()
            if replayClockOrigin == nil {
                // Devices appearing come first and carry no time; the first timed item sets the origin.
                _ = replay.feed(options.replayChunk, upTo: Timestamp(microseconds: .min), into: session)
                if let first = replay.nextItemTime { replayClockOrigin = (now, first) }
            }
            let due = replayClockOrigin.map { $0.recording + (now - $0.wall) }
            more = replay.feed(options.replayChunk, upTo: due, into: session)
            if more, let origin = replayClockOrigin, let next = replay.nextItemTime {
                inputEvents += replay.eventsFed - before
                loop.schedule(at: origin.wall + (next - origin.recording)) { [unowned self] in self.feedReplay() }
                return
            }
        } else {
            more = replay.feed(options.replayChunk, into: session)
        }
        inputEvents += replay.eventsFed - before
        if more {
            loop.schedule(after: Timestamp.Duration(microseconds: 0)) { [unowned self] in self.feedReplay() }
            return
        }
        log.info("replay finished: \(replay.eventsFed) events from \(replay.devices.count) recording(s)")
        notifier.status(statusLine())
        if options.exitAfterReplay { stopWhenDrained(deadline: MonotonicClock.now() + .seconds(5)) }
    }

    /// Whether a plugin still has work in flight: commands running or queued, answers pending,
    /// bytes queued for a helper.
    var pluginsBusy: Bool {
        (plugins?.statistics ?? []).contains { s in
            let d = s.details
            return (s.type != "process" && (d["running"] ?? 0) > 0) || (d["queued"] ?? 0) > 0
                || (d["pending"] ?? 0) > 0 || (d["queued_bytes"] ?? 0) > 0
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
        if replay == nil { session.router.advanceTime(to: MonotonicClock.now()) }
        return session.router.clock.now
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
        observer.layoutChanged(to: layout)
        armGestureTimer()
        if let live, Daemon.ruleFingerprint(old.deviceRules) != Daemon.ruleFingerprint(layout.deviceRules) {
            log.notice("reload: device rules changed; reopening input devices")
            route(live.stop())
            loop.unwatch(live.monitorFileDescriptor)
            self.live = nil
            do { try startLive(rules: layout.deviceRules) } catch { log.error("reload: \(error)") }
        }
        reloads += 1
        lastReloadErrors = []
        log.notice("reloaded: \(statusLine())")
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

    /// Device rules without their source locations, for "did the reload change them".
    static func ruleFingerprint(_ rules: [DeviceRuleSpec]) -> String {
        rules.map { rule in
            var r = rule
            r.location = nil
            r.displayLocation = nil
            return String(describing: r)
        }.joined(separator: "\n")
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
            if let live { route(live.stop()) }
            session.finish(at: session.router.clock.now)
        }
        live = nil
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
