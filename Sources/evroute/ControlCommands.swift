#if canImport(Glibc)
import Glibc
#endif
import EvrouteCommandLine
import EvrouteDaemon
import EvrouteRuntime
import EvrouteJSON
import EvrouteRuntime
import EvrouteSystem

extension EvrouteCLI {
    /// The members of the layout commands' requests.
    private typealias Key = ControlProtocol.Request

    /// `evroute ctl …`: drive the running daemon's (or a dry-run's) responder chain at run time
    /// (docs/ui-control.md). Each subcommand sends one JSON request on the control socket.
    static let ctl = Command(
        "ctl", abstract: "Change the running layout: present and dismiss screens, focus, hide, disable, move or replace regions, send actions.",
        discussion: """
            REGION is a path screen/root/.../name (as `evroute tree` prints it). Every change is checked like \
            the config and refused with a clear error when it cannot apply; it changes nothing then. A reload \
            starts again from the config file.
            """,
        options: [controlSocketOption],
        subcommands: [
            ctlCommand(.present, abstract: "Present SCREEN over its display's top screen.",
                       arguments: [CommandArgument("screen", help: "The screen to present.")]) { p in
                [(Key.screen, .string(p.argument("screen")))]
            },
            ctlCommand(.dismiss, abstract: "Dismiss the top presented screen of a display.",
                       options: [.value("display", valueName: "display", help: "The display (default: the first).")]) { p in
                p.value("display").map { [(Key.display, .string($0))] } ?? []
            },
            ctlCommand(.focus, abstract: "Make REGION the first responder of its screen, or resign the first responder (--resign).",
                       options: [.flag("resign", help: "Resign the first responder of the display's active screen."),
                                 .value("display", valueName: "display", help: "With --resign: the display (default: the first).")],
                       arguments: [CommandArgument("region", help: "The region to focus.", optional: true)]) { p in
                if p.flag("resign") {
                    return [(Key.resign, .bool(true))] + (p.value("display").map { [(Key.display, .string($0))] } ?? [])
                }
                guard let region = p.argument("region") else { throw p.usageError("give a REGION to focus, or --resign") }
                return [(Key.region, .string(region))]
            },
            regionCommand(.hide, abstract: "Hide REGION (it and its children are not hit)."),
            regionCommand(.show, abstract: "Show a hidden REGION again."),
            regionCommand(.disable, abstract: "Make REGION non-interactive (interactive: false)."),
            regionCommand(.enable, abstract: "Make REGION interactive again."),
            ctlCommand(.frame, abstract: "Move or resize REGION (parent coordinates).",
                       arguments: ["region", "x", "y", "width", "height"].map {
                           CommandArgument($0, help: $0 == "region" ? "The region." : "The new \($0).")
                       }) { p in
                var numbers: [JSONValue] = []
                for name in ["x", "y", "width", "height"] { numbers.append(.number(try p.number(name) ?? 0)) }
                return [(Key.region, .string(p.argument("region"))), (Key.frame, .array(numbers))]
            },
            ctlCommand(.regions, abstract: "Replace REGION's children with the regions in FILE (YAML or JSON, the config's keys).",
                       arguments: [CommandArgument("region", help: "The region whose children are replaced."),
                                   CommandArgument("file", help: "A list of regions, or a mapping with `regions:`.", completion: .file)]) { p in
                let path = p.argument("file") ?? ""
                let bytes: [UInt8]
                do { bytes = try SystemCall.readFile(path, limit: 4 << 20 + 1) } catch { throw failure("cannot read \(error)") }
                guard bytes.count <= 4 << 20 else { throw failure("\(path) is larger than 4 MiB") }
                let text = String(decoding: bytes, as: UTF8.self)
                return [(Key.region, .string(p.argument("region"))), (Key.file, .string(path)), (Key.yaml, .string(text))]
            },
            ctlCommand(.action, abstract: "Send action NAME from the first responder (or --from REGION) up the chain.",
                       options: [.value("from", valueName: "region", help: "Start the walk at this region.")],
                       arguments: [CommandArgument("name", help: "The action's name.")]) { p in
                [(Key.name, .string(p.argument("name")))] + (p.value("from").map { [(Key.from, .string($0))] } ?? [])
            },
            Command(ControlProtocol.Command.state.rawValue, abstract: "Show the screen stacks, first responders and changed regions.",
                    options: [controlSocketOption,
                              .value("format", valueName: "format", help: "text or json (the answer, one line).",
                                     choices: ["text", "json"], default: "text")],
                    run: { p in
                        let answer = try request(.state, [], p)
                        writeOut(p.value("format") == "json" ? answer.serialized + "\n" : StateText.render(answer))
                    }),
            ctlCommand(.replay, abstract: "Start a replay held by --replay-paused.") { _ in [] },
        ])

