#if canImport(Glibc)
import Glibc
#endif
@testable import EvrouteDaemon
import EvrouteCore
import EvrouteSystem
import EvrouteTestSupport

/// One display, one screen `home`: root (0,0,1000,1000) with handler `after` (log) that takes
/// what the plugin under test declines, and child `button` (0,0,100,100) whose handler is the
/// plugin under test, taking touch-began.
func pluginLayout(_ plugin: PluginSpec, buttonOn: [EventFilter] = [.touchBegan],
                  handlerOptions: [String: ConfigValue] = [:], extraPlugins: [PluginSpec] = []) throws -> Layout {
    let button = RegionSpec(name: "button", frame: Rect(x: 0, y: 0, width: 100, height: 100),
                            handlers: [HandlerSpec(plugin: plugin.name, on: buttonOn, options: handlerOptions)])
    let root = RegionSpec(name: "root", frame: Rect(x: 0, y: 0, width: 1000, height: 1000), regions: [button],
                          handlers: [HandlerSpec(plugin: "after", on: [.touch])])
    return try Layout.compile(LayoutSpec(
        displays: [DisplaySpec(name: "main", size: Size(width: 1000, height: 1000))],
        plugins: [plugin, PluginSpec(name: "after", type: .log)] + extraPlugins,
        screens: [ScreenSpec(name: "home", display: "main", root: root)]))
}

/// Records the outcome of each touch phase (the last record wins: a declined event is
/// recorded again where it ends up).
final class OutcomeRecorder: RouteObserver {
    /// touch id → responder that handled its began phase last.
    var began: [Int: String] = [:]
    /// Touch ids in the order their began phases were recorded.
    var beganOrder: [Int] = []
    var records = 0

    func record(_ record: RouteRecord) {
        guard case .routed(let e, let by, _) = record, case .touch(.began, _) = e.kind, let t = e.touch else { return }
        records += 1
        beganOrder.append(t.id)
        began[t.id] = by.map { e.layout.describe($0) } ?? "nil"
    }

    func count(_ responder: String) -> Int { began.values.filter { $0 == responder }.count }
}

/// A real router, loop and host over `layout`, with a touchscreen.
final class PluginRig {
    let loop: EventLoop
    let router: Router
    let host: PluginHost
    let outcomes = OutcomeRecorder()
    let logFile: String
    let logFD: Int32
    private var contact = 0
    fileprivate var time: Int64 = 1_000_000

