import Testing
import EvrouteChecks
@testable import EvrouteCommandLine

@Suite("Command-line parser")
struct ParserTests {
    static let root = Command(
        "tool", abstract: "A tool.",
        subcommands: [
            Command("run", abstract: "Run.", options: [
                .value("config", valueName: "file", help: "The config.", completion: .file),
                .flag("dry-run", help: "Pretend."),
                .repeated("replay", valueName: "file", help: "Replays."),
                .value("format", valueName: "format", help: "Format.", choices: ["text", "json"], default: "text"),
                .value("output", short: "o", valueName: "file", help: "Output."),
            ], run: { _ in }),
            Command("hit", abstract: "Hit.", options: [.value("screen", valueName: "screen", help: "Screen.")],
                    arguments: [CommandArgument("x", help: "X."), CommandArgument("y", help: "Y.")], run: { _ in }),
            Command("check", abstract: "Check.", arguments: [CommandArgument("file", help: "File.", optional: true)], run: { _ in }),
        ],
        defaultSubcommand: "run")

    func parsed(_ args: [String]) throws -> ParsedCommandLine {
        guard case .run(let p) = try CommandLineParser.parse(Self.root, arguments: args, version: "1.0") else {
            Issue.record("expected a command to run")
            throw CommandLineExit(99)
        }
        return p
    }

    /// The help text the arguments ask for, or nil when they ask for something else.
    func helpText(_ args: [String]) throws -> String? {
        if case .help(let text) = try CommandLineParser.parse(Self.root, arguments: args, version: "1.0") { return text }
        return nil
    }

    /// The version text the arguments ask for, or nil when they ask for something else.
    func versionText(_ args: [String]) throws -> String? {
        if case .version(let text) = try CommandLineParser.parse(Self.root, arguments: args, version: "1.0") { return text }
        return nil
    }

    func usageError(_ args: [String]) -> String? {
        do {
            _ = try CommandLineParser.parse(Self.root, arguments: args, version: "1.0")
            return nil
        } catch {
            expectEqual(error.status, 2)
            return error.message
        }
    }

    @Test("options in every spelling, flags, repeats, the default subcommand")
    func spellings() throws {
        let p = try parsed(["--config", "a.yaml", "--dry-run", "--replay=x", "--replay", "y", "-o", "out", "--format=json"])
        expectEqual(p.path, ["tool", "run"])
        expectEqual(p.value("config"), "a.yaml")
        expect(p.flag("dry-run"))
        expectEqual(p.values("replay"), ["x", "y"])
        expectEqual(p.value("output"), "out")
        expectEqual(p.value("format"), "json")
        try expectEqual(try parsed(["run", "-oout"]).value("output"), "out")
        try expectEqual(try parsed(["run", "--config", "b", "--config", "c"]).value("config"), "c", "the last value wins")
        try expect(!(try parsed([]).flag("dry-run")))
    }

    @Test("positionals, negative numbers, options after arguments, --")
    func positionals() throws {
        let p = try parsed(["hit", "-5", "10.5", "--screen", "admin"])
        try expect(try p.number("x") == -5 && p.number("y") == 10.5)
        expectEqual(p.value("screen"), "admin")
        try expectEqual(try parsed(["check", "--", "--odd-name.yaml"]).argument("file"), "--odd-name.yaml")
        try expect(try parsed(["check"]).argument("file") == nil)
        #expect(throws: CommandLineExit.self) { try parsed(["hit", "a", "1"]).number("x") }
    }

    @Test("usage errors: exit 2, the command, usage and a hint; did-you-mean")
    func errors() {
        let unknown = usageError(["--confg", "x"]) ?? ""
        expect(unknown.hasPrefix("tool run: error: unknown option '--confg'; did you mean '--config'?"), "\(unknown)")
        expect(unknown.contains("Usage: tool run [--config <file>]"))
        expect(unknown.contains("See 'tool run --help'."))
        expectEqual(usageError(["--config"])?.contains("missing value for '--config <file>'"), true)
        expectEqual(usageError(["--dry-run=yes"])?.contains("takes no value"), true)
        expectEqual(usageError(["--format", "xml"])?.contains("'xml' is not a valid value for '--format' (one of: text, json)"), true)
        expectEqual(usageError(["hit", "1"])?.contains("missing argument <y>"), true)
        expectEqual(usageError(["hit", "1", "2", "3"])?.contains("unexpected argument '3'"), true)
        expectEqual(usageError(["chek"])?.contains("unknown command 'chek'; did you mean 'check'?"), true)
        expectEqual(usageError(["-z"])?.contains("unknown option '-z'"), true)
    }

    @Test("help and version")
    func helpAndVersion() throws {
        let top = try #require(try helpText(["--help"]), "no help")
        // `--help` without a subcommand is the tool's help, with the default subcommand's options.
        expect(top.contains("SUBCOMMANDS:") && top.contains("OPTIONS OF 'tool run' (THE DEFAULT SUBCOMMAND):"))
        let tool = try #require(try helpText(["help"]), "no help")
        let hit = try #require(try helpText(["help", "hit"]), "no help")
        let hit2 = try #require(try helpText(["hit", "-h"]), "no help")
        let version = try #require(try versionText(["--version"]), "no version")
        expect(tool.contains("SUBCOMMANDS:") && tool.contains("run (default)") && tool.contains("check"))
        expect(hit == hit2 && hit.contains("USAGE: tool hit [--screen <screen>] <x> <y>"))
        expect(top.contains("--format <format>"))
        let run = try #require(try helpText(["run", "--help"]), "no help for run")
        expect(run.contains("USAGE: tool run") && run.contains("(default: text)"))
        expectEqual(version, "tool 1.0\n")
        // `-V`, as most tools spell it, before a subcommand and after one.
        try expectEqual(try versionText(["-V"]), "tool 1.0\n")
        try expectEqual(try versionText(["hit", "-V"]), "tool 1.0\n")
    }

    @Test("main: statuses and where the text goes")
    func main() {
        var out = "", err = ""
        let failing = Command("t", abstract: "T.", run: { _ in throw CommandLineExit.failure("t: error: bad") })
        expectEqual(CommandLineParser.main(failing, arguments: [], version: "1", output: { out += $0 }, errors: { err += $0 }), 1)
        expect(err == "t: error: bad\n" && out.isEmpty)
        err = ""
        expectEqual(CommandLineParser.main(failing, arguments: ["--nope"], version: "1", output: { out += $0 }, errors: { err += $0 }), 2)
        expect(err.hasPrefix("t: error: unknown option '--nope'"))
        expectEqual(CommandLineParser.main(failing, arguments: ["--help"], version: "1", output: { out += $0 }, errors: { err += $0 }), 0)
        expect(out.hasPrefix("OVERVIEW: T."))
    }
}
