#if canImport(Glibc)
import Glibc
#endif

/// Writes a line to standard error.
func printError(_ message: String) {
    var line = message
    if !line.hasSuffix("\n") { line += "\n" }
    line.withUTF8 { p in _ = write(2, p.baseAddress, p.count) }
}
