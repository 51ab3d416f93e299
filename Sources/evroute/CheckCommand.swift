import ArgumentParser
import EvrouteConfig

/// `evroute check`: validate a layout; exit 1 with `file:line:col` errors.
struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check", abstract: "Validate a layout; print every error as file:line:col and exit 1 when there is one.")

    @OptionGroup var config: ConfigOption

    func run() throws {
        let (spec, layout) = try config.load()
        let regions = layout.regions.count, handlers = layout.handlers.count
        print("\(spec.source ?? config.config ?? ConfigLoader.builtInName): ok — \(layout.displays.count) display(s), \(layout.screens.count) screen(s), \(regions) region(s), \(handlers) handler(s), \(layout.deviceRules.count) device rule(s)")
    }
}
