#if canImport(Glibc)
import Glibc
#endif
import EvrouteCommandLine
import EvrouteConfig
import EvrouteCore
import EvrouteInput
import EvrouteDaemon
import EvrouteJSON
import EvrouteRuntime
import EvrouteSystem

/// `evroute`'s command table: every command, option and argument, spelled once. Parsing, help,
/// usage errors (exit 2), the man page and the shell completions all come from it.
enum EvrouteCLI {
    static let root: Command = Command(
        "evroute",
        abstract: "Route touchscreen and keyboard events to handlers through a layout of screen regions.",
        discussion: """
            Without a subcommand, evroute routes events from live devices (or from --replay
            recordings). --dry-run prints every routing decision instead of running handlers.
            Exit status: 0 ok, 1 errors found (a bad config, a failed request), 2 usage errors.
            """,
        subcommands: [route, check, tree, hit, devices, monitor, record, calibrate, status, reload, ctl, generate],
        defaultSubcommand: "route")

    // MARK: Shared options

    static let configOption = CommandOption.value(
        "config", valueName: "file",
        help: "The layout (default \(ConfigLoader.defaultPath); the built-in default when that does not exist).",
        completion: .file)
    static let controlSocketOption = CommandOption.value(
        "control-socket", valueName: "path", help: "The daemon's control socket.", default: ControlClient.defaultPath,
        completion: .file)

    /// Loads and compiles the layout, or ends with status 1 printing every error as `file:line:col: error: …`.
    static func loadLayout(_ path: String?) throws -> (spec: LayoutSpec, layout: Layout) {
        do {
            return try ConfigLoader.loadLayout(path: path, pluginTypes: PluginTypes.all)
        } catch {
            throw CommandLineExit.failure(error.description)
        }
    }

    // MARK: route (the default): the daemon, or --dry-run

