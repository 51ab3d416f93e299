import EvrouteCore
import Glibc

/// Reads evroute's YAML config into a ``LayoutSpec`` and compiles it into a ``Layout``.
///
/// Every error names `file:line:col` of the offending key or value; all errors of a file
/// are collected and thrown together as ``Diagnostics``.
public enum ConfigLoader {
    /// Where the daemon looks for its config when `--config` is not given.
    public static let defaultPath = "/etc/evroute/evroute.yaml"

    /// The file name used in messages about the built-in default config.
    public static let builtInName = "<built-in>"

    /// The largest config file read, in bytes (4 MiB); a larger one is an error, not read.
    public static let maximumFileSize = 4 << 20
    /// How many nodes all YAML aliases (`*name`) of one file may stand for together, counted
    /// expanded; past it the file is an error at the alias (against "billion laughs" files).
    public static let maximumAliasExpansion = YAMLDocument.maximumAliasExpansion
    /// How deep lists and mappings may nest in a config (aliases expanded).
    public static let maximumNestingDepth = YAMLDocument.maximumDepth

    /// Reads and parses a config file (syntax and types only; see ``loadLayout(path:pluginTypes:)``
    /// for the semantic checks). `pluginTypes`: the plugin types a config may declare and their
    /// option checks (the daemon's registry, `PluginTypes.all`). Throws ``Diagnostics``.
    public static func load(path: String, pluginTypes: PluginCatalog) throws(Diagnostics) -> LayoutSpec {
        try parse(yaml: read(path), file: path, pluginTypes: pluginTypes)
    }

    /// Parses config text. `file` is the name used in locations and messages.
    /// Throws ``Diagnostics`` holding every error found.
    public static func parse(yaml: String, file: String, pluginTypes: PluginCatalog) throws(Diagnostics) -> LayoutSpec {
        try read(yaml: yaml, file: file, pluginTypes: pluginTypes) { $0.layout($1) }
    }

    /// Parses the regions of `evroute ctl regions` (the new children of a region, docs/ui-control.md): a
    /// YAML or JSON document that is a list of regions, or a mapping whose `regions:` holds
    /// one. Each region is read as the config reads one (same keys, checks and
    /// `file:line:col` messages); they are compiled where they go (``Router/apply(_:time:)``).
    /// Throws ``Diagnostics`` holding every error found.
    public static func parseRegions(yaml: String, file: String) throws(Diagnostics) -> [RegionSpec] {
        try read(yaml: yaml, file: file) { $0.regionList($1) }
    }

    /// Composes the YAML text and reads it with `body`, collecting every error.
    private static func read<T>(yaml: String, file: String, pluginTypes: PluginCatalog = .routingOnly,
                                _ body: (SpecReader, YAMLNode?) -> T) throws(Diagnostics) -> T {
        let root: YAMLNode?
        do {
            root = try YAMLDocument.compose(yaml, file: file)
        } catch {
            throw Diagnostics([error])
        }
        let reader = SpecReader(file: file, pluginTypes: pluginTypes)
        let value = body(reader, root)
        if !reader.errors.isEmpty { throw Diagnostics.inFileOrder(reader.errors) }
        return value
    }

    /// Parses config text and compiles it: syntax, types and the semantic checks of
    /// ``Layout/compile(_:pluginTypes:)`` (unknown names, duplicates, cycles). Throws ``Diagnostics``.
    public static func compile(yaml: String, file: String, pluginTypes: PluginCatalog) throws(Diagnostics) -> (spec: LayoutSpec, layout: Layout) {
        let spec = try parse(yaml: yaml, file: file, pluginTypes: pluginTypes)
        return (spec, try compile(spec, file: file, pluginTypes: pluginTypes))
    }

