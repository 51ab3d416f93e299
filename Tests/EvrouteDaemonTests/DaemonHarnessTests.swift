import Testing
#if canImport(Glibc)
import Glibc
#endif
import CLinux
import EvrouteDaemon
import EvrouteRuntime
import EvrouteJSON
import EvrouteSystem
import EvrouteTestSupport

// The harness the daemon tests share, over EvrouteTestSupport (the child process, the line
// client, scratch directories): the real `evroute` binary as a daemon, a fake `$NOTIFY_SOCKET`,
// the control socket. Every wait is bounded (poll(2) on a descriptor with a deadline), and a
// child still running when its test ends is killed.

extension TestProcess {
    /// The evroute daemon (or one of its command-line clients) as a child process, with the
    /// environment a service gets (PATH, HOME, LANG and `environment`). Its stderr (the log)
    /// goes to `logPath`, or to `stderr` when given (a pipe's write end: the log's reader is
    /// then the test); its stdout to `logPath.out`.
    static func daemon(_ binary: String, arguments: [String], environment: [String: String] = [:], logPath: String,
                       stderr: Int32? = nil) throws -> TestProcess {
        try TestProcess(binary, arguments, environment: .minimal(adding: environment),
                         stdout: .file(logPath + ".out"), stderr: stderr.map { .descriptor($0) } ?? .file(logPath))
    }
}

/// A datagram socket standing in for systemd's `$NOTIFY_SOCKET`.
final class DaemonNotifySocket {
    let path: String
    let fd: Int32
    private(set) var messages: [String] = []

    init(path: String) throws {
        self.path = path
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard let address = UnixSocketAddress(path), address.withSockaddr({ bind(fd, $0, $1) }) == 0 else {
            throw TestSupportError("bind \(path): \(String(cString: strerror(errno)))")
        }
    }

    deinit { close(fd); unlink(path) }

    /// Receives until a message contains `line` (as one of its lines); that message, or nil at the timeout.
    func wait(for line: String, seconds: Double = 20) -> String? {
        if let m = messages.first(where: { $0.split(separator: "\n").contains(Substring(line)) }) {
            messages.removeAll { $0 == m }
            return m
        }
        let deadline = monotonicSeconds() + seconds
        while waitReadable(fd, until: deadline) {
            var buffer = [UInt8](repeating: 0, count: 4096)
            let n = recv(fd, &buffer, buffer.count, 0)
            guard n > 0 else { continue }
            let m = String(decoding: buffer[0..<n], as: UTF8.self)
            if m.split(separator: "\n").contains(Substring(line)) { return m }
            messages.append(m)
        }
        return nil
    }

    /// Every message received so far or within `seconds` more.
    func drain(seconds: Double) -> [String] {
        let deadline = monotonicSeconds() + seconds
        while waitReadable(fd, until: deadline) {
            var buffer = [UInt8](repeating: 0, count: 4096)
            let n = recv(fd, &buffer, buffer.count, 0)
            if n > 0 { messages.append(String(decoding: buffer[0..<n], as: UTF8.self)) }
        }
        defer { messages.removeAll() }
        return messages
    }
}

/// Asks the daemon on `socket`; nil when it does not answer.
func harnessControl(_ command: String, _ socket: String) -> JSONValue? {
    try? ControlClient.request(.object([("command", .string(command))]), to: socket, timeoutSeconds: 10)
}
