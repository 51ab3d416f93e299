import EvrouteConfig
import EvrouteCore
import EvrouteInput
import EvrouteJSON
import EvrouteRuntime
import EvrouteSystem

/// One event offered to a plugin: the event, and the handler and responder that take it. Its
/// JSON line (the docs/events.md object plus a daemon-unique `"id"` the plugin draws,
/// ``PluginContext/drawEventID()``, ending in `\n`) is written by the plugin that sends it,
/// straight into the buffer it leaves in (``appendJSONLine(id:to:)``): no line, and no id, is
/// made for a plugin that does not send one.
struct PluginDelivery {
    let event: RoutedEvent
    /// The handler's place in `event.layout.handlers` (``handler``; ``HandlerBinding/index``): what
    /// a plugin keys its own per-handler state by.
    let handlerIndex: Int
    let responder: ResponderID

    init(event: RoutedEvent, handler index: Int, responder: ResponderID) {
        self.event = event
        handlerIndex = index
        self.responder = responder
    }

    /// The handler that takes the event.
    var handler: HandlerBinding { event.layout.handlers[handlerIndex] }

    /// The handler's typed options (``Layout/handlerOptions``: what its type's check made of them).
    var handlerOptions: (any Sendable)? { event.layout.handlerOptions[handlerIndex] }

    /// Appends the event's line, as event `id`, in the plugins' wire format (``PluginEventJSON``) to `json`.
    func appendJSONLine(id: UInt64, to json: inout JSONWriter) {
        PluginEventJSON.appendLine(for: event, handler: event.layout.handlers[handlerIndex], responder: responder, id: id, to: &json)
    }

    /// The event's line on its own, as event `id`.
    func jsonLine(id: UInt64) -> [UInt8] {
        var json = JSONWriter()
        appendJSONLine(id: id, to: &json)
        return json.bytes
    }
}

/// Why a plugin instance is being stopped.
enum PluginStopReason {
    /// A reload replaced it: events still waiting for an answer walk on.
    case reload
    /// The daemon is exiting: nothing routes any more.
    case shutdown
}

/// A plugin instance the ``PluginHost`` runs. Every method runs on the event loop's thread
/// and must return promptly: no blocking system call, no waiting.
protocol Plugin: AnyObject {
    var spec: PluginSpec { get }
    /// Counters and gauges (the host fills in `delivered`).
    var statistics: PluginStatistics { get }
    /// Opens sockets, spawns helpers. Failures are logged and recorded, never thrown.
    func start()
    /// Takes one event, during the router's walk. `.handled` also means "dispatched, the answer
    /// may come later". A plugin that sends the event's line draws its id
    /// (``PluginContext/drawEventID()``) when it writes it.
    func deliver(_ delivery: PluginDelivery) -> HandlerVerdict
    /// Closes descriptors and signals children (SIGTERM); returns at once.
    func stop(_ reason: PluginStopReason)
    /// Children not yet reaped (for the bounded wait at shutdown).
    var liveChildren: [ChildProcess] { get }
    /// Whether it has work in flight (commands running or queued, answers pending, bytes queued
    /// for a helper): a replay run with `--exit-after-replay` waits for it. A helper merely
    /// running is not work in flight. Default false.
    var isBusy: Bool { get }
    /// A device a rule took arrived (after the router knows it). Default: nothing.
    func deviceAdded(_ device: PresentDevice)
    /// A device went, after its touches and keys were cancelled and routed. Default: nothing.
    func deviceRemoved(_ device: PresentDevice)
}

extension Plugin {
    var isBusy: Bool { false }
    func deviceAdded(_ device: PresentDevice) {}
    func deviceRemoved(_ device: PresentDevice) {}
}

/// A device being routed, as plugins learn of it: its info, its description (axes, ids), and
/// for a touch device the mapping of its axes onto its display.
struct PresentDevice {
    let info: DeviceInfo
    let description: DeviceDescription
    let mapper: CoordinateMapper?
}

/// A plugin type the host can run: the compiler's view of it (``HostedPluginType``: name,
/// option keys, checks) and its factory. Each type is one file (its plugin, options, checks and
/// this conformance) and one line in ``PluginTypes``.
protocol PluginType: HostedPluginType {
    /// The plugin-level options it reads, as the manual lists them; the reader's list of known
    /// keys (``HostedPluginType/pluginOptionKeys``) is their names. Default none.
    var pluginKeys: [ConfigKey] { get }
    /// The handler-level options it reads itself, as the manual lists them; the reader's list
    /// (``HostedPluginType/handlerOptionKeys``) is their names. Default none.
    var handlerKeys: [ConfigKey] { get }
    /// The type-specific values its instances report in ``PluginStatistics/details`` (`evroute
    /// status`), each declared once by the type that counts it. Default none.
    var metrics: [PluginMetric] { get }
    /// An instance of the plugin `spec` declares, `options` its ``HostedPluginType/readOptions(_:)``
    /// made when the layout compiled; nil when they were not (the layout was not compiled).
    func makePlugin(spec: PluginSpec, options: (any Sendable)?, context: PluginContext) -> (any Plugin)?
}

extension PluginType {
    var pluginKeys: [ConfigKey] { [] }
    var handlerKeys: [ConfigKey] { [] }
    var metrics: [PluginMetric] { [] }
    var pluginOptionKeys: [String] { pluginKeys.map(\.name) }
    var handlerOptionKeys: [String] { handlerKeys.map(\.name) }
}

/// What a plugin has run at the end of a wake-up (``PluginContext/writeAtEndOfFrame(_:)``): it
/// writes the lines it queued during the wake-up.
protocol EndOfFrameWriter: AnyObject {
    func writeEndOfFrame()
}