    /// A `ctl` subcommand that sends `{"command": NAME, …fields}` and prints nothing on success.
    static func ctlCommand(_ command: ControlProtocol.Command, abstract: String, options: [CommandOption] = [], arguments: [CommandArgument] = [],
                           fields: @escaping @Sendable (ParsedCommandLine) throws -> [(String, JSONValue)]) -> Command {
        Command(command.rawValue, abstract: abstract, options: [controlSocketOption] + options, arguments: arguments, run: { p in
            _ = try request(command, try fields(p), p)
        })
    }

    /// `hide REGION` and its kin.
    static func regionCommand(_ command: ControlProtocol.Command, abstract: String) -> Command {
        ctlCommand(command, abstract: abstract, arguments: [CommandArgument("region", help: "The region (screen/root/…/name).")]) { p in
            [(Key.region, .string(p.argument("region")))]
        }
    }

    /// Sends one `ctl` request (see ``request(_:_:_:what:timeoutSeconds:)``).
    static func request(_ command: ControlProtocol.Command, _ fields: [(String, JSONValue)], _ p: ParsedCommandLine) throws -> JSONValue {
        try request(command, fields, p, what: "evroute ctl \(command.rawValue)")
    }

    /// Every control command of the command line (`status`, `reload`, `ctl …`) asks through
    /// this: sends `{"command": command, …fields}` to the control socket the command line names
    /// (or the default one) and returns the answer when it is `"ok":true`. Not reaching the
    /// daemon, and a refusal, end with status 1 and the reason on standard error (`WHAT: error`,
    /// after the answer's `"errors"`, one per line); nothing goes to standard output.
    static func request(_ command: ControlProtocol.Command, _ fields: [(String, JSONValue)], _ p: ParsedCommandLine, what: String,
                        timeoutSeconds: Int = 10) throws -> JSONValue {
        let answer: JSONValue
        do {
            answer = try ControlClient.request(ControlProtocol.request(command, fields),
                                               to: p.value("control-socket") ?? ControlClient.defaultPath, timeoutSeconds: timeoutSeconds)
        } catch {
            throw CommandLineExit.failure("\(what): \(error)")
        }
        guard ControlProtocol.succeeded(answer) else {
            for line in answer[ControlProtocol.errors]?.arrayValue ?? [] { printError(line.stringValue ?? line.serialized) }
            throw CommandLineExit.failure("\(what): \(answer[ControlProtocol.error]?.stringValue ?? answer.serialized)")
        }
        return answer
    }
}

/// `ctl state` as text for people.
enum StateText {
    static func render(_ s: JSONValue) -> String {
        typealias Key = ControlProtocol.State
        var out = ""
        for d in s[Key.displays]?.arrayValue ?? [] {
            let stack = (d[Key.stack]?.arrayValue ?? []).compactMap(\.stringValue)
            out += "display \(d[Key.name]?.stringValue ?? "?"): \(stack.isEmpty ? "-" : stack.joined(separator: " < "))"
            out += ", first responder \(d[Key.firstResponder]?.stringValue ?? "none")\n"
        }
        let changed = s[Key.changedRegions]?.arrayValue ?? []
        out += changed.isEmpty ? "no region changed since the config was loaded\n" : "changed regions:\n"
        for r in changed {
            var parts: [String] = []
            if r[Key.hidden]?.boolValue == true { parts.append("hidden") }
            if r[Key.interactive]?.boolValue == false { parts.append("disabled") }
            if let f = r[Key.frame]?.arrayValue { parts.append("frame [" + f.map { $0.serialized }.joined(separator: ", ") + "]") }
            if r[Key.children]?.boolValue == true { parts.append("children replaced") }
            out += "  \(r[Key.region]?.stringValue ?? "?"): \(parts.joined(separator: ", "))\n"
        }
        return out
    }
}
