#if canImport(Glibc)
import Glibc
#endif
import EvrouteConfig
import EvrouteCore
import EvrouteInput
import EvrouteJSON
import EvrouteRuntime
import EvrouteSystem

/// Runs the plugin instances of a layout and dispatches routed events to them: the daemon's
/// ``HandlerDispatcher``. Everything happens on the event loop's thread; ``dispatch(_:toHandler:at:)``
/// never waits (it writes to non-blocking descriptors, queues, or spawns, and returns).
///
/// It runs the hosted plugin types the layout was compiled with (``Layout/pluginTypes``: the
/// daemon's ``PluginTypes``), each instance made by its ``PluginType``; the routing built-ins
/// (`action`, `focus`, `present`, `dismiss`) are performed by the router itself and never reach
/// the host. A plugin that fails (cannot bind, helper crashes, child hangs) is
/// isolated: its events are declined or time out and walk on; the daemon and other plugins
/// go on.
public final class PluginHost: HandlerDispatcher {
    private let loop: EventLoop
    private let log: Log
    /// Unowned, not weak: a weak reference gives the router a side table, and every retain and
    /// release of it (several per routed event) then takes the runtime's slow path. The router
    /// outlives its dispatcher's use of it (the daemon keeps both; ``shutdown(grace:)`` lets go).
    private unowned(safe) var router: Router?
    private var plugins: [String: any Plugin] = [:]
    /// Plugin names in declaration order (for ``statistics``).
    private var order: [String] = []
    /// Stopped instances whose children have not exited yet.
    private var retired: [any Plugin] = []
    /// Deliveries per plugin name (a fresh instance starts again from 0), shared with ``table``.
    private var delivered: [String: DeliveryCount] = [:]
    /// The dispatch table of the current layout (the one last started or reloaded): for each
    /// of its handlers (``HandlerBinding/index``), the running instance and its delivery count,
    /// so a dispatch costs no lookup by name. Events of a touch bound to an older layout take
    /// the lookup by name.
    private var table = DispatchTable()
    private var context: PluginContext!
    private var unknownLogs = LogRateLimiter()
    private var isShutDown = false
    /// Plugin deliveries under way (a plugin's `deliver` may walk waiting events on, e.g. a
    /// helper found gone while writing to it).
    private var delivering = 0
    /// Events walked on during a delivery, waiting for the router to finish its walk.
    private var walksOn: [(event: RoutedEvent, handler: HandlerBinding)] = []
    private var walkOnTimer: EventLoop.TimerID?

    /// Starts the plugins of `layout` with the options its compilation checked and typed
    /// (``Layout/pluginOptions``, ``Layout/handlerOptions``); throws only for a layout without
    /// them. Runtime failures (a socket that cannot
    /// be bound, a helper that cannot be spawned) are logged and show in ``statistics``.
    /// Ignores SIGPIPE for the process (writes to vanished peers must fail, not kill).
    public init(layout: Layout, loop: EventLoop, log: Log) throws(Diagnostic) {
        self.loop = loop
        self.log = log
        signal(SIGPIPE, SIG_IGN)
        // Unowned for the same reason as `router`: the plugins, and so their context, live no
        // longer than the host.
        context = PluginContext(loop: loop, log: log) { [unowned self] event, handler in
            walkOn(event, after: handler)
        }
        let created = try makePlugins(layout)
        for p in created {
            plugins[p.spec.name] = p
            order.append(p.spec.name)
        }
        for p in created { p.start() }
        table = DispatchTable(layout: layout, plugins: plugins, count: deliveryCount)
    }

    /// Writes the event lines plugins queued during this wake-up: one write(2) per socket client
    /// and per `process` helper for a frame's events (or a wake-up's). The daemon's after-wakeup hook.
    public func writeFrame() { context.writeFrame() }

    /// A device arrived (``RoutingSession/onDeviceAdded``): plugins are told, and it is kept for
    /// those a reload starts.
    public func deviceAdded(_ info: DeviceInfo, description: DeviceDescription, mapper: CoordinateMapper?) {
        guard !isShutDown else { return }
        let device = PresentDevice(info: info, description: description, mapper: mapper)
        context.devices[info.id] = device
        for name in order { plugins[name]?.deviceAdded(device) }
    }

    /// A device went, its touches and keys cancelled (``RoutingSession/onDeviceRemoved``).
    public func deviceRemoved(_ id: DeviceID) {
        guard let device = context.devices.removeValue(forKey: id) else { return }
        for name in order { plugins[name]?.deviceRemoved(device) }
    }

    /// Let the log name typing keys for this run (`--show-keycodes`); set by the daemon.
    public var showKeycodes: Bool {
        get { context.showKeycodes }
        set { context.showKeycodes = newValue }
    }

    /// Answers commands that `socket` and `process` peers send on their own connections
    /// (docs/ui-control.md); set by the daemon.
    public var answerCommand: ((JSONValue) -> JSONValue)? {
        get { context.answerCommand }
        set { context.answerCommand = newValue }
    }

