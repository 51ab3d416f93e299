import ArgumentParser
import EvrouteInput
#if canImport(Glibc)
import Glibc
#endif

/// `evroute record DEVICE [-o FILE]`: writes a live device's description and events in evemu format.
struct RecordCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record", abstract: "Record a live device in evemu format (stop with Ctrl-C).")

    @Argument(help: "The device node, e.g. /dev/input/event3.") var device: String

    @Option(name: .shortAndLong, help: ArgumentHelp("Write to this file instead of standard output.", valueName: "file"))
    var output: String?

    @Flag(help: "Grab the device while recording (no other reader sees its events).")
    var grab = false

    nonisolated(unsafe) static var stop = false

    func run() throws {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in RecordCommand.stop = true }
        sigemptyset(&action.sa_mask)
        sigaction(SIGINT, &action, nil)
        sigaction(SIGTERM, &action, nil)
        do {
            let recorder = try Recorder(devicePath: device, outputPath: output, grab: grab)
            switch try recorder.run(until: { RecordCommand.stop }) {
            case .stopped: break
            case .deviceGone(let error): printError("evroute: \(device) went away: \(error)")
            }
        } catch {
            throw CLIError("cannot record \(device): \(error)")
        }
    }
}
