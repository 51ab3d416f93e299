/// The kinds of messages the daemon logs, each with its stable journal `MESSAGE_ID` (128-bit,
/// generated once; never change one): the one table of them. Under journald the log sends
/// entries through the native protocol with `MESSAGE_ID=` and the ``LogField``s a caller gives
/// (`journalctl -u evroute MESSAGE_ID=…`); elsewhere the kind changes nothing in the line. The
/// catalog (when each is logged, at which priority, with which fields, what to do) is in
/// docs/daemon.md, "The journal", and systemd/evroute.catalog.
public enum LogKind: Sendable, CaseIterable {
    /// The daemon is up (`ready: …`).
    case ready
    /// Startup failed; the daemon exits.
    case startFailed
    /// SIGTERM or SIGINT: the daemon stops.
    case stopping
    /// A reload was asked for (SIGHUP, `evroute reload`).
    case reloadRequested
    /// A reload took effect (`reloaded: …`).
    case reloaded
    /// A reload failed; the previous configuration keeps running.
    case reloadFailed
    /// A warning about the configuration (at startup or reload).
    case configWarning
    /// A device matched a rule and was opened (also when it comes back). `EVROUTE_DEVICE`.
    case deviceAdded
    /// An opened device went (unplugged, or lost). `EVROUTE_DEVICE`.
    case deviceRemoved
    /// A device no rule takes.
    case deviceIgnored
    /// A device sent what evroute cannot use as it is (slots beyond the limit, …). `EVROUTE_DEVICE`.
    case deviceWarning
    /// Reading the input devices failed (enumeration, open, read).
    case inputError
    /// The kernel dropped a device's events (`SYN_DROPPED`: its buffer overflowed); evroute
    /// resynced. At most one per device per 10 s of event time. `EVROUTE_DEVICE`.
    case eventsDropped
    /// A contact that did not move for its `stuck-after-s` was cancelled. `EVROUTE_DEVICE`.
    case contactStuck
    /// A contact a device filter dropped (debug). `EVROUTE_DEVICE`.
    case contactFiltered
    /// A region changed at run time. `EVROUTE_REGION`.
    case regionChanged
    /// The first responder of a screen changed (debug). `EVROUTE_SCREEN`, `EVROUTE_REGION`.
    case focusChanged
    /// A screen was presented or dismissed (debug). `EVROUTE_SCREEN`.
    case screenChanged
    /// A plugin started (a helper, a listening socket, a virtual device). `EVROUTE_PLUGIN`.
    case pluginStarted
    /// A plugin failed (cannot start, its socket cannot listen). `EVROUTE_PLUGIN`.
    case pluginFailed
    /// A plugin's helper exited or hung and is restarted. `EVROUTE_PLUGIN`.
    case pluginRestarting
    /// A plugin was stopped (a reload removed or replaced it). `EVROUTE_PLUGIN`.
    case pluginStopped
    /// The metrics textfile cannot be written (retried every interval).
    case metricsWriteFailed
    /// The metrics textfile is written again.
    case metricsWriteRecovered
    /// The control socket refused or dropped a client.
    case controlClientRefused
    /// Log lines were dropped while the log's reader did not read.
    case logLinesDropped
    /// The journal's socket cannot be used: the log goes to standard error from then on.
    case journalUnavailable

    /// The `MESSAGE_ID`: 32 lowercase hex digits.
    public var id: StaticString {
        switch self {
        case .ready: "c4e50ad70f5745978032396f71ee0e41"
        case .startFailed: "c8f6e54ebf4f400cab67779d0b9c6031"
        case .stopping: "2a5ccd313c0047b7946b0a41b2911b1f"
        case .reloadRequested: "588c94d679fa431fbe21e97d2469152f"
        case .reloaded: "69ec1733c7af49e49964c09ec5146bd7"
        case .reloadFailed: "15121b05ce7f4435919d302174e6ed62"
        case .configWarning: "d73855ee0ed742cba08f5be8315f6531"
        case .deviceAdded: "8e41ffdb62a14681845de28d6f1667ce"
        case .deviceRemoved: "193e7f5d3a7342dcbc847c7471d2db31"
        case .deviceIgnored: "787ecff698e14af4902330e10b2cfda0"
        case .deviceWarning: "1bbdda080fcc45078c5f742cc3681c2f"
        case .inputError: "3d8b51b6b2c64af4b901fd8ad9967c91"
        case .eventsDropped: "48c129f158c5435c8eb433acb698fc0b"
        case .contactStuck: "adcda7eed83d49a6a1a0d0289768818a"
        case .contactFiltered: "b445d77cc6b04740a4a847a5c0383a97"
        case .regionChanged: "d2092bc3812947c88a4cfe1a94dd752e"
        case .focusChanged: "d76a0b32911b48e9a2f72845d2cf2c7b"
        case .screenChanged: "2f23f9951c6a46c8a34b40c838b8c434"
        case .pluginStarted: "02f650ab5afe40c3a98c393c94160c82"
        case .pluginFailed: "17b5ec15247145c1b766f0e592aed007"
        case .pluginRestarting: "196bbf0c530e48f38414634e70a626f1"
        case .pluginStopped: "338728b7cb484a5b99e01b6cc940dc8f"
        case .metricsWriteFailed: "defb85a1b6574c1aa86f1db049cf0e0f"
        case .metricsWriteRecovered: "64dae53852cc46b4aa98e02fccb8a0af"
        case .controlClientRefused: "587952c655664be48e32075c16cbbbbc"
        case .logLinesDropped: "5cd3c030239e46448779241851a70280"
        case .journalUnavailable: "47c0a7b2254c4dea8d7af19d5fc0b3c5"
        }
    }
}

/// The journal fields a message may carry besides `MESSAGE` (``LogKind``): which device rule,
/// region, plugin or screen it is about (`journalctl -u evroute EVROUTE_DEVICE=touch`).
public enum LogField: Sendable {
    /// A device rule's name (a `devices:` entry).
    case device
    /// A region's path.
    case region
    /// A plugin's name (a `plugins:` entry).
    case plugin
    /// A screen's name.
    case screen

    /// The journal field name.
    public var key: StaticString {
        switch self {
        case .device: "EVROUTE_DEVICE"
        case .region: "EVROUTE_REGION"
        case .plugin: "EVROUTE_PLUGIN"
        case .screen: "EVROUTE_SCREEN"
        }
    }
}