    /// Becomes `router`'s dispatcher. The router keeps its dispatcher; the host keeps `router`
    /// unowned (no cycle): `router` must outlive the host's dispatching, or ``shutdown(grace:)``
    /// must come first.
    public func attach(to router: Router) {
        self.router = router
        router.dispatcher = self
    }

    /// Switches to the plugins of `layout`. Instances whose name, type and options are
    /// unchanged keep running (sockets stay connected, helpers keep their state); others are
    /// stopped (their waiting events walk on) and new ones started. (A layout with a bad
    /// option never compiles, so a reload refuses it before it gets here.)
    public func reload(layout: Layout) throws(Diagnostic) {
        guard !isShutDown else { return }
        let candidates = try makePlugins(layout)
        var next: [String: any Plugin] = [:]
        var nextOrder: [String] = []
        var fresh: [any Plugin] = []
        for candidate in candidates {
            let name = candidate.spec.name
            if let old = plugins[name], old.spec.type == candidate.spec.type, old.spec.options == candidate.spec.options {
                next[name] = old
            } else {
                next[name] = candidate
                fresh.append(candidate)
                delivered[name] = DeliveryCount()
            }
            nextOrder.append(name)
        }
        let leaving = plugins.filter { next[$0.key] !== $0.value }.map(\.value)
        plugins = next
        order = nextOrder
        table = DispatchTable(layout: layout, plugins: plugins, count: deliveryCount)
        for p in leaving {
            log.info(.pluginStopped, fields: [.plugin: p.spec.name], "plugin \(p.spec.name) (\(p.spec.type)): stopped (reload)")
            p.stop(.reload)
            retired.append(p)
        }
        for name in delivered.keys where next[name] == nil { delivered[name] = nil }
        for p in fresh { p.start() }
        pruneRetired()
    }

    /// Stops every plugin for exit: sockets are closed (and their files removed), helpers get
    /// EOF and SIGTERM, running commands SIGTERM. Waits at most `grace` (blocking, once, at
    /// exit) for children to exit, then SIGKILLs and reaps the rest.
    public func shutdown(grace: Timestamp.Duration = .seconds(1)) {
        guard !isShutDown else { return }
        isShutDown = true
        router = nil
        if let t = walkOnTimer { loop.cancel(t); walkOnTimer = nil }
        walksOn.removeAll()
        let all = order.compactMap { plugins[$0] } + retired
        for p in all { p.stop(.shutdown) }
        let children = all.flatMap(\.liveChildren)
        for c in children { c.signal(SIGTERM) }
        let deadline = MonotonicClock.now() + grace
        for c in children { c.waitForExit(until: deadline) }
        for c in children where c.isRunning {
            log.warning("plugin child \(c.argv[0]) [\(c.pid)] ignored SIGTERM; SIGKILL")
            c.signal(SIGKILL)
            c.waitForExit(until: MonotonicClock.now() + .milliseconds(200))
        }
        retired.removeAll()
    }

    /// Counters for `evroute status`, in declaration order.
    public var statistics: [PluginStatistics] {
        pruneRetired()
        return order.compactMap { name in
            guard var s = plugins[name]?.statistics else { return nil }
            s.delivered = delivered[name]?.value ?? 0
            return s
        }
    }

    /// Whether a plugin still has work in flight (``Plugin/isBusy``).
    public var busy: Bool {
        pruneRetired()
        return order.contains { plugins[$0]?.isBusy ?? false }
    }

    // MARK: Dispatch

    /// (The current layout's handlers find their instance in the dispatch table; everything else
    /// is out of line. A `log` instance, a `socket` one without answers and a `forward` take their
    /// events from the table in place, on their concrete types: where a delivery record and a call
    /// through the protocol show in the live, socket and forward paths' instruction counts;
    /// docs/performance-design.md.)
    @inline(__always)
    public func dispatch(_ event: RoutedEvent, toHandler handler: HandlerIndex, at responder: ResponderID) -> HandlerVerdict {
        let index = handler.rawValue
        if event.layout === table.layout, let entry = table.entry(forHandler: index, of: event.layout) {
            table.instances[entry].count.value += 1
            if let log = table.instances[entry].log {
                return log.deliverInPlace(event, handler: index, responder: responder)
            }
            if let socket = table.instances[entry].socket {
                return socket.deliverInPlace(event, handler: index, responder: responder)
            }
            if let forward = table.instances[entry].forward {
                return forward.deliverInPlace(event, handler: index, responder: responder)
            }
            return deliver(event, handler: index, at: responder, to: table.instances[entry].plugin)
        }
        return dispatchOther(event, toHandler: index, at: responder)
    }

