/// A plugin instance's options, typed and checked when the layout is compiled (so `check`,
/// start and reload refuse the same things). The daemon's plugins take these as they are.
public enum PluginOptions: Sendable, Equatable {
    case log
    case exec(ExecOptions)
    case socket(SocketOptions)
    case process(ProcessOptions)
    /// `action`, `focus`, `present`, `dismiss`: no plugin-level options.
    case routingBuiltIn
}

/// `exec`'s plugin-level options.
public struct ExecOptions: Sendable, Equatable {
    /// The plugin's argv (a handler's own `command` wins); nil when only handlers give one.
    public var command: [String]?
    public var shell: Bool
    public var maxConcurrent: Int
    public var maxQueued: Int
    public var timeout: Timestamp.Duration
    public var killAfter: Timestamp.Duration
    public var outputLimit: Int
}

/// `socket`'s plugin-level options.
public struct SocketOptions: Sendable, Equatable {
    public var path: String
    public var mode: UInt32
    public var answers: Bool
    public var deadline: Timestamp.Duration
    /// `on-timeout: unhandled`.
    public var declineOnTimeout: Bool
    public var maxBuffer: Int
    public var maxClients: Int
}

/// `process`'s plugin-level options.
public struct ProcessOptions: Sendable, Equatable {
    public var command: [String]
    public var deadline: Timestamp.Duration
    public var maxBuffer: Int
    public var restartMinimum: Timestamp.Duration
    public var restartMaximum: Timestamp.Duration
    public var stableAfter: Timestamp.Duration
}

extension PluginKind {
    /// The plugin-level options this type reads (any other key on the plugin is an error).
    public var pluginOptionKeys: [String] {
        switch self {
        case .exec: ["command", "shell", "max-concurrent", "max-queued", "timeout", "kill-after", "output-limit"]
        case .socket: ["path", "mode", "answers", "deadline-ms", "on-timeout", "max-buffer", "max-clients"]
        case .process: ["command", "shell", "deadline-ms", "max-buffer", "restart-min-ms", "restart-max-ms", "stable-after"]
        case .log, .action, .focus, .present, .dismiss: []
        }
    }

    /// The handler-level options this type reads itself.
    public var handlerOptionKeys: [String] {
        switch self {
        case .exec: ["command", "shell"]
        case .action: ["action"]
        case .focus: ["region", "resign"]
        case .present: ["screen"]
        case .log: ["log-keys"]
        case .socket, .process, .dismiss: []
        }
    }

    /// Whether a handler's other options are meant for a peer (a UI on a `socket`, a `process`
    /// helper): free-form, never warned about.
    public var handlerOptionsAreFreeForm: Bool { self == .socket || self == .process }
}

/// Reads typed options out of an option map, with defaults; a bad value is reported (at the
/// value when its place is known) and its default used, so every error of a plugin is found.
struct PluginOptionReader {
    let plugin: String
    let options: [String: ConfigValue]
    let locations: [String: SourceLocation]
    /// The plugin's (or handler's) own place, for errors about a missing key.
    let location: SourceLocation?
    var errors: [LayoutError] = []

    init(plugin: String, options: [String: ConfigValue], locations: [String: SourceLocation], location: SourceLocation?) {
        self.plugin = plugin
        self.options = options
        self.locations = locations
        self.location = location
    }

    /// Reports `message` (worded as the daemon always has: `plugin NAME: …`) at `key`'s value.
    mutating func fail(_ key: String?, _ message: String) {
        errors.append(LayoutError("plugin \(plugin): \(message)", at: key.flatMap { locations[$0] } ?? location))
    }

    func value(_ key: String) -> ConfigValue? {
        guard let v = options[key], v != .null else { return nil }
        return v
    }

    mutating func string(_ key: String) -> String? {
        guard let v = value(key) else { return nil }
        guard let s = v.string else { fail(key, "`\(key)` must be a string"); return nil }
        return s
    }

    mutating func bool(_ key: String, default d: Bool) -> Bool {
        guard let v = value(key) else { return d }
        guard let b = v.bool else { fail(key, "`\(key)` must be true or false"); return d }
        return b
    }

    /// A whole number in `range`.
    mutating func integer(_ key: String, default d: Int, in range: ClosedRange<Int>) -> Int {
        guard let v = value(key) else { return d }
        guard let n = v.number, n == n.rounded(), n >= Double(range.lowerBound), n <= Double(range.upperBound) else {
            fail(key, "`\(key)` must be a whole number from \(range.lowerBound) to \(range.upperBound)")
            return d
        }
        return Int(n)
    }

