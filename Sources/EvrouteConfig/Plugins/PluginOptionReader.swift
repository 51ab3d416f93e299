import EvrouteCore

/// The vocabulary a plugin type's option checks are written in (``HostedPluginType``): typed
/// values read out of an option map, each bad one reported as a ``Diagnostic`` at its value.
/// (The schemas themselves, which keys and what they mean, are the plugin types' own.)
///
/// Reads typed options out of an option map, with defaults; a bad value is reported (at the
/// value when its place is known) and its default used, so every error of a plugin is found.
public struct PluginOptionReader {
    public let plugin: String
    public let options: [String: ConfigValue]
    public let locations: [String: SourceLocation]
    /// The plugin's (or handler's) own place, for errors about a missing key.
    public let location: SourceLocation?
    public var errors: [Diagnostic] = []

    public init(plugin: String, options: [String: ConfigValue], locations: [String: SourceLocation], location: SourceLocation?) {
        self.plugin = plugin
        self.options = options
        self.locations = locations
        self.location = location
    }

    /// Reports `message` (worded as the daemon always has: `plugin NAME: …`) at `key`'s value.
    public mutating func fail(_ key: String?, _ message: String) {
        errors.append(Diagnostic("plugin \(plugin): \(message)", at: key.flatMap { locations[$0] } ?? location))
    }

    public func value(_ key: String) -> ConfigValue? {
        guard let v = options[key], v != .null else { return nil }
        return v
    }

    public mutating func string(_ key: String) -> String? {
        guard let v = value(key) else { return nil }
        guard let s = v.string else { fail(key, "`\(key)` must be a string"); return nil }
        return s
    }

    public mutating func bool(_ key: String, default d: Bool) -> Bool {
        guard let v = value(key) else { return d }
        guard let b = v.bool else { fail(key, "`\(key)` must be true or false"); return d }
        return b
    }

    /// A whole number in `range`.
    public mutating func integer(_ key: String, default d: Int, in range: ClosedRange<Int>) -> Int {
        guard let v = value(key) else { return d }
        guard let n = v.number, n == n.rounded(), n >= Double(range.lowerBound), n <= Double(range.upperBound) else {
            fail(key, "`\(key)` must be a whole number from \(range.lowerBound) to \(range.upperBound)")
            return d
        }
        return Int(n)
    }

    /// A duration given as a whole number of milliseconds (`40`, not `40ms`).
    public mutating func milliseconds(_ key: String, default d: Int64) -> Timestamp.Duration {
        if let s = value(key)?.string {
            fail(key, "`\(key)` must be a whole number of milliseconds from 1 to 3600000, found '\(s)'")
            return .milliseconds(d)
        }
        return .milliseconds(Int64(integer(key, default: Int(d), in: 1...3_600_000)))
    }

    /// A duration given in seconds (fractions allowed).
    public mutating func seconds(_ key: String, default d: Double) -> Timestamp.Duration {
        guard let v = value(key) else { return .seconds(d) }
        guard let n = v.number, n > 0, n <= 86_400 else { fail(key, "`\(key)` must be a number of seconds, > 0 and ≤ 86400"); return .seconds(d) }
        return .seconds(n)
    }

    /// An argv list, or with `shell` a string (run as `/bin/sh -c STRING`; a list is joined).
    public mutating func command(_ key: String = "command", shell: Bool) -> [String]? {
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
    public mutating func fileMode(_ key: String, default d: UInt32) -> UInt32 {
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
}