    /// Loads the config the daemon runs with, parsed and compiled:
    /// - `path` given: that file (a missing file is an error);
    /// - `path` nil: ``defaultPath`` if it exists, else the built-in default
    ///   (``builtInDefaultYAML``).
    /// Throws ``Diagnostics``.
    /// `controlSocket`: the daemon's control socket, which the metrics text file must not name
    /// (nor the config file, nor a socket plugin's path: ``textfileErrors(_:file:controlSocket:)``).
    public static func loadLayout(path: String?, pluginTypes: PluginCatalog, controlSocket: String? = nil) throws(Diagnostics) -> (spec: LayoutSpec, layout: Layout) {
        if let path {
            let spec = try load(path: path, pluginTypes: pluginTypes)
            return (spec, try compile(spec, file: path, pluginTypes: pluginTypes, controlSocket: controlSocket))
        }
        var status = stat()
        if stat(defaultPath, &status) == 0 {
            return try loadLayout(path: defaultPath, pluginTypes: pluginTypes, controlSocket: controlSocket)
        }
        return try compile(yaml: builtInDefaultYAML, file: builtInName, pluginTypes: pluginTypes)
    }

    /// The built-in default as a spec (what runs when there is no config file).
    public static func builtInDefault(pluginTypes: PluginCatalog) -> LayoutSpec {
        // The built-in text is tested; it always parses.
        (try? parse(yaml: builtInDefaultYAML, file: builtInName, pluginTypes: pluginTypes)) ?? LayoutSpec(source: builtInName)
    }

    /// The error of a config that declares no display (an empty file, or one with only
    /// plugins): it could route nothing, so it is refused rather than run.
    public static let noDisplayMessage = "the config declares no display; a layout needs at least one (displays: [{name: NAME, size: [WIDTH, HEIGHT]}]) with a screen on it"

    /// Compiles a spec; the compiler's diagnostics without a place are named in `file`, and sorted.
    /// A config's plugins must also be runnable (``Layout/pluginErrors`` are errors here), and
    /// it must declare a display (``noDisplayMessage``, at line 1, column 1).
    public static func compile(_ spec: LayoutSpec, file: String, pluginTypes: PluginCatalog, controlSocket: String? = nil) throws(Diagnostics) -> Layout {
        do throws(Diagnostics) {
            let layout = try Layout.compile(spec, pluginTypes: pluginTypes)
            var errors = layout.pluginErrors + textfileErrors(spec, file: file, controlSocket: controlSocket)
            if spec.displays.isEmpty {
                errors.insert(Diagnostic(noDisplayMessage, at: SourceLocation(file: file, line: 1, column: 1)), at: 0)
            }
            if !errors.isEmpty { throw Diagnostics(errors) }
            return layout
        } catch {
            throw Diagnostics.inFileOrder(error.errors.map { $0.placed(in: file) })
        }
    }

    /// The metrics text file is replaced every interval: it must not be a file the daemon or its
    /// peers need, so naming the config file itself, a `socket` plugin's path or the control
    /// socket (`controlSocket`) is an error at the `textfile` value. Paths are compared with
    /// `.`/`..` and `//` folded and the existing directories' links resolved.
    public static func textfileErrors(_ spec: LayoutSpec, file: String, controlSocket: String?) -> [Diagnostic] {
        guard let metrics = spec.metrics, let textfile = metrics.textfile else { return [] }
        let target = resolvedPath(textfile)
        var clashes: [String] = []
        if file != builtInName, resolvedPath(file) == target { clashes.append("the config file itself (\(file))") }
        for plugin in spec.plugins where plugin.type.rawValue == "socket" {
            if case .string(let path)? = plugin.options["path"], resolvedPath(path) == target {
                clashes.append("socket plugin '\(plugin.name)''s socket (\(path))")
            }
        }
        if let controlSocket, resolvedPath(controlSocket) == target { clashes.append("the control socket (\(controlSocket))") }
        return clashes.map {
            Diagnostic("'textfile' \(textfile) is \($0): the daemon replaces the text file every interval; name a file of its own (e.g. /var/lib/evroute/metrics/evroute.prom)",
                       at: metrics.textfileLocation ?? metrics.location, kind: .invalidValue)
        }
    }

