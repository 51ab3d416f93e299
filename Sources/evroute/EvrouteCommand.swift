#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import EvrouteConfig
import EvrouteCore
import EvrouteDaemon
import EvrouteRuntime

/// `evroute`: route touchscreen and keyboard events through a layout of screen regions.
struct EvrouteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "evroute",
        abstract: "Route touchscreen and keyboard events to handlers through a layout of screen regions.",
        discussion: """
            Without a subcommand, evroute routes events from live devices (or from --replay \
            recordings). --dry-run prints every routing decision instead of running handlers.
            """,
        subcommands: [RouteCommand.self, CheckCommand.self, TreeCommand.self, HitCommand.self, DevicesCommand.self, RecordCommand.self,
                      StatusCommand.self, ReloadCommand.self],
        defaultSubcommand: RouteCommand.self)
}

/// The default command: route live devices or recordings (`evroute [--dry-run] [--replay FILE]…`).
struct RouteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "route",
        abstract: "Route events from live devices, or from --replay recordings (the default command).")

    @OptionGroup var config: ConfigOption

    @Flag(name: .long, help: "Route everything and print each decision; run no handler.")
    var dryRun = false

    @Option(name: .long, help: ArgumentHelp("Replay an evemu recording instead of reading devices (repeatable; merged by time).", valueName: "file"))
    var replay: [String] = []

    @Option(name: .long, help: ArgumentHelp("Device description for recordings that have none (evemu .desc).", valueName: "file"))
    var desc: String?

    @Option(name: .long, help: "Trace format: text (for people) or json (one object per line).")
    var format: TraceFormat = .text

    @Option(name: .long, help: ArgumentHelp("The daemon's control socket (`evroute status`, `evroute reload`); \"none\" for none.", valueName: "path"))
    var controlSocket: String = ControlClient.defaultPath

    @Flag(name: .long, help: "Daemon with --replay: exit 0 once the recordings are routed and the plugins have drained.")
    var exitAfterReplay = false

    @Flag(name: .long, help: "Daemon with --replay: keep replayed devices plugged in after their recording ends (touches still down stay down).")
    var keepReplayDevices = false

    @Flag(name: .long, help: "Daemon with --replay: hold the replay until `{\"command\":\"replay\"}` arrives on the control socket.")
    var replayPaused = false

    @Flag(name: .long, help: "Daemon with --replay: pace the replay by the recording's own timing instead of as fast as possible.")
    var replayRealtime = false

    @Flag(name: .long, help: "Daemon: log debug messages too.")
    var verbose = false

    func run() throws {
        guard dryRun else {
            // The daemon: no subcommand output, logs on stderr (the journal under systemd).
            // Signals are blocked before anything could start a thread (threads inherit the
            // mask), so SIGTERM/SIGHUP are taken through the daemon's signalfd.
            Daemon.blockSignals()
            var options = DaemonOptions(configPath: config.config)
            options.replayPaths = replay
            options.descriptionPath = desc
            options.exitAfterReplay = exitAfterReplay
            options.keepReplayDevices = keepReplayDevices
            options.replayPaused = replayPaused
            options.replayRealtime = replayRealtime
            options.controlSocketPath = controlSocket == "none" ? nil : controlSocket
            options.logLevel = verbose ? .debug : .info
            let status = Daemon(options: options).run()
            if status != 0 { throw ExitCode(status) }
            return
        }
        let (_, layout) = try config.load()
        let runner = DryRun(layout: layout, format: format)
        if replay.isEmpty {
            try runner.runLive()
        } else {
            try runner.runReplays(paths: replay, descriptionPath: desc)
        }
    }
}

extension TraceFormat: ExpressibleByArgument {}

/// `--config FILE`, shared by every command that reads a layout.
struct ConfigOption: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The layout (default \(ConfigLoader.defaultPath); built-in default when that does not exist).", valueName: "file"))
    var config: String?

    /// Loads and compiles the layout, or exits 1 printing every error as `file:line:col: error: …`.
    func load() throws -> (spec: LayoutSpec, layout: Layout) {
        do {
            return try ConfigLoader.loadLayout(path: config)
        } catch {
            printError(error.description)
            throw ExitCode(1)
        }
    }
}

/// An error the CLI reports as one line on stderr, exit status 1.
struct CLIError: Error, CustomStringConvertible {
    var description: String
    init(_ message: String) { description = message }
}
