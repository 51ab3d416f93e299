import EvrouteCore
import EvrouteSystem

/// A plugin option (or an `exec` handler option) that has the wrong type or value.
public struct PluginConfigError: Error, CustomStringConvertible, Sendable {
    /// The plugin instance.
    public var plugin: String
    /// Where the offending plugin or handler was declared, if known.
    public var location: SourceLocation?
    public var message: String

    public var description: String {
        (location.map { "\($0): " } ?? "") + "plugin \(plugin): \(message)"
    }
}

/// Reads typed options out of a plugin's (or handler's) option map, with defaults.
struct PluginOptionReader {
    let plugin: String
    let options: [String: ConfigValue]
    let location: SourceLocation?

    func fail(_ message: String) -> PluginConfigError {
        PluginConfigError(plugin: plugin, location: location, message: message)
    }

    func string(_ key: String) throws(PluginConfigError) -> String? {
        guard let v = options[key], v != .null else { return nil }
        guard let s = v.string else { throw fail("`\(key)` must be a string") }
        return s
    }

    func bool(_ key: String, default value: Bool) throws(PluginConfigError) -> Bool {
        guard let v = options[key], v != .null else { return value }
        guard let b = v.bool else { throw fail("`\(key)` must be true or false") }
        return b
    }

    /// A whole number in `range`.
    func integer(_ key: String, default value: Int, in range: ClosedRange<Int>) throws(PluginConfigError) -> Int {
        guard let v = options[key], v != .null else { return value }
        guard let n = v.number, n == n.rounded(), n >= Double(range.lowerBound), n <= Double(range.upperBound) else {
            throw fail("`\(key)` must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return Int(n)
    }

    /// A duration given in milliseconds.
    func milliseconds(_ key: String, default value: Int64) throws(PluginConfigError) -> Timestamp.Duration {
        .milliseconds(Int64(try integer(key, default: Int(value), in: 1...3_600_000)))
    }

    /// A duration given in seconds (fractions allowed).
    func seconds(_ key: String, default value: Double) throws(PluginConfigError) -> Timestamp.Duration {
        guard let v = options[key], v != .null else { return .seconds(value) }
        guard let n = v.number, n > 0, n <= 86_400 else { throw fail("`\(key)` must be a number of seconds, > 0") }
        return .seconds(n)
    }

    /// An argv list (`[prog, arg, …]`), or, when `allowString`, a string (for `shell: true`).
    func command(_ key: String = "command", shell: Bool) throws(PluginConfigError) -> [String]? {
        guard let v = options[key], v != .null else { return nil }
        if shell {
            if let s = v.string { return ["/bin/sh", "-c", s] }
            if let argv = v.stringList, !argv.isEmpty { return ["/bin/sh", "-c", argv.joined(separator: " ")] }
            throw fail("`\(key)` must be a string (run with /bin/sh -c) when `shell: true`")
        }
        guard let argv = v.stringList else {
            if v.string != nil { throw fail("`\(key)` must be a list (argv); to run a string through /bin/sh, add `shell: true`") }
            throw fail("`\(key)` must be a list of strings (argv)")
        }
        guard let first = argv.first, !first.isEmpty else { throw fail("`\(key)` must not be empty") }
        return argv
    }

    /// A file mode: a string of octal digits (`"0660"`), or a number whose digits read as
    /// octal (`660`, since YAML reads `0660` as a decimal number).
    func fileMode(_ key: String, default value: UInt32) throws(PluginConfigError) -> UInt32 {
        guard let v = options[key], v != .null else { return value }
        var digits: String
        if let s = v.string { digits = s } else if let n = v.number, n >= 0, n == n.rounded(), n < 10_000 { digits = String(Int(n)) } else {
            throw fail("`\(key)` must be an octal mode such as \"0660\"")
        }
        if digits.hasPrefix("0o") { digits.removeFirst(2) }
        guard !digits.isEmpty, let mode = UInt32(digits, radix: 8), mode <= 0o7777 else {
            throw fail("`\(key)` must be an octal mode such as \"0660\"")
        }
        return mode
    }
}
