import ArgumentParser
import EvrouteInput
import EvrouteSystem
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

    func run() throws {
        do {
            let recorder = try Recorder(devicePath: device, outputPath: output, grab: grab)
            switch try recorder.run(in: try EventLoop()) {
            case .stopped: break
            case .deviceGone(let error): printError("evroute: \(device) went away: \(error)")
            }
        } catch {
            throw CLIError("cannot record \(device): \(error)")
        }
    }
}
