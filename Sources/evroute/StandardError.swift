#if canImport(Glibc)
import Glibc
#endif
import EvrouteCommandLine

/// Writes a line to standard error.
func printError(_ message: String) {
    var line = message
    if !line.hasSuffix("\n") { line += "\n" }
    line.withUTF8 { p in _ = write(2, p.baseAddress, p.count) }
}

/// Writes text to standard output as it is (one write(2)).
func writeOut(_ text: String) {
    var text = text
    text.withUTF8 { p in
        var offset = 0
        while offset < p.count {
            let n = write(1, p.baseAddress! + offset, p.count - offset)
            if n <= 0 { if n < 0 && errno == EINTR { continue }; return }
            offset += n
        }
    }
}

/// An error the CLI reports as one line on stderr, exit status 1.
func failure(_ message: String) -> CommandLineExit { .failure("evroute: error: \(message)") }
