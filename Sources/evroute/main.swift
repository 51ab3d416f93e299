#if canImport(Glibc)
import Glibc
#endif
import EvrouteCommandLine
import EvrouteCore
import EvrouteInput

// The entry point: every command, the daemon included, starts here and stays in this process.
// Configs name keys as libevdev does (`check`, the dry-run, `tree`, start and reload alike).
KeyNames.useLibevdev()
exit(CommandLineParser.main(EvrouteCLI.root, arguments: Array(CommandLine.arguments.dropFirst()), version: evrouteVersion,
                            output: { text in writeOut(text) }, errors: { text in printError(text) }))
