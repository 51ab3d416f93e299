import EvrouteCommandLine
import EvrouteConfig
import EvrouteRuntime

extension EvrouteCLI {
    /// `evroute monitor`: live, for people — devices as they come and go (the rule that takes
    /// each, or why none does), each touch with its region and responder, each key with its
    /// first responder; runs no handler. `--replay` monitors recordings instead (and ends with
    /// the summary line).
    static let monitor = Command(
        "monitor", abstract: "Watch live input as evroute routes it: devices and the rule that takes each (or why none does), touches with their region and responder, keys with their first responder.",
        discussion: """
            Runs no handler (like --dry-run) and prints one line per device change (a device no
            rule takes: each rule's first unmet field), touch beginning and end (moves are
            counted; a line when the region under the finger changes), key, gesture (its steps
            counted), action, focus and presentation change. Says so, and the likeliest why,
            while no input device is there. With --replay, recordings stand in for devices and a
            summary line ends the output. Ctrl-C ends it.
            """,
        options: [
            configOption,
            .repeated("replay", valueName: "file", help: "Monitor an evemu recording instead of live devices (repeatable; merged by time).",
                      completion: .file),
            .value("desc", valueName: "file", help: "Device description for recordings that have none (evemu .desc).", completion: .file),
            .value("format", valueName: "format",
                   help: "text (for people) or json: one object per line, the JSON trace's fields and the monitor's (docs/events.md); the summary then goes to stderr.",
                   choices: ["text", "json"], default: "text"),
        ],
        run: { p in
            let (_, layout) = try loadLayout(p.value("config"))
            // Line by line: someone is watching.
            let runner = DryRun(layout: layout, report: MonitorWriter(sink: FileDescriptorSink(fd: 1, lineBuffered: true),
                                                                       format: p.value("format") == "json" ? .json : .text))
            do {
                if p.values("replay").isEmpty {
                    try runner.runLive()
                } else {
                    try runner.runReplays(paths: p.values("replay"), descriptionPath: p.value("desc"))
                }
            } catch let exit as CommandLineExit {
                throw exit
            } catch {
                throw failure("\(error)")
            }
        })
}