    init(_ layout: Layout) throws {
        loop = try EventLoop()
        logFile = temporaryPath("log")
        logFD = open(logFile, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        host = try PluginHost(layout: layout, loop: loop, log: Log(threshold: .info, fd: logFD))
        router = Router(layout: layout)
        router.observer = outcomes
        host.attach(to: router)
        // What plugins queued during a wake-up is written at its end: the plugin context's own
        // end-of-wake-up hook, as in the daemon.
        router.addDevice(DeviceInfo(id: DeviceID(1), ruleName: "touch", name: "ts", kind: .touchscreen, display: "main"), time: .zero)
    }

    deinit {
        host.shutdown(grace: .milliseconds(300))
        close(logFD)
        unlink(logFile)
    }

    /// A tap at (x, y): began then ended. Returns the touch's id.
    @discardableResult
    func tap(_ x: Double = 50, _ y: Double = 50) -> Int {
        contact += 1
        time += 10_000
        router.handle(TouchFrameInput(device: DeviceID(1), time: Timestamp(microseconds: time),
                                      contacts: [ContactSample(contact: contact, change: .began, location: Point(x: x, y: y))]))
        host.writeFrame()   // each frame as if it were a wake-up of its own
        let id = router.activeTouches.first { $0.contact == contact }?.id ?? -1
        time += 10_000
        router.handle(TouchFrameInput(device: DeviceID(1), time: Timestamp(microseconds: time),
                                      contacts: [ContactSample(contact: contact, change: .ended, location: Point(x: x, y: y))]))
        host.writeFrame()
        return id
    }

    /// Runs the loop until `done()` holds or `seconds` pass (``runLoop(_:upTo:until:)``). Returns `done()`.
    @discardableResult
    func run(upTo seconds: Double, until done: @escaping () -> Bool) -> Bool { runLoop(loop, upTo: seconds, until: done) }

    /// Runs the loop for `seconds`.
    func run(for seconds: Double) { runLoop(loop, for: seconds) }

    func stats(_ name: String) -> PluginStatistics { host.statistics.first { $0.name == name }! }

    var logText: String { readFile(logFile) ?? "" }
}

/// Layouts in which one plugin's walk can reach the same plugin again (a decline walks on to
/// another of its handlers): the shapes that used to abort the daemon with an exclusivity
/// conflict when a socket client or process helper declined.
enum ReentryLayout {
    /// `plugin` on `button` and on its parent `root` (touch-began), then `after` (log) on the root.
    static func regionAndParent(_ plugin: PluginSpec) throws -> Layout {
        let button = RegionSpec(name: "button", frame: Rect(x: 0, y: 0, width: 100, height: 100),
                                handlers: [HandlerSpec(plugin: plugin.name, on: [.touchBegan])])
        let root = RegionSpec(name: "root", frame: Rect(x: 0, y: 0, width: 1000, height: 1000), regions: [button],
                              handlers: [HandlerSpec(plugin: plugin.name, on: [.touchBegan]), HandlerSpec(plugin: "after", on: [.touch])])
        return try Layout.compile(LayoutSpec(
            displays: [DisplaySpec(name: "main", size: Size(width: 1000, height: 1000))],
            plugins: [plugin, PluginSpec(name: "after", type: .log)],
            screens: [ScreenSpec(name: "home", display: "main", root: root)]))
    }

    /// `plugin` on screen `home` and on screen `over` (presented over `home`; present it with
    /// ``Router/present(screen:time:)``, screen 1), `after` (log) on the application: touches
    /// and keys.
    static func twoScreens(_ plugin: PluginSpec) throws -> Layout {
        let filters: [EventFilter] = [.touchBegan, .key]
        return try Layout.compile(LayoutSpec(
            displays: [DisplaySpec(name: "main", size: Size(width: 1000, height: 1000), initialScreen: "home")],
            plugins: [plugin, PluginSpec(name: "after", type: .log)],
            screens: [ScreenSpec(name: "home", display: "main", handlers: [HandlerSpec(plugin: plugin.name, on: filters)],
                                 root: RegionSpec(name: "root", frame: Rect(x: 0, y: 0, width: 1000, height: 1000))),
                      ScreenSpec(name: "over", display: "main", handlers: [HandlerSpec(plugin: plugin.name, on: filters)],
                                 root: RegionSpec(name: "root", frame: Rect(x: 0, y: 0, width: 1000, height: 1000)))],
            applicationHandlers: [HandlerSpec(plugin: plugin.name, on: [.key]), HandlerSpec(plugin: "after", on: [.touch, .key])]))
    }
}

extension PluginRig {
    /// A key pressed and released on a keyboard (added on first use) of display `main`.
    func press(_ code: Int = 30, name: String = "KEY_A") {
        router.addDevice(DeviceInfo(id: DeviceID(2), ruleName: "keys", name: "kbd", kind: .keyboard, display: "main"), time: .zero)
        for phase in [KeyPhase.down, .up] {
            time += 10_000
            router.handle(KeyInput(device: DeviceID(2), time: Timestamp(microseconds: time), code: code, name: name, phase: phase))
            host.writeFrame()
        }
    }
}

extension Layout {
    /// Compiles with the daemon's plugin types (``PluginTypes/all``) and libevdev's key names.
    static func compile(_ spec: LayoutSpec) throws(Diagnostics) -> Layout {
        useLibevdevKeyNames()
        return try compile(spec, pluginTypes: PluginTypes.all)
    }
}