    /// `path` made absolute (from the working directory), `.`, `..` and repeated slashes folded
    /// (lexically), then the longest existing directory prefix resolved through its links.
    static func resolvedPath(_ path: String) -> String {
        var base: [Substring] = []
        if !path.hasPrefix("/") {
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            if getcwd(&buffer, buffer.count) != nil {
                base = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self).split(separator: "/")
            }
        }
        var parts = base
        for part in path.split(separator: "/") {
            if part == "." { continue }
            if part == ".." { _ = parts.popLast(); continue }
            parts.append(part)
        }
        guard let name = parts.popLast() else { return "/" }
        var directory = "/" + parts.joined(separator: "/")
        if let real = realpath(directory, nil) {
            directory = String(cString: real)
            free(real)
        }
        return (directory == "/" ? "" : directory) + "/" + name
    }

    /// The text of the config file at `path`. Only a regular file of at most
    /// ``maximumFileSize`` bytes of UTF-8 is read; anything else is an `io` error without a
    /// place (not found, a directory, a FIFO or device, too large, unreadable, not UTF-8).
    static func read(_ path: String) throws(Diagnostics) -> String {
        func failure(_ message: String) -> Diagnostics {
            Diagnostics([Diagnostic(file: path, line: 0, column: 0, message: message, kind: .io)])
        }
        func openFailure(_ error: Int32) -> Diagnostics {
            switch error {
            case ENOENT, ENOTDIR: return failure("config file not found")
            case EACCES, EPERM: return failure("cannot read the config file (permission denied?)")
            default: return failure("cannot read the config file: \(String(cString: strerror(error)))")
            }
        }
        // Look before opening: opening a FIFO would wait for a writer, opening a device may
        // do something to it.
        var status = stat()
        guard stat(path, &status) == 0 else { throw openFailure(errno) }
        try checkKind(status.st_mode, failure)

        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
        guard fd >= 0 else { throw openFailure(errno) }
        defer { close(fd) }
        // What was opened may not be what was looked at (the path may have been replaced).
        guard fstat(fd, &status) == 0 else { throw openFailure(errno) }
        try checkKind(status.st_mode, failure)
        let tooLarge = failure("the config file is larger than \(maximumFileSize >> 20) MiB (\(maximumFileSize) bytes), the most evroute reads")
        if status.st_size > maximumFileSize { throw tooLarge }

        return try readText(fd, failure)
    }

    /// Config text from standard input (`evroute check -`), named `file` in messages: the same
    /// limits as a file (``maximumFileSize``, UTF-8).
    public static func readStandardInput(file: String) throws(Diagnostics) -> String {
        try readText(0) { Diagnostics([Diagnostic(file: file, line: 0, column: 0, message: $0, kind: .io)]) }
    }

    /// Reads `fd` to its end, never more than ``maximumFileSize`` bytes; the text without a
    /// UTF-8 byte order mark.
    private static func readText(_ fd: Int32, _ failure: (String) -> Diagnostics) throws(Diagnostics) -> String {
        let tooLarge = failure("the config file is larger than \(maximumFileSize >> 20) MiB (\(maximumFileSize) bytes), the most evroute reads")
        // Read until the end, but never more than the limit (the file may grow meanwhile).
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw failure("cannot read the config file: \(String(cString: strerror(errno)))")
            }
            if n == 0 { break }
            bytes.append(contentsOf: chunk[..<n])
            if bytes.count > maximumFileSize { throw tooLarge }
        }
        var content = bytes[...]
        // A UTF-8 byte order mark is not part of the text.
        if content.starts(with: [0xEF, 0xBB, 0xBF]) { content = content.dropFirst(3) }
        guard let text = String(validating: content, as: UTF8.self) else {
            throw failure("the config file is not valid UTF-8")
        }
        return text
    }

    /// Throws unless `mode` is a regular file's.
    private static func checkKind(_ mode: mode_t, _ failure: (String) -> Diagnostics) throws(Diagnostics) {
        switch mode & S_IFMT {
        case S_IFREG: return
        case S_IFDIR: throw failure("is a directory, expected a YAML config file")
        case S_IFIFO: throw failure("is a FIFO (named pipe), not a regular file; expected a YAML config file")
        case S_IFCHR: throw failure("is a character device, not a regular file; expected a YAML config file")
        case S_IFBLK: throw failure("is a block device, not a regular file; expected a YAML config file")
        case S_IFSOCK: throw failure("is a socket, not a regular file; expected a YAML config file")
        default: throw failure("is not a regular file; expected a YAML config file")
        }
    }
}