    /// A duration given as a whole number of milliseconds (`40`, not `40ms`).
    mutating func milliseconds(_ key: String, default d: Int64) -> Timestamp.Duration {
        if let s = value(key)?.string {
            fail(key, "`\(key)` must be a whole number of milliseconds from 1 to 3600000, found '\(s)'")
            return .milliseconds(d)
        }
        return .milliseconds(Int64(integer(key, default: Int(d), in: 1...3_600_000)))
    }

    /// A duration given in seconds (fractions allowed).
    mutating func seconds(_ key: String, default d: Double) -> Timestamp.Duration {
        guard let v = value(key) else { return .seconds(d) }
        guard let n = v.number, n > 0, n <= 86_400 else { fail(key, "`\(key)` must be a number of seconds, > 0 and ≤ 86400"); return .seconds(d) }
        return .seconds(n)
    }

    /// An argv list, or with `shell` a string (run as `/bin/sh -c STRING`; a list is joined).
    mutating func command(_ key: String = "command", shell: Bool) -> [String]? {
        guard let v = value(key) else { return nil }
        if shell {
            if let s = v.string { return ["/bin/sh", "-c", s] }
            if let argv = v.stringList, !argv.isEmpty { return ["/bin/sh", "-c", argv.joined(separator: " ")] }
            fail(key, "`\(key)` must be a string (run with /bin/sh -c) when `shell: true`")
            return nil
        }
        guard let argv = v.stringList else {
            if v.string != nil { fail(key, "`\(key)` must be a list (argv); to run a string through /bin/sh, add `shell: true`") }
            else { fail(key, "`\(key)` must be a list of strings (argv)") }
            return nil
        }
        guard let first = argv.first, !first.isEmpty else { fail(key, "`\(key)` must not be empty"); return nil }
        return argv
    }

    /// A file mode: octal digits as a string (`"0660"`) or a number whose digits read as octal.
    mutating func fileMode(_ key: String, default d: UInt32) -> UInt32 {
        guard let v = value(key) else { return d }
        var digits = ""
        if let s = v.string { digits = s } else if let n = v.number, n >= 0, n == n.rounded(), n < 10_000 { digits = String(Int(n)) }
        if digits.hasPrefix("0o") { digits.removeFirst(2) }
        guard !digits.isEmpty, let mode = UInt32(digits, radix: 8), mode <= 0o7777 else {
            fail(key, "`\(key)` must be an octal mode such as \"0660\"")
            return d
        }
        return mode
    }

    // MARK: Per kind

    mutating func exec() -> ExecOptions {
        let shell = bool("shell", default: false)
        return ExecOptions(command: command(shell: shell), shell: shell,
                           maxConcurrent: integer("max-concurrent", default: 4, in: 1...256),
                           maxQueued: integer("max-queued", default: 16, in: 0...4096),
                           timeout: seconds("timeout", default: 10), killAfter: seconds("kill-after", default: 1),
                           outputLimit: integer("output-limit", default: 16 * 1024, in: 0...(64 << 20)))
    }

    mutating func socket() -> SocketOptions {
        var path = ""
        if value("path") == nil { fail(nil, "`path` (the socket's file name) is required") }
        else if let s = string("path") {
            if s.isEmpty { fail("path", "`path` (the socket's file name) is required") }
            else if s.utf8.count >= 108 { fail("path", "`path` is longer than a Unix socket path may be (107 bytes)") }
            else { path = s }
        }
        var decline = false
        switch string("on-timeout") ?? "handled" {
        case "handled": break
        case "unhandled": decline = true
        default: fail("on-timeout", "`on-timeout` must be `handled` or `unhandled`")
        }
        return SocketOptions(path: path, mode: fileMode("mode", default: 0o660), answers: bool("answers", default: false),
                             deadline: milliseconds("deadline-ms", default: 50), declineOnTimeout: decline,
                             maxBuffer: integer("max-buffer", default: 256 * 1024, in: 1024...(64 << 20)),
                             maxClients: integer("max-clients", default: 64, in: 1...4096))
    }

    mutating func process() -> ProcessOptions {
        let shell = bool("shell", default: false)
        let argv = command(shell: shell)
        if argv == nil, value("command") == nil { fail(nil, "`command` (the helper's argv) is required") }
        return ProcessOptions(command: argv ?? [], deadline: milliseconds("deadline-ms", default: 100),
                              maxBuffer: integer("max-buffer", default: 256 * 1024, in: 1024...(64 << 20)),
                              restartMinimum: milliseconds("restart-min-ms", default: 100),
                              restartMaximum: milliseconds("restart-max-ms", default: 30_000),
                              stableAfter: seconds("stable-after", default: 60))
    }
}
