/// How the daemon runs (`evroute [--config FILE] [--replay FILE]… …` without `--dry-run`).
public struct DaemonOptions: Sendable, Equatable {
    /// The config file; nil = `/etc/evroute/evroute.yaml` when it exists, else the built-in default.
    public var configPath: String?
    /// Recordings that stand in for devices (no live device is opened when there are any).
    public var replayPaths: [String] = []
    /// A description for recordings that have none (`--desc`).
    public var descriptionPath: String?
    /// Keep replayed devices "plugged in" after their recording ends (touches still down stay
    /// down until shutdown) instead of removing them.
    public var keepReplayDevices = false
    /// Hold the replay until a control request `{"command":"replay"}` starts it (so clients can
    /// connect to plugin sockets first).
    public var replayPaused = false
    /// Pace the replay by the recordings' own timing (as the device delivered it) instead of
    /// routing it as fast as possible.
    public var replayRealtime = false
    /// Exit 0 once the replays are done and the plugins have drained.
    public var exitAfterReplay = false
    /// The control socket; nil = none.
    public var controlSocketPath: String? = ControlClient.defaultPath
    /// Items routed per loop turn while replaying, so signals, sockets and plugins are served in between.
    public var replayChunk = 256
    /// Log threshold.
    public var logLevel: Log.Level = .info
    /// The executable that compiles the config in a child process
    /// (`EXECUTABLE __compile-config [--config PATH]`, see ``ConfigChild``): the daemon's own
    /// binary, so the daemon process itself never runs the YAML loader (and Foundation).
    public var configCompiler = ConfigChild.selfExecutable

    public init(configPath: String? = nil) {
        self.configPath = configPath
    }
}

extension DaemonOptions {
    /// The private first argument of the lean daemon entry point: `evroute __daemon OPTIONS…`
    /// is what the command line re-executes itself as, once it has checked its arguments.
    public static let daemonArgument = "__daemon"

    /// An argument ``init(arguments:)`` does not understand.
    public struct ArgumentError: Error, Sendable, CustomStringConvertible {
        public var argument: String
        public var description: String { "daemon options: unexpected argument \"\(argument)\"" }
    }

    /// The options as `--key=value` arguments (and bare `--flag`s), read back by
    /// ``init(arguments:)``. A value is everything after the first `=`, so any string travels
    /// as it is.
    public var arguments: [String] {
        var out: [String] = []
        if let configPath { out.append("--config=" + configPath) }
        for path in replayPaths { out.append("--replay=" + path) }
        if let descriptionPath { out.append("--desc=" + descriptionPath) }
        if keepReplayDevices { out.append("--keep-replay-devices") }
        if replayPaused { out.append("--replay-paused") }
        if replayRealtime { out.append("--replay-realtime") }
        if exitAfterReplay { out.append("--exit-after-replay") }
        if let controlSocketPath { out.append("--control-socket=" + controlSocketPath) } else { out.append("--no-control-socket") }
        out.append("--replay-chunk=\(replayChunk)")
        out.append("--log-level=\(Self.levelNames.first { $0.1 == logLevel }!.0)")
        if configCompiler != ConfigChild.selfExecutable { out.append("--config-compiler=" + configCompiler) }
        return out
    }

    static let levelNames: [(String, Log.Level)] = [("error", .error), ("warning", .warning), ("notice", .notice),
                                                    ("info", .info), ("debug", .debug)]

    /// Reads options written by ``arguments``; anything else is an ``ArgumentError``.
    /// Options that are absent keep their defaults.
    public init(arguments: [String]) throws(ArgumentError) {
        self.init()
        for argument in arguments {
            let key: Substring, value: String?
            if let eq = argument.firstIndex(of: "=") {
                key = argument[..<eq]
                value = String(argument[argument.index(after: eq)...])
            } else {
                key = argument[...]
                value = nil
            }
            switch (key, value) {
            case ("--config", let v?): configPath = v
            case ("--replay", let v?): replayPaths.append(v)
            case ("--desc", let v?): descriptionPath = v
            case ("--keep-replay-devices", nil): keepReplayDevices = true
            case ("--replay-paused", nil): replayPaused = true
            case ("--replay-realtime", nil): replayRealtime = true
            case ("--exit-after-replay", nil): exitAfterReplay = true
            case ("--control-socket", let v?): controlSocketPath = v
            case ("--no-control-socket", nil): controlSocketPath = nil
            case ("--replay-chunk", let v?):
                guard let n = Int(v), n > 0 else { throw ArgumentError(argument: argument) }
                replayChunk = n
            case ("--log-level", let v?):
                guard let level = Self.levelNames.first(where: { $0.0 == v })?.1 else { throw ArgumentError(argument: argument) }
                logLevel = level
            case ("--config-compiler", let v?): configCompiler = v
            default: throw ArgumentError(argument: argument)
            }
        }
    }
}
