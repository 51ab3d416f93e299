import ArgumentParser
import EvrouteDaemon

/// `evroute reload`: make the running daemon reload its config, and say whether it took.
struct ReloadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reload",
        abstract: "Make the running daemon reload its config; print the errors (file:line:col) and exit 1 when it has any.")

    @Option(name: .long, help: ArgumentHelp("The daemon's control socket.", valueName: "path"))
    var controlSocket: String = ControlClient.defaultPath

    func run() throws {
        let answer: JSONValue
        do {
            answer = try ControlClient.request(.object([("command", .string("reload"))]), to: controlSocket)
        } catch {
            printError("evroute reload: \(error)")
            throw ExitCode(1)
        }
        if answer["ok"]?.boolValue == true {
            print("reloaded \(answer["config"]?.stringValue ?? "the config")")
            return
        }
        for line in answer["errors"]?.arrayValue ?? [] { printError(line.stringValue ?? line.serialized) }
        printError("evroute reload: \(answer["error"]?.stringValue ?? answer.serialized)")
        throw ExitCode(1)
    }
}