    static let route = Command(
        "route", abstract: "Route events from live devices, or from --replay recordings (the default command).",
        options: [
            configOption,
            .flag("dry-run", help: "Route everything and print each decision; run no handler."),
            .repeated("replay", valueName: "file", help: "Replay an evemu recording instead of reading devices (repeatable; merged by time).",
                      completion: .file),
            .value("desc", valueName: "file", help: "Device description for recordings that have none (evemu .desc).", completion: .file),
            .value("format", valueName: "format", help: "Trace format: text (for people) or json (one object per line).",
                   choices: ["text", "json"], default: "text"),
            .value("control-socket", valueName: "path",
                   help: "The control socket (`evroute status`, `evroute ctl`); \"none\" for none. A dry-run serves one only when this is given.",
                   default: ControlClient.defaultPath, completion: .file),
            .value("heatmap", valueName: "file",
                   help: "With --dry-run --replay: also draw the layout (as `tree --format svg`) with each touch's down point and path over it, into this SVG file.",
                   completion: .file),
            .flag("exit-after-replay", help: "With --replay: exit 0 once the recordings are routed (the daemon: and the plugins have drained; a dry-run with --control-socket: instead of serving on)."),
            .flag("keep-replay-devices", help: "Daemon with --replay: keep replayed devices plugged in after their recording ends (touches still down stay down)."),
            .flag("replay-paused", help: "With --replay and a control socket: hold the replay until `evroute ctl replay` ({\"command\":\"replay\"})."),
            .flag("replay-realtime", help: "Daemon with --replay: pace the replay by the recording's own timing instead of as fast as possible."),
            .flag("verbose", help: "Daemon: log debug messages too. Dry-run text trace: also each gesture's `failed`."),
            .flag("show-keycodes", help: "Daemon: name typing keys (letters, digits, symbols, keypad) in the log; by default they are KEY_*** unless a device rule or handler says log-keys: true."),
        ],
        run: { p in
            if p.value("heatmap") != nil && (!p.flag("dry-run") || p.values("replay").isEmpty) {
                throw p.usageError("--heatmap needs --dry-run and --replay (the touches to draw)")
            }
            guard p.flag("dry-run") else {
                // The daemon: no subcommand output, logs on stderr (the journal under systemd).
                // Signals are blocked before anything could start a thread (threads inherit the
                // mask), so SIGTERM/SIGHUP are taken through the daemon's signalfd.
                Daemon.blockSignals()
                var options = DaemonOptions(configPath: p.value("config"))
                options.replayPaths = p.values("replay")
                options.descriptionPath = p.value("desc")
                options.exitAfterReplay = p.flag("exit-after-replay")
                options.keepReplayDevices = p.flag("keep-replay-devices")
                options.replayPaused = p.flag("replay-paused")
                options.replayRealtime = p.flag("replay-realtime")
                let socket = p.value("control-socket") ?? ControlClient.defaultPath
                options.controlSocketPath = socket == "none" ? nil : socket
                options.logLevel = p.flag("verbose") ? .debug : .info
                options.showKeycodes = p.flag("show-keycodes")
                let status = Daemon.run(options: options)
                if status != 0 { throw CommandLineExit(status) }
                return
            }
            let heatmap = p.value("heatmap")
            let (spec, layout) = try loadLayout(p.value("config"))
            // --heatmap: the touches are collected in front of the summary and the trace.
            let trails = heatmap.map { _ in TouchTrails() }
            let runner = DryRun(layout: layout, format: p.value("format") == "json" ? .json : .text,
                                observers: trails.map { [$0] } ?? [], verbose: p.flag("verbose"))
            // A dry-run serves a control socket only when one is named (docs/ui-control.md: a UI developed
            // against a replay or live devices); "none" means none, as for the daemon.
            let control = p.value("control-socket").flatMap { $0 == "none" ? nil : $0 }.map {
                DryRun.ControlOptions(socketPath: $0, replayPaused: p.flag("replay-paused"), exitAfterReplay: p.flag("exit-after-replay"))
            }
            do {
                if p.values("replay").isEmpty {
                    try runner.runLive(control: control)
                } else {
                    try runner.runReplays(paths: p.values("replay"), descriptionPath: p.value("desc"), control: control)
                }
            } catch let exit as CommandLineExit {
                throw exit
            } catch {
                throw failure("\(error)")
            }
            if let heatmap, let trails {
                let svg = TreeSVG(layout: layout, source: spec.source ?? ConfigLoader.builtInName,
                                  trails: trails.trails, trailSources: p.values("replay")).render()
                do {
                    try SystemCall.writeFile(heatmap, svg)
                } catch {
                    throw failure("cannot write the heatmap: \(error)")
                }
            }
        })

    // MARK: check, tree, hit

    static let check = Command(
        "check", abstract: "Validate a layout as the daemon would: print every error and warning as file:line:col; exit 1 when there is an error (0 with warnings only).",
        options: [
            configOption,
            .value("format", valueName: "format",
                   help: "text, or json: {\"file\", \"ok\", \"errors\": [{\"file\", \"line\", \"column\", \"message\"}], \"warnings\": […]}.",
                   choices: ["text", "json"], default: "text"),
        ],
        arguments: [CommandArgument("file", help: "The layout to check (the same as --config); - reads it from standard input.", optional: true, completion: .file)],
        run: { p in
            // The control socket the daemon serves by default (the unit's): the metrics text file must not name it.
            let path = p.argument("file") ?? p.value("config")
            var check: ConfigCheck
            if path == "-" {
                check = ConfigLoader.checkStandardInput(pluginTypes: PluginTypes.all, controlSocket: ControlClient.defaultPath)
            } else {
                check = ConfigLoader.check(path: path, pluginTypes: PluginTypes.all, controlSocket: ControlClient.defaultPath)
            }
            if let layout = check.result?.layout, let warning = DescriptorBudget.warning(for: layout, file: check.file) {
                check.warnings.append(warning)
            }
            if p.value("format") == "json" {
                writeOut(checkJSON(check).serialized + "\n")
                if !check.ok { throw CommandLineExit.failure() }
                return
            }
            // Errors and warnings in file order, one per line, like a compiler's (at most
            // Diagnostic.printedAtMost, then `… and N more`).
            let diagnostics = (check.errors + check.warnings).enumerated()
                .sorted { ($0.element.line, $0.element.column ?? 0, $0.offset) < ($1.element.line, $1.element.column ?? 0, $1.offset) }
                .map(\.element)
            let lines = Diagnostic.lines(diagnostics)
            if !lines.isEmpty { printError(lines.joined(separator: "\n") + "\n") }
            guard let (spec, layout) = check.result else { throw CommandLineExit.failure() }
            let regions = layout.regions.count, handlers = layout.handlers.count
            writeOut("\(spec.source ?? check.file): ok — \(layout.displays.count) display(s), \(layout.screens.count) screen(s), \(regions) region(s), \(handlers) handler(s), \(layout.deviceRules.count) device rule(s)\n")
        })

