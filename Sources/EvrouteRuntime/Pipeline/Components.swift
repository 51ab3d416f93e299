import EvrouteCore
import EvrouteInput
import EvrouteJSON
import EvrouteSystem

// The components every mode (the daemon, `--dry-run`, `monitor`) builds its run from: the
// control socket, the replayed input and the live input. The daemon adds its own (plugins,
// metrics, handlers, watchdog) beside them.

/// The control socket: a ``ControlServer`` on the pipeline's loop while started; its socket
/// file is removed at the stop.
public final class ControlSocketComponent: PipelineComponent {
    public let name = "control socket"
    public let path: String
    private let log: Log
    private let answering: (JSONValue, ControlServer.PendingAnswer) -> Void
    /// The server, while started.
    public private(set) var server: ControlServer?

    /// Answers each request through the ``ControlServer/PendingAnswer`` it is given (at once or later).
    public init(path: String, log: Log, answering: @escaping (JSONValue, ControlServer.PendingAnswer) -> Void) {
        self.path = path
        self.log = log
        self.answering = answering
    }

    /// Answers each request at once.
    public convenience init(path: String, log: Log, answer: @escaping (JSONValue) -> JSONValue) {
        self.init(path: path, log: log, answering: { request, pending in pending.send(answer(request)) })
    }

    public func start(in pipeline: Pipeline) throws {
        server = try ControlServer(path: path, loop: pipeline.loop, log: log, answering: answering)
    }

    public func stop() {
        server?.shutdown()
        server = nil
    }
}

/// Replayed input: the recordings loaded at the start (the one place a replay loads them:
/// ``ReplayDriver/init(paths:descriptionPath:keepDevices:numbering:)``), or a driver given, fed to
/// the session on the pipeline's loop at its pace, from the start unless held (`--replay-paused`:
/// ``begin()`` starts it later).
public final class ReplayComponent: PipelineComponent {
    public let name = "replay"
    /// What to replay: recordings to load at the start, or a driver made already.
    public enum Recordings {
        case paths([String], descriptionPath: String?, keepDevices: Bool, numbering: ReplayDriver.DeviceNumbering)
        case driver(ReplayDriver)
    }
    private let recordings: Recordings
    public let pace: ReplayDriver.Pace
    /// Hold the replay until ``begin()``.
    public let paused: Bool
    /// Runs once the recordings are loaded, before any is fed (their warnings, their names).
    public var onLoaded: (ReplayDriver) -> Void = { _ in }
    /// Runs once every item is routed.
    public var onFinished: () -> Void = {}
    /// The driver, once loaded.
    public private(set) var driver: ReplayDriver?
    /// Whether the replay has begun.
    public private(set) var hasBegun = false
    private weak var pipeline: Pipeline?

    public init(_ recordings: Recordings, pace: ReplayDriver.Pace, paused: Bool = false) {
        self.recordings = recordings
        self.pace = pace
        self.paused = paused
    }

    public func start(in pipeline: Pipeline) throws {
        let driver: ReplayDriver = switch recordings {
        case .paths(let paths, let descriptionPath, let keepDevices, let numbering):
            try ReplayDriver(paths: paths, descriptionPath: descriptionPath, keepDevices: keepDevices, numbering: numbering)
        case .driver(let given): given
        }
        self.driver = driver
        self.pipeline = pipeline
        onLoaded(driver)
        if !paused { begin() }
    }

    /// Starts feeding the recordings; false when it has begun already (or is not started).
    @discardableResult
    public func begin() -> Bool {
        guard let pipeline, let driver, !hasBegun else { return false }
        hasBegun = true
        driver.start(in: pipeline.loop, into: pipeline.session, pace: pace) { [unowned self] in onFinished() }
        return true
    }

    public func stop() {
        pipeline = nil
    }
}

/// Live input: a ``LiveInputSource`` for the device rules, its events into the session, with the
/// pipeline's session timer (a long press fires while the finger rests). ``reopen(rules:)``
/// closes the devices and opens them again under other rules (a reload that changed them).
public final class LiveInputComponent: PipelineComponent {
    public let name = "live input"
    private var rules: [DeviceRuleSpec]
    /// Set up a new source before it starts (its callbacks; the report's lines).
    private let prepare: (LiveInputSource) -> Void
    /// After a start (the devices present then are open).
    private let started: (LiveInputSource) -> Void
    /// The source, while started.
    public private(set) var source: LiveInputSource?
    /// Events read by the sources ``reopen(rules:)`` replaced.
    public private(set) var earlierEvents = 0
    private weak var pipeline: Pipeline?
    /// How an error opening the input is told (the daemon's start names the input).
    public var describeError: (any Error) -> any Error = { $0 }

    public init(rules: [DeviceRuleSpec], prepare: @escaping (LiveInputSource) -> Void = { _ in },
                started: @escaping (LiveInputSource) -> Void = { _ in }) {
        self.rules = rules
        self.prepare = prepare
        self.started = started
    }

    /// Raw input events read since the start, over every source.
    public var eventsRead: Int { earlierEvents + (source?.eventsRead ?? 0) }

    public func start(in pipeline: Pipeline) throws {
        self.pipeline = pipeline
        let timer = pipeline.useSessionTimer()
        do {
            let source = try LiveInputSource(rules: rules)
            prepare(source)
            self.source = source
            source.sink = pipeline.session
            timer.readPendingInput = { [unowned source] in source.readPending() }
            try source.start(in: pipeline.loop)
            started(source)
        } catch {
            throw describeError(error)
        }
    }

    /// Closes the devices and opens them under `rules`.
    public func reopen(rules: [DeviceRuleSpec]) throws {
        guard let pipeline, let old = source else { return }
        old.stop()
        earlierEvents += old.eventsRead
        source = nil
        self.rules = rules
        try start(in: pipeline)
    }

    public func stop() {
        source?.stop()
        source = nil
    }
}
