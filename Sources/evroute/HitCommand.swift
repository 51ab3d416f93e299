import ArgumentParser
import EvrouteCore
import EvrouteRuntime

/// `evroute hit X Y`: which region a touch at a point would bind to, and its responder chain.
struct HitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hit", abstract: "Hit-test a point (display coordinates): the region a touch there binds to and its responder chain.")

    @OptionGroup var config: ConfigOption

    @Option(help: "The screen to test (default: the display's active screen at start).")
    var screen: String?

    @Option(help: "The display (default: the first).")
    var display: String?

    @Option(help: "text or json ({\"region\": PATH|null, \"chain\": [...]}).")
    var format: TraceFormat = .text

    @Argument(help: "X in display coordinates.") var x: Double
    @Argument(help: "Y in display coordinates.") var y: Double

    func run() throws {
        let (_, layout) = try config.load()
        let result = try HitQuery(layout: layout, screen: screen, display: display).run(Point(x: x, y: y))
        switch format {
        case .json: print(result.json)
        case .text: print(result.text(layout: layout), terminator: "")
        }
    }
}