    /// `check --format json`: one document with every error and warning.
    static func checkJSON(_ check: ConfigCheck) -> JSONValue {
        func item(_ file: String, _ line: Int, _ column: Int, _ message: String) -> JSONValue {
            .object([("file", .string(file)), ("line", .number(Double(line))), ("column", .number(Double(column))), ("message", .string(message))])
        }
        return .object([
            ("file", .string(check.file)),
            ("ok", .bool(check.ok)),
            ("errors", .array(check.errors.map { item($0.file ?? check.file, $0.line, $0.column ?? 0, $0.message) })),
            ("warnings", .array(check.warnings.map { item($0.file ?? check.file, $0.line, $0.column ?? 0, $0.message) })),
        ])
    }

    static let tree = Command(
        "tree", abstract: "Print the region tree: frames, flags, handlers and each region's responder chain; or draw it (svg), or dump it (json).",
        discussion: """
            text: the tree, indented, with each region's responder chain. svg: a picture to scale,
            one panel per screen (presented screens beside their presenter; hidden regions dashed,
            non-interactive ones hatched, exclusive ones with a red border, focusable ones marked ◆;
            labels where the regions over them leave room, regions with none named under the
            panel); open it in a browser, or `rsvg-convert -o layout.png`. json: every display,
            screen and region with frames, flags, shape, handlers, responder chain and children.
            """,
        options: [
            configOption,
            .value("format", valueName: "format", help: "text (for people), svg (a picture) or json (for tools).",
                   choices: ["text", "svg", "json"], default: "text"),
        ],
        run: { p in
            let (spec, layout) = try loadLayout(p.value("config"))
            switch p.value("format") {
            case "svg": writeOut(TreeSVG(layout: layout, source: spec.source ?? ConfigLoader.builtInName).render())
            case "json": writeOut(TreeJSON(layout: layout).render().serialized + "\n")
            default: writeOut(TreePrinter(layout: layout).render())
            }
        })

    static let hit = Command(
        "hit", abstract: "Hit-test a point (display coordinates): the region a touch there binds to and its responder chain.",
        options: [
            configOption,
            .value("screen", valueName: "screen", help: "The screen to test (default: the display's active screen at start)."),
            .value("display", valueName: "display", help: "The display (default: the first)."),
            .value("format", valueName: "format", help: "text or json ({\"region\": PATH|null, \"chain\": [...]}).",
                   choices: ["text", "json"], default: "text"),
        ],
        arguments: [CommandArgument("x", help: "X in display coordinates."), CommandArgument("y", help: "Y in display coordinates.")],
        run: { p in
            guard let x = try p.number("x"), let y = try p.number("y") else { throw p.usageError("missing coordinates") }
            let (_, layout) = try loadLayout(p.value("config"))
            let result: HitQuery.Result
            do {
                result = try HitQuery(layout: layout, screen: p.value("screen"), display: p.value("display")).run(Point(x: x, y: y))
            } catch {
                throw failure("\(error)")
            }
            writeOut(p.value("format") == "json" ? result.json + "\n" : result.text(layout: layout))
        })
}
