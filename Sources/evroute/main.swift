#if canImport(Glibc)
import Glibc
#endif
import EvrouteCommandLine
import EvrouteCore

// The entry point: every command, the daemon included, starts here and stays in this process.
exit(CommandLineParser.main(EvrouteCLI.root, arguments: Array(CommandLine.arguments.dropFirst()), version: evrouteVersion,
                            output: { text in writeOut(text) }, errors: { text in printError(text) }))
