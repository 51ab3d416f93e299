#if canImport(Glibc)
import Glibc
#endif
import EvrouteConfig
import EvrouteCore
import EvrouteDaemon

/// `evroute __compile-config [--config PATH]`: the daemon's config child (``ConfigChild``).
/// Loads the config as the daemon would (``ConfigLoader/loadLayout(path:)``: a missing
/// `--config` means `/etc/evroute/evroute.yaml` or the built-in default) and prints its
/// ``LayoutSpec`` as one line of JSON on stdout, exit 0; or every error as
/// `file:line:col: error: …` on stderr, exit 1. Usage errors exit 2.
enum CompileConfig {
    static func run(_ arguments: [String]) -> Int32 {
        var path: String?
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            guard argument == "--config", let value = rest.popFirst() else {
                printError("evroute \(ConfigChild.argument): unexpected argument \"\(argument)\"")
                return 2
            }
            path = value
        }
        let spec: LayoutSpec
        do {
            spec = try ConfigLoader.loadLayout(path: path).spec
        } catch {
            printError(error.description)
            return 1
        }
        var text = LayoutSpecJSON.serialize(spec)
        text.append("\n")
        let written = text.withUTF8 { p -> Bool in
            var at = 0
            while at < p.count {
                let n = write(1, p.baseAddress! + at, p.count - at)
                if n < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                at += n
            }
            return true
        }
        if !written {
            printError("evroute \(ConfigChild.argument): cannot write the layout: \(String(cString: strerror(errno)))")
            return 1
        }
        return 0
    }
}
