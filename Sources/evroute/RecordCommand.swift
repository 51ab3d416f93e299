import EvrouteCommandLine
import EvrouteInput
import EvrouteSystem

extension EvrouteCLI {
    /// `evroute record DEVICE [-o FILE]`: writes a live device's description and events in evemu format.
    static let record = Command(
        "record", abstract: "Record a live device in evemu format (stop with Ctrl-C).",
        options: [
            .value("output", short: "o", valueName: "file", help: "Write to this file instead of standard output.", completion: .file),
            .flag("grab", help: "Grab the device while recording (no other reader sees its events)."),
        ],
        arguments: [CommandArgument("device", help: "The device node, e.g. /dev/input/event3.", completion: .file)],
        run: { p in
            let device = p.argument("device") ?? ""
            do {
                let recorder = try Recorder(devicePath: device, outputPath: p.value("output"), grab: p.flag("grab"))
                switch try recorder.run(in: try EventLoop()) {
                case .stopped: break
                case .deviceGone(let error): printError("evroute: \(device) went away: \(error)")
                }
            } catch {
                throw failure("cannot record \(device): \(error)")
            }
        })
}
