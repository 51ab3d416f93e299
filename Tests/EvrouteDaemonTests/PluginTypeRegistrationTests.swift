import Testing
import EvrouteChecks
@testable import EvrouteDaemon
import EvrouteConfig
import EvrouteCore
import EvrouteSystem

// MARK: A plugin type of the test's own: what a new type is, one file (this part) …

extension PluginKind {
    static let tally: PluginKind = "tally"
}

/// `tally`'s plugin-level options.
struct TallyOptions: Sendable {
    var every: Int
}

/// The `tally` type: takes every `every`-th event it is offered and declines the others; a
/// handler's `note` must be a string.
struct TallyPluginType: PluginType {
    var name: PluginKind { .tally }
    var pluginKeys: [ConfigKey] { [ConfigKey("every", .integer(1...100), default: "1", "Take every `every`-th event.")] }
    var handlerKeys: [ConfigKey] { [ConfigKey("note", .string, "A note; must be a string.")] }

    func readOptions(_ r: inout PluginOptionReader) -> (any Sendable)? {
        TallyOptions(every: r.integer("every", default: 1, in: pluginKeys[0].integerRange!))
    }

    func checkHandler(_ check: inout HandlerOptionCheck) {
        if let v = check.handler.options["note"], v.string == nil {
            check.error("'note' of a 'tally' handler must be a string", at: "note")
        }
    }

    func makePlugin(spec: PluginSpec, options: (any Sendable)?, context: PluginContext) -> (any Plugin)? {
        (options as? TallyOptions).map { TallyPlugin(spec: spec, options: $0, context: context) }
    }
}

final class TallyPlugin: Plugin {
    let spec: PluginSpec
    let options: TallyOptions
    private let context: PluginContext
    private(set) var statistics: PluginStatistics
    /// The event JSON lines it was given, each with an id it drew.
    private(set) var lines: [String] = []

    init(spec: PluginSpec, options: TallyOptions, context: PluginContext) {
        self.spec = spec
        self.options = options
        self.context = context
        statistics = PluginStatistics(name: spec.name, type: spec.type)
    }

    func start() {}
    func stop(_ reason: PluginStopReason) {}
    var liveChildren: [ChildProcess] { [] }

    func deliver(_ d: PluginDelivery) -> HandlerVerdict {
        lines.append(String(decoding: d.jsonLine(id: context.drawEventID()), as: UTF8.self))
        if lines.count % options.every == 0 { statistics.handled += 1; return .handled }
        statistics.declined += 1
        return .declined
    }
}

// MARK: … and a registration (here beside the daemon's; in the daemon, one line in `PluginTypes.registered`).

let typesWithTally = PluginCatalog(PluginTypes.registered + [TallyPluginType()])

@Suite("A plugin type is one file and a registration")
struct PluginTypeRegistrationTests {
    private func config(_ plugins: String, handler: String = "{ plugin: t, on: touch-began }") -> String {
        """
        displays:
          - { name: main, size: [1000, 1000] }
        plugins:
        \(plugins)
        screens:
          - name: home
            root:
              name: root
              frame: [0, 0, 1000, 1000]
              handlers: [{ plugin: log, on: touch }]
              regions:
                - { name: button, frame: [0, 0, 100, 100], handlers: [\(handler)] }
        """
    }

    private func diagnostics(_ yaml: String, _ types: PluginCatalog) -> [String] {
        do {
            let (_, layout) = try ConfigLoader.compile(yaml: yaml, file: "test.yaml", pluginTypes: types)
            return ConfigLoader.warnings(of: layout, file: "test.yaml").map(\.description)
        } catch {
            return error.errors.map(\.description)
        }
    }

    @Test func itsOptionsAreCheckedLikeTheDaemonsOwn() {
        expectEqual(diagnostics(config("  - { name: t, type: tally, every: 0, evry: 2 }", handler: "{ plugin: t, on: tap, note: [1] }"), typesWithTally), [
            "test.yaml:4:36: error: plugin t: `every` must be a whole number from 1 to 100",
            "test.yaml:4:45: error: unknown option 'evry' for plugin 't' (expected one of: every); did you mean 'every'?",
            "test.yaml:12:91: error: 'note' of a 'tally' handler must be a string",
        ])
        // A handler's option it does not read is warned about, with a guess among those it does.
        expectEqual(diagnostics(config("  - { name: t, type: tally }", handler: "{ plugin: t, on: tap, nte: x }"), typesWithTally), [
            "test.yaml:12:90: warning: handler option 'nte' is not read by the tally plugin (it reads: note); did you mean 'note'?",
        ])
        // Its name is one of the types a config may declare, with did-you-mean …
        expectEqual(diagnostics(config("  - { name: t, type: taly }"), typesWithTally), [
            "test.yaml:4:22: error: unknown plugin type 'taly' (expected one of: log, exec, socket, process, forward, tally, action, focus, present, dismiss); did you mean 'tally'?",
        ])
        // … and only where it is registered.
        expectEqual(diagnostics(config("  - { name: t, type: tally }"), PluginTypes.all).first?.hasPrefix(
            "test.yaml:4:22: error: unknown plugin type 'tally' (expected one of: log, exec, socket, process, forward, action, focus, present, dismiss)"), true)
    }

    @Test func theHostRunsItFromTheLayoutsCatalog() throws {
        let (_, layout) = try ConfigLoader.compile(yaml: config("  - { name: t, type: tally, every: 2 }"), file: "test.yaml",
                                                   pluginTypes: typesWithTally)
        let rig = try PluginRig(layout)
        let first = rig.tap(), second = rig.tap()
        // Declined, the first walked on to the log on the root; the second was taken.
        expectEqual(rig.outcomes.began[first], "home/root")
        expectEqual(rig.outcomes.began[second], "home/root/button")
        let s = rig.stats("t")
        expect(s.type == .tally && s.delivered == 2 && s.handled == 1 && s.declined == 1)
        expect(s.description.hasPrefix("t (tally): delivered 2, handled 1, declined 1"))
        // The log on the root wrote the line of the event it declined.
        expect(rig.logText.contains("touch \(first) began (50, 50) home/root/button → home/root [log]"))
    }
}
