import Testing
import EvrouteChecks
@testable import EvrouteDaemon
import EvrouteConfig
import EvrouteCore
import EvrouteTestSupport

/// A plugin type declares what it reads and what it reports, once: the reader's key lists are
/// its declared keys, its instances report only metrics it declares, and it says itself whether
/// it has work in flight.
@Suite("Plugin type declarations")
struct PluginTypeDeclarationTests {
    @Test func theReadersKeyListsAreTheDeclaredKeys() {
        for type in PluginTypes.registered {
            expectEqual(type.pluginOptionKeys, type.pluginKeys.map(\.name), "\(type.name)")
            expectEqual(type.handlerOptionKeys, type.handlerKeys.map(\.name), "\(type.name)")
            expectEqual(Set(type.pluginKeys.map(\.name)).count, type.pluginKeys.count, "\(type.name): a key declared twice")
            for key in type.pluginKeys + type.handlerKeys { expect(!key.summary.isEmpty, "\(type.name): \(key.name)") }
        }
        let exec = PluginTypes.registered.first { $0.name == .exec }!
        expectEqual(exec.pluginKeys.first { $0.name == "max-concurrent" }?.integerRange, 1...256)
        expectEqual(exec.handlerOptionKeys, ["command", "shell"])
    }

    @Test func theDeclarationsAreListedForTheManualInRegistrationOrder() {
        let d = PluginTypes.declarations
        expectEqual(d.map(\.type), [.log, .exec, .socket, .process, "forward"])
        expectEqual(d.first { $0.type == .socket }?.pluginKeys.map(\.name), ["path", "mode", "answers", "deadline-ms", "on-timeout", "max-buffer", "max-clients"])
        expectEqual(d.first { $0.type == .log }?.handlerKeys.map(\.name), ["log-keys"])
        expectEqual(d.first { $0.type == "forward" }?.metrics.map(\.name), ["forwarded_touches", "forwarded_keys", "untyped_characters"])
    }

    @Test func aKeyTheTypeDoesNotDeclareIsRefused() throws {
        // `max-concurrent` is declared by `exec`, not by `process`.
        let spec = PluginSpec(name: "helper", type: .process,
                              options: ["command": .list([.string("cat")]), "max-concurrent": .number(2)])
        #expect(throws: (any Error).self) { try pluginLayout(spec) }
        let exec = PluginSpec(name: "shell", type: .exec,
                              options: ["command": .list([.string("true")]), "max-concurrent": .number(2)])
        _ = try pluginLayout(exec)
    }

    @Test func everyReportedValueIsDeclaredByItsType() throws {
        // An exec that ran, a socket with answers, a process helper: all their details are declared.
        let layout = try pluginLayout(PluginSpec(name: "shell", type: .exec, options: ["command": .list([.string("true")])]))
        let rig = try PluginRig(layout)
        rig.tap()
        expect(rig.run(upTo: 5) { rig.stats("shell")[gauge: .running] == 0 && rig.stats("shell")[counter: .started] == 1 })
        let declared = Set(PluginTypes.registered.first { $0.name == .exec }!.metrics.map(\.name))
        let reported = rig.stats("shell").details.map(\.name)
        expect(!reported.isEmpty)
        for name in reported { expect(declared.contains(name), "exec reports \(name), undeclared") }
        for type in PluginTypes.registered {
            expectEqual(Set(type.metrics.map(\.name)).count, type.metrics.count, "\(type.name): a metric declared twice")
        }
        expect(PluginTypes.registered.first { $0.name == .process }!.metrics.contains(.queuedBytes))
        expect(PluginTypes.registered.first { $0.name == .socket }!.metrics.contains(.clientsRefused))
    }

    @Test func theHostIsBusyWhileAnExecCommandRuns() throws {
        let layout = try pluginLayout(PluginSpec(name: "slow", type: .exec,
                                                 options: ["command": .list([.string("sleep"), .string("30")]),
                                                           "timeout": .number(0.2), "kill-after": .number(0.2)]))
        let rig = try PluginRig(layout)
        expect(!rig.host.busy)
        rig.tap()
        expect(rig.run(upTo: 5) { rig.stats("slow")[gauge: .running] == 1 })
        expect(rig.host.busy)
        expect(rig.run(upTo: 5) { rig.stats("slow")[gauge: .running] == 0 })
        expect(!rig.host.busy)
    }
}
