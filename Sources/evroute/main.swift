#if canImport(Glibc)
import Glibc
#endif
import EvrouteDaemon

// The entry point. Two private first arguments are taken before anything touches
// ArgumentParser (or, through it and the YAML loader, Foundation):
//
// - `evroute __daemon OPTIONS…`: the daemon itself. `evroute [route] …` checks the command
//   line with ArgumentParser and then re-executes this binary (same pid) this way, so the
//   long-running process never runs Foundation code and its pages never become resident
//   (docs/daemon.md, "Process structure").
// - `evroute __compile-config [--config PATH]`: the short-lived child in which the daemon
//   reads and compiles its config (YAML, Foundation); it prints the layout spec as JSON.
let arguments = CommandLine.arguments
if arguments.count >= 2, arguments[1] == DaemonOptions.daemonArgument {
    // Before any thread exists: threads inherit the mask (it is also inherited across the
    // exec, so a SIGTERM sent meanwhile waits for the signalfd).
    Daemon.blockSignals()
    let options: DaemonOptions
    do {
        options = try DaemonOptions(arguments: Array(arguments.dropFirst(2)))
    } catch {
        printError("evroute: \(error)")
        exit(2)
    }
    exit(Daemon(options: options).run())
} else if arguments.count >= 2, arguments[1] == ConfigChild.argument {
    exit(CompileConfig.run(Array(arguments.dropFirst(2))))
} else {
    EvrouteCommand.main()
}
