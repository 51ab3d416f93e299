import Glibc
import EvrouteCore

/// What `evroute check` reports of one config: every error, or the compiled layout and its warnings.
public struct ConfigCheck: Sendable {
    /// The file as named in messages (``ConfigLoader/builtInName`` for the built-in default).
    public var file: String
    public var errors: [Diagnostic]
    /// The warnings (``Diagnostic/severity`` `.warning`), for a config without errors.
    public var warnings: [Diagnostic]
    /// The spec and layout, when there are no errors.
    public var result: (spec: LayoutSpec, layout: Layout)?

    public var ok: Bool { errors.isEmpty }
}

extension ConfigLoader {
    /// The warnings of a compiled layout, in file order.
    public static func warnings(of layout: Layout, file: String) -> [Diagnostic] {
        layout.warnings.map { $0.placed(in: file) }.enumerated().sorted { a, b in
            (a.element.line, a.element.column ?? 0, a.offset) < (b.element.line, b.element.column ?? 0, b.offset)
        }.map(\.element)
    }

    /// `evroute check -`: the layout read from standard input, named `<stdin>` in every message,
    /// with the same checks as ``check(path:pluginTypes:controlSocket:)``.
    public static func checkStandardInput(pluginTypes: PluginCatalog, controlSocket: String? = nil) -> ConfigCheck {
        let file = "<stdin>"
        do throws(Diagnostics) {
            let spec = try parse(yaml: try readStandardInput(file: file), file: file, pluginTypes: pluginTypes)
            let layout = try compile(spec, file: file, pluginTypes: pluginTypes, controlSocket: controlSocket)
            return ConfigCheck(file: file, errors: [], warnings: warnings(of: layout, file: file), result: (spec, layout))
        } catch {
            return ConfigCheck(file: file, errors: error.errors, warnings: [], result: nil)
        }
    }

    /// Loads and compiles the config as the daemon would (``loadLayout(path:pluginTypes:)``: the
    /// same checks as at start and reload) and reports its errors or its warnings.
    /// `controlSocket`: the control socket the daemon would serve (the metrics text file must
    /// not name it).
    public static func check(path: String?, pluginTypes: PluginCatalog, controlSocket: String? = nil) -> ConfigCheck {
        var status = stat()
        let file = path ?? (stat(defaultPath, &status) == 0 ? defaultPath : builtInName)
        do {
            let loaded = try loadLayout(path: path, pluginTypes: pluginTypes, controlSocket: controlSocket)
            return ConfigCheck(file: file, errors: [], warnings: warnings(of: loaded.layout, file: file), result: loaded)
        } catch {
            return ConfigCheck(file: file, errors: error.errors, warnings: [], result: nil)
        }
    }
}
