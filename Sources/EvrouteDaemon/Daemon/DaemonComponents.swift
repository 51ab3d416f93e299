import EvrouteConfig
import EvrouteCore
import EvrouteJSON
import EvrouteRuntime
import EvrouteSystem

// The daemon's own components, beside the shared ones (``ControlSocketComponent``,
// ``ReplayComponent``, ``LiveInputComponent``). Started in the order ``Daemon`` lists them,
// stopped in the reverse.

/// The plugins (``PluginHost``): made at the start, shut down at the stop (already done by
/// ``HandlersComponent`` unless a later start failed).
final class PluginsComponent: PipelineComponent {
    let name = "plugins"
    private let layout: Layout
    private let log: Log
    private let showKeycodes: Bool
    private let answerCommand: (JSONValue) -> JSONValue
    /// The host, once started.
    private(set) var host: PluginHost?

    init(layout: Layout, log: Log, showKeycodes: Bool, answerCommand: @escaping (JSONValue) -> JSONValue) {
        self.layout = layout
        self.log = log
        self.showKeycodes = showKeycodes
        self.answerCommand = answerCommand
    }

    func start(in pipeline: Pipeline) throws {
        do {
            host = try PluginHost(layout: layout, loop: pipeline.loop, log: log)
        } catch {
            throw Daemon.StartupError(description: "plugins: \(error)")
        }
        host?.showKeycodes = showKeycodes
        host?.answerCommand = answerCommand
    }

    func stop() { host?.shutdown() }
}

/// The end of the routing session, stopped after the input: the session finished (what the
/// closed devices still hold ends), the session timer off.
final class SessionEndComponent: PipelineComponent {
    let name = "session"
    private unowned let pipeline: Pipeline

    init(pipeline: Pipeline) { self.pipeline = pipeline }

    func start(in pipeline: Pipeline) throws {}

    func stop() {
        pipeline.session.finish(at: pipeline.session.now)
        pipeline.timer?.isEnabled = false
    }
}

/// The `metrics:` block: counting and the text file from the start; the last write at the stop
/// (after the input's stop).
final class MetricsComponent: PipelineComponent {
    let name = "metrics"
    private unowned let daemon: Daemon
    private let spec: MetricsSpec?

    init(daemon: Daemon, spec: MetricsSpec?) {
        self.daemon = daemon
        self.spec = spec
    }

    func start(in pipeline: Pipeline) throws {
        if let spec { daemon.startMetrics(spec) }
        // A reload may start or end the sink: the hook asks for the one of the moment.
        pipeline.loop.addEndOfWakeupHook { [unowned daemon] in daemon.metrics?.wakeupEnded() }
    }

    func stop() {
        if daemon.metrics != nil { daemon.stopMetrics() }
    }
}

/// The plugins as the router's handlers. The stop: active touches and held keys cancelled
/// (routed to their handlers), plugins shut down, no handler run any more.
final class HandlersComponent: PipelineComponent {
    let name = "handlers"
    private unowned let daemon: Daemon

    init(daemon: Daemon) { self.daemon = daemon }

    func start(in pipeline: Pipeline) throws {
        daemon.plugins?.attach(to: pipeline.session.router)
    }

    func stop() { daemon.stopHandlers() }
}

/// systemd's watchdog: `WATCHDOG=1` at half its interval.
final class WatchdogComponent: PipelineComponent {
    let name = "watchdog"
    private let notifier: SystemdNotifier
    private let interval: Timestamp.Duration

    init(notifier: SystemdNotifier, interval: Timestamp.Duration) {
        self.notifier = notifier
        self.interval = interval
    }

    func start(in pipeline: Pipeline) throws {
        schedule(on: pipeline.loop)
    }

    private func schedule(on loop: EventLoop) {
        notifier.watchdog()
        loop.schedule(after: interval) { [weak self, unowned loop] in self?.schedule(on: loop) }
    }

    func stop() {}
}