    /// ``dispatch(_:toHandler:at:)`` for a handler the table does not have, or a layout the
    /// table does not follow yet.
    @inline(never)
    private func dispatchOther(_ event: RoutedEvent, toHandler index: Int, at responder: ResponderID) -> HandlerVerdict {
        let plugin: any Plugin
        if event.layout !== table.layout, event.layout === router?.layout {
            // A run-time change (`evroute ctl hide`, `frame`, `regions` …) made the router a new
            // layout with the same plugins: the table follows it.
            table = DispatchTable(layout: event.layout, plugins: plugins, count: deliveryCount)
        }
        if let entry = table.entry(forHandler: index, of: event.layout) {
            table.instances[entry].count.value += 1
            plugin = table.instances[entry].plugin
        } else {
            let handler = event.layout.handlers[index]
            guard let named = plugins[handler.plugin] else {
                log.limited(.warning, &unknownLogs, "no running plugin \(handler.plugin) (type \(handler.pluginType)); event declined")
                return .declined
            }
            plugin = named
            deliveryCount(of: handler.plugin).value += 1
        }
        return deliver(event, handler: index, at: responder, to: plugin)
    }

    @inline(__always)
    private func deliver(_ event: RoutedEvent, handler index: Int, at responder: ResponderID, to plugin: any Plugin) -> HandlerVerdict {
        delivering += 1
        defer { delivering -= 1 }
        return plugin.deliver(PluginDelivery(event: event, handler: index, responder: responder))
    }

    /// Walks a declined (or expired) event on from its handler. From a plugin's own callback
    /// (an answer, a timeout, a helper's exit) the walk starts at once; during a delivery —
    /// while the router is inside a walk — it waits for the next turn of the loop, so a
    /// plugin's `deliver` never re-enters the router.
    private func walkOn(_ event: RoutedEvent, after handler: HandlerBinding) {
        guard delivering > 0 else {
            router?.continueRouting(event, after: handler)
            return
        }
        walksOn.append((event, handler))
        if walkOnTimer == nil {
            walkOnTimer = loop.schedule(after: .milliseconds(0)) { [unowned self] in
                walkOnTimer = nil
                let waiting = walksOn
                walksOn.removeAll()
                for w in waiting { walkOn(w.event, after: w.handler) }
            }
        }
    }

    /// The delivery count of the plugin named `name` (made at its first delivery).
    private func deliveryCount(of name: String) -> DeliveryCount {
        if let count = delivered[name] { return count }
        let count = DeliveryCount()
        delivered[name] = count
        return count
    }

    // MARK: Instances

    private func makePlugins(_ layout: Layout) throws(Diagnostic) -> [any Plugin] {
        var out: [any Plugin] = []
        // The options were typed and checked when the layout compiled (the one validator).
        if let e = layout.pluginErrors.first {
            var refusal = e
            refusal.kind = .plugin
            throw refusal
        }
        for spec in layout.plugins where spec.type.isHosted {   // routing built-ins: the router performs them
            // Each instance is made by its type, as registered in the catalog the layout was compiled with.
            guard let type = layout.pluginTypes.hosted(spec.type) as? any PluginType,
                  let plugin = type.makePlugin(spec: spec, options: layout.pluginOptions[spec.name], context: context) else {
                throw Diagnostic("plugin \(spec.name): its options were not checked (the layout was not compiled)", at: spec.location, kind: .plugin)
            }
            out.append(plugin)
        }
        return out
    }

    private func pruneRetired() {
        retired.removeAll { $0.liveChildren.isEmpty }
    }
}

/// The current layout's handlers → running plugin instances, by index (see `PluginHost.table`).
private struct DispatchTable {
    struct Instance {
        let plugin: any Plugin
        /// The plugin's delivery count (the host's, by name).
        let count: DeliveryCount
        /// ``plugin`` when it is a `log` (see `PluginHost.dispatch`).
        let log: LogPlugin?
        /// ``plugin`` when it is a `socket` whose events never walk on (no answers): its line is
        /// written from the event in place, as the log's.
        let socket: SocketPlugin?
        /// ``plugin`` when it is a `forward`: its touches are queued from the event in place.
        let forward: ForwardPlugin?

        init(plugin: any Plugin, count: DeliveryCount) {
            self.plugin = plugin
            self.count = count
            log = plugin as? LogPlugin
            socket = (plugin as? SocketPlugin).flatMap { $0.config.answers ? nil : $0 }
            forward = plugin as? ForwardPlugin
        }
    }
    /// The layout the table is for (held: its identity is what events are checked against).
    private(set) var layout: Layout?
    private(set) var instanceOfHandler: [Int] = []
    var instances: [Instance] = []

    init() {}

    init(layout: Layout, plugins: [String: any Plugin], count: (String) -> DeliveryCount) {
        self.layout = layout
        var indexByName: [String: Int] = [:]
        instanceOfHandler = layout.handlers.map { handler in
            if let i = indexByName[handler.plugin] { return i }
            guard let plugin = plugins[handler.plugin] else { return -1 }
            indexByName[handler.plugin] = instances.count
            instances.append(Instance(plugin: plugin, count: count(handler.plugin)))
            return instances.count - 1
        }
    }

    /// The instance entry for the handler `index` of `layout`, when `layout` is the table's.
    @inline(__always)
    func entry(forHandler index: Int, of layout: Layout) -> Int? {
        guard layout === self.layout, index < instanceOfHandler.count else { return nil }
        let i = instanceOfHandler[index]
        return i >= 0 ? i : nil
    }
}

/// A plugin's number of deliveries, counted in place by the dispatch table and the lookup by name.
private final class DeliveryCount {
    var value = 0
}
