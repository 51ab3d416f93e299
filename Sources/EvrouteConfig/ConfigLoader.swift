import EvrouteCore
import Foundation
import Yams

/// Reads evroute's YAML config into a ``LayoutSpec`` and compiles it into a ``Layout``.
///
/// Every error names `file:line:col` of the offending key or value; all errors of a file
/// are collected and thrown together as ``ConfigErrors``.
public enum ConfigLoader {
    /// Where the daemon looks for its config when `--config` is not given.
    public static let defaultPath = "/etc/evroute/evroute.yaml"

    /// The file name used in messages about the built-in default config.
    public static let builtInName = "<built-in>"

    /// Reads and parses a config file (syntax and types only; see ``loadLayout(path:)``
    /// for the semantic checks). Throws ``ConfigErrors``.
    public static func load(path: String) throws(ConfigErrors) -> LayoutSpec {
        try parse(yaml: read(path), file: path)
    }

    /// Parses config text. `file` is the name used in locations and messages.
    /// Throws ``ConfigErrors`` holding every error found.
    public static func parse(yaml: String, file: String) throws(ConfigErrors) -> LayoutSpec {
        let root: Node?
        do {
            root = try Yams.compose(yaml: yaml)
        } catch {
            throw ConfigErrors([ConfigError.fromYams(error, file: file, yaml: yaml)])
        }
        let reader = SpecReader(file: file)
        let spec = reader.layout(root)
        if !reader.errors.isEmpty { throw ConfigErrors(reader.errors) }
        return spec
    }

    /// Parses config text and compiles it: syntax, types and the semantic checks of
    /// ``Layout/compile(_:)`` (unknown names, duplicates, cycles). Throws ``ConfigErrors``.
    public static func compile(yaml: String, file: String) throws(ConfigErrors) -> (spec: LayoutSpec, layout: Layout) {
        let spec = try parse(yaml: yaml, file: file)
        return (spec, try compile(spec, file: file))
    }

    /// Loads the config the daemon runs with, parsed and compiled:
    /// - `path` given: that file (a missing file is an error);
    /// - `path` nil: ``defaultPath`` if it exists, else the built-in default
    ///   (``builtInDefaultYAML``).
    /// Throws ``ConfigErrors``.
    public static func loadLayout(path: String?) throws(ConfigErrors) -> (spec: LayoutSpec, layout: Layout) {
        if let path {
            let spec = try load(path: path)
            return (spec, try compile(spec, file: path))
        }
        if FileManager.default.fileExists(atPath: defaultPath) {
            return try loadLayout(path: defaultPath)
        }
        return try compile(yaml: builtInDefaultYAML, file: builtInName)
    }

    /// The built-in default as a spec (what runs when there is no config file).
    public static var builtInDefault: LayoutSpec {
        // The built-in text is tested; it always parses.
        (try? parse(yaml: builtInDefaultYAML, file: builtInName)) ?? LayoutSpec(source: builtInName)
    }

    /// Compiles a spec, turning ``LayoutErrors`` into ``ConfigErrors`` (message and location kept).
    public static func compile(_ spec: LayoutSpec, file: String) throws(ConfigErrors) -> Layout {
        do {
            return try Layout.compile(spec)
        } catch {
            throw ConfigErrors(error.errors.map {
                ConfigError($0.message, at: $0.location, file: file, kind: .semantic)
            })
        }
    }

    static func read(_ path: String) throws(ConfigErrors) -> String {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw ConfigErrors([ConfigError(file: path, line: 0, column: 0,
                                            message: "config file not found", kind: .io)])
        }
        if isDirectory.boolValue {
            throw ConfigErrors([ConfigError(file: path, line: 0, column: 0,
                                            message: "is a directory, expected a YAML config file", kind: .io)])
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigErrors([ConfigError(file: path, line: 0, column: 0,
                                            message: "cannot read the config file (permission denied?)", kind: .io)])
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ConfigErrors([ConfigError(file: path, line: 0, column: 0,
                                            message: "the config file is not valid UTF-8", kind: .io)])
        }
        return text
    }
}
