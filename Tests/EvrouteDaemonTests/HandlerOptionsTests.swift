#if canImport(Glibc)
import Glibc
#endif
import Testing
import EvrouteChecks
@testable import EvrouteDaemon
import EvrouteCore
import EvrouteSystem
import EvrouteTestSupport

/// Handler options of every kind, with names and values that need care.
private let options: [String: ConfigValue] = [
    "key": .string("1"),
    "page": .number(2),
    "ratio": .number(0.5),
    "modal": .bool(true),
    "page-name": .string("Über \"uns\"\n"),
    "list": .list([.string("a"), .number(1), .bool(false), .null]),
    "nested": .map(["z": .number(-3), "a": .map(["deep": .list([])])]),
    "nothing": .null,
]

/// The same, as the event line's `"options"` (keys sorted, numbers in the shortest style).
private let optionsJSON = #""options":{"key":"1","list":["a",1,false,null],"modal":true,"nested":{"a":{"deep":[]},"z":-3},"nothing":null,"page":2,"page-name":"Über \"uns\"\n","ratio":0.5}"#

@Suite("Handler options travel with events")
struct HandlerOptionsTests {
    @Test func socketClientsGetTheHandlersOptions() throws {
        let path = temporaryPath("ui.sock")
        let rig = try PluginRig(try pluginLayout(PluginSpec(name: "ui", type: .socket, options: ["path": .string(path)]),
                                                 handlerOptions: options))
        let client = try socketClient(path, rig)
        expect(rig.run(upTo: 5) { rig.stats("ui")[gauge: .clients] == 1 })
        rig.tap()
        expect(rig.run(upTo: 5) { client.lines.count == 1 })
        let line = client.lines.first ?? ""
        expect(line.hasPrefix("{\"type\":\"touch\""))
        expect(line.contains("\"handler\":\"ui\",\"tap_count\":"))
        expect(line.contains(",\(optionsJSON),\"id\":"), "\(line)")   // after the event's fields, before the id
    }

    @Test func aHandlerWithoutOptionsSendsNone() throws {
        let path = temporaryPath("ui.sock")
        let rig = try PluginRig(try pluginLayout(PluginSpec(name: "ui", type: .socket, options: ["path": .string(path)])))
        let client = try socketClient(path, rig)
        expect(rig.run(upTo: 5) { rig.stats("ui")[gauge: .clients] == 1 })
        rig.tap()
        expect(rig.run(upTo: 5) { client.lines.count == 1 })
        expectEqual(client.lines.first?.contains("\"options\""), false)
        expectEqual(client.lines.first?.contains(",\"id\":"), true)
    }

    @Test func processHelpersGetTheHandlersOptions() throws {
        let received = temporaryPath("received.txt")
        let helper = script("helper.py", """
        #!/usr/bin/env python3
        import json, sys
        for line in sys.stdin:
            event = json.loads(line)
            with open(sys.argv[1], "a") as f:
                f.write(json.dumps(event.get("options"), sort_keys=True, ensure_ascii=False) + "\\n")
            print(json.dumps({"id": event["id"], "handled": True}), flush=True)
        """)
        let plugin = PluginSpec(name: "helper", type: .process,
                                options: ["command": .list([.string(helper), .string(received)]), "deadline-ms": .number(5000)])
        let rig = try PluginRig(try pluginLayout(plugin, handlerOptions: options))
        expect(rig.run(upTo: 5) { rig.stats("helper")[gauge: .running] == 1 })
        let id = rig.tap()
        expect(rig.run(upTo: 5) { rig.stats("helper").handled == 1 })
        expectEqual(rig.outcomes.began[id], "home/root/button")
        expectEqual(readFile(received), #"{"key": "1", "list": ["a", 1, false, null], "modal": true, "nested": {"a": {"deep": []}, "z": -3}, "nothing": null, "page": 2, "page-name": "Über \"uns\"\n", "ratio": 0.5}"# + "\n")
        unlink(received)
    }

    @Test func execCommandsGetEachOptionAsAVariable() throws {
        let out = temporaryPath("key.txt")
        let layout = try pluginLayout(PluginSpec(name: "shell", type: .exec), handlerOptions: [
            "command": .list([.string("sh"), .string("-c"), .string("echo \"$EVROUTE_OPT_KEY\" > \"$0.tmp\" && mv \"$0.tmp\" \"$0\""), .string(out)]),
            "key": .string("1"),
        ])
        let rig = try PluginRig(layout)
        rig.tap()
        expect(rig.run(upTo: 5) { readFile(out) != nil })
        expectEqual(readFile(out), "1\n")
        unlink(out)
    }

    @Test func execVariablesNamesValuesAndThePluginsOwnOptions() throws {
        let out = temporaryPath("env.txt")
        var handler = options
        handler["page-name"] = .string("Über uns")   // one line, for `env`
        handler["page_name"] = .string("second")      // the same variable name: the first key in order wins
        handler["2nd.value"] = .string("x")
        handler["ünïcode key"] = .string("y")
        handler["shell"] = .bool(true)
        handler["command"] = .string("env | grep ^EVROUTE_OPT_ | sort > \"\(out).tmp\" && mv \"\(out).tmp\" \"\(out)\"")
        let rig = try PluginRig(try pluginLayout(PluginSpec(name: "shell", type: .exec), handlerOptions: handler))
        rig.tap()
        expect(rig.run(upTo: 5) { readFile(out) != nil })
        expectEqual(readFile(out), """
            EVROUTE_OPT_2ND_VALUE=x
            EVROUTE_OPT_KEY=1
            EVROUTE_OPT_LIST=["a",1,false,null]
            EVROUTE_OPT_MODAL=true
            EVROUTE_OPT_NESTED={"a":{"deep":[]},"z":-3}
            EVROUTE_OPT_NOTHING=
            EVROUTE_OPT_PAGE=2
            EVROUTE_OPT_PAGE_NAME=Über uns
            EVROUTE_OPT_RATIO=0.5
            EVROUTE_OPT__N_CODE_KEY=y

            """)
        unlink(out)
    }

    @Test func optionVariableNames() {
        expectEqual(EventEnvironment.optionName("key"), "EVROUTE_OPT_KEY")
        expectEqual(EventEnvironment.optionName("page-name"), "EVROUTE_OPT_PAGE_NAME")
        expectEqual(EventEnvironment.optionName("Page Name 2"), "EVROUTE_OPT_PAGE_NAME_2")
        expectEqual(EventEnvironment.optionName("é=x"), "EVROUTE_OPT___X")
        expectEqual(EventEnvironment.optionName(""), "EVROUTE_OPT_")
        expectEqual(EventEnvironment.optionValue(.number(1e20)), "1e+20")
        expectEqual(EventEnvironment.optionValue(.number(-0.25)), "-0.25")
        expectEqual(EventEnvironment.optionValue(.map([:])), "{}")
    }

    @Test func theLogPluginShowsTheOptions() throws {
        let rig = try PluginRig(try pluginLayout(PluginSpec(name: "logger", type: .log),
                                                 handlerOptions: ["note": .string("hello there"), "n": .number(3)]))
        rig.tap()
        expect(rig.logText.contains("home/root/button → home/root/button [logger] {n: 3, note: \"hello there\"} device touch"), "\(rig.logText)")
    }
}
