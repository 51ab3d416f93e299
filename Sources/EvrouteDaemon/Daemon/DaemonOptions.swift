/// How the daemon runs (`evroute [--config FILE] [--replay FILE]… …` without `--dry-run`).
import EvrouteRuntime
import EvrouteSystem
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
    /// Name typing keys (letters, digits, symbols, keypad) in the log (`--show-keycodes`);
    /// by default they are `KEY_***` unless a device rule or handler says `log-keys: true`.
    public var showKeycodes = false

    public init(configPath: String? = nil) {
        self.configPath = configPath
    }
}