/// What plugins share with their host: the loop, the log, and the way back into routing.
final class PluginContext {
    let loop: EventLoop
    let log: Log
    /// Continues the walk of an event a plugin declined after having taken it.
    let continueRouting: (RoutedEvent, HandlerBinding) -> Void

    /// Answers a command a `socket` or `process` peer sent on its own connection (docs/ui-control.md:
    /// `{"command":"present","screen":"confirm"}`); nil until the daemon sets it.
    var answerCommand: ((JSONValue) -> JSONValue)?
    /// Name typing keys in the log for this run (`--show-keycodes`).
    var showKeycodes = false

    init(loop: EventLoop, log: Log, continueRouting: @escaping (RoutedEvent, HandlerBinding) -> Void) {
        self.loop = loop
        self.log = log
        self.continueRouting = continueRouting
        loop.addEndOfWakeupHook { [weak self] in self?.writeFrame() }
    }

    /// The devices being routed (the host keeps it: a plugin started by a reload finds them here).
    var devices: [DeviceID: PresentDevice] = [:]

    /// State a plugin type shares between its instances and across reloads (one per type `T`,
    /// made by `make` when first asked for), e.g. `forward`'s virtual devices.
    func shared<T: AnyObject>(_ make: () -> T) -> T {
        let key = ObjectIdentifier(T.self)
        if let existing = sharedState[key] as? T { return existing }
        let made = make()
        sharedState[key] = made
        return made
    }
    private var sharedState: [ObjectIdentifier: AnyObject] = [:]

    /// The next event id (daemon-unique, from 1): the `"id"` of an event's JSON line.
    func drawEventID() -> UInt64 {
        defer { nextEventID += 1 }
        return nextEventID
    }
    private var nextEventID: UInt64 = 1

    /// Writes registered by plugins that queued output during this wake-up (``writeAtEndOfFrame(_:)``).
    private var frameWrites: [any EndOfFrameWriter] = []

    /// Has `write` run at the end of this wake-up (``writeFrame()``): a plugin writes a frame's
    /// event lines into its buffer (`socket`, `process`) and registers once, so they leave in one write(2) per peer,
    /// with no system call per event (registering allocates nothing).
    func writeAtEndOfFrame(_ writer: any EndOfFrameWriter) {
        frameWrites.append(writer)
    }

    /// The bytes of a frame's lines past which a plugin writes them before the end of the
    /// wake-up (a replay's chunk, or a burst, does not hold them all).
    static let frameFlushBytes = 64 * 1024

    /// Runs the writes registered since the last call: the daemon's after-wakeup hook.
    func writeFrame() {
        guard !frameWrites.isEmpty else { return }
        var i = 0
        while i < frameWrites.count {   // a write may register another
            frameWrites[i].writeEndOfFrame()
            i += 1
        }
        frameWrites.removeAll(keepingCapacity: true)
    }

    /// When a peer's line is a command (a JSON object with `"command"`) rather than an answer to
    /// an event, the answer line to send back (ending in a newline); nil for any other line.
    func reply(toCommand line: ArraySlice<UInt8>) -> [UInt8]? {
        guard PluginContext.mentionsCommand(line), let request = try? JSONValue.parse(utf8: line),
              ControlProtocol.commandName(of: request) != nil else { return nil }
        let answer = answerCommand?(request)
            ?? ControlProtocol.tagged(ControlProtocol.failure("commands are not served on this connection"), from: request)
        return Array((answer.serialized + "\n").utf8)
    }

    /// The answer line to a line longer than ``ControlServer/maximumRequest`` (never executed):
    /// the control socket's error, with the request's `"tag"` when its first part holds it.
    func reply(toOverlong prefix: ArraySlice<UInt8>) -> [UInt8] {
        Array((ControlServer.lineTooLongAnswer(prefix: prefix).serialized + "\n").utf8)
    }

    /// A cheap first look: does the line contain `"command"` at all (event answers do not)?
    private static func mentionsCommand(_ line: ArraySlice<UInt8>) -> Bool {
        let key = Array("\"\(ControlProtocol.command)\"".utf8)
        guard line.count >= key.count else { return false }
        var i = line.startIndex
        while i <= line.endIndex - key.count {
            if line[i] == key[0], line[i..<(i + key.count)].elementsEqual(key) { return true }
            i += 1
        }
        return false
    }
}

/// Lets a noisy source log a few lines, then one summary per window: a helper that writes
/// garbage as fast as it can must not flood the journal.
struct LogRateLimiter {
    var burst = 5
    var window: Timestamp.Duration = .seconds(10)
    private var windowStart = Timestamp.zero
    private var count = 0
    private var suppressed = 0

    init(burst: Int = 5, window: Timestamp.Duration = .seconds(10)) {
        self.burst = burst
        self.window = window
    }

    /// Whether to log now; `suppressedBefore` is how many were swallowed since the last one logged.
    mutating func allow(now: Timestamp = MonotonicClock.now()) -> (allowed: Bool, suppressedBefore: Int) {
        if now - windowStart >= window {
            windowStart = now
            count = 0
        }
        count += 1
        if count <= burst {
            let s = suppressed
            suppressed = 0
            return (true, s)
        }
        suppressed += 1
        return (false, 0)
    }
}

extension Log {
    /// Logs through a rate limiter, noting how many messages it swallowed.
    func limited(_ level: Level, _ limiter: inout LogRateLimiter, _ message: @autoclosure () -> String) {
        let (allowed, suppressed) = limiter.allow()
        guard allowed else { return }
        log(level, message() + (suppressed > 0 ? " (\(suppressed) similar messages suppressed)" : ""))
    }
}
