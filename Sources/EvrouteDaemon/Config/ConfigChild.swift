#if canImport(Glibc)
import Glibc
#endif
import CLinux
import EvrouteCore

/// Loads the config in a child process: `EXECUTABLE __compile-config [--config PATH]` reads
/// and compiles the YAML (Yams and Foundation run there, not in the daemon) and prints the
/// ``LayoutSpec`` as one JSON document on stdout (exit 0), or every error as
/// `file:line:col: error: …` on stderr (exit 1). The daemon decodes the spec
/// (``LayoutSpecJSON``) and compiles it itself.
///
/// The call blocks its caller until the child is done (a few milliseconds; startup and
/// reload only), at most `timeout`: then the child is killed and that is the error.
public enum ConfigChild {
    /// The private first argument of the compiler entry point.
    public static let argument = "__compile-config"
    /// This very binary, even if the file has since been replaced (an upgrade): the JSON
    /// between daemon and child is private to one build.
    public static let selfExecutable = "/proc/self/exe"
    /// How long a compile may take.
    public static let defaultTimeout = Timestamp.Duration.seconds(10)

    /// The compiler's arguments after the executable (`argv[1…]`).
    public static func arguments(configPath: String?) -> [String] {
        [argument] + (configPath.map { ["--config", $0] } ?? [])
    }

    /// Runs the compiler and returns the spec, or the error lines (each
    /// `file:line:col: error: …` for a config error; one line for a failure of the child).
    public static func load(executable: String, configPath: String?,
                            timeout: Timestamp.Duration = defaultTimeout) -> Result<LayoutSpec, ConfigChildErrors> {
        let what = configPath ?? "the config"
        let output: Output
        do {
            output = try run([executable] + arguments(configPath: configPath), timeout: timeout)
        } catch {
            return .failure(ConfigChildErrors(["\(what): error: cannot compile the config: \(error)"]))
        }
        let stderrLines = String(decoding: output.stderr, as: UTF8.self)
            .split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
        switch output.status {
        case .exited(0):
            do {
                return .success(try LayoutSpecJSON.parse(String(decoding: output.stdout, as: UTF8.self)))
            } catch {
                return .failure(ConfigChildErrors(["\(what): error: cannot read the compiler's answer: \(error)"]))
            }
        case .exited(1) where !stderrLines.isEmpty:
            return .failure(ConfigChildErrors(stderrLines))
        default:
            return .failure(ConfigChildErrors(["\(what): error: the config compiler (\(executable) \(argument)) \(output.status)"]
                                              + stderrLines))
        }
    }

    /// How the child ended.
    enum Status: CustomStringConvertible, Equatable {
        case exited(Int32)
        case signalled(Int32)
        case timedOut(Timestamp.Duration)

        init(waitStatus s: Int32) {
            self = s & 0x7f == 0 ? .exited((s >> 8) & 0xff) : .signalled(s & 0x7f)
        }

        var description: String {
            switch self {
            case .exited(let code): "exited with status \(code)"
            case .signalled(let sig): "was killed by signal \(sig)"
            case .timedOut(let d): "did not finish within \(d.microseconds / 1_000_000) s and was killed"
            }
        }
    }

    struct Output {
        var stdout: [UInt8] = []
        var stderr: [UInt8] = []
        var status: Status = .exited(0)
    }

    struct SystemError: Error, CustomStringConvertible {
        var call: String
        var errno: Int32
        var description: String { "\(call): \(String(cString: strerror(errno)))" }
    }

    /// Spawns `argv` (no shell, no `PATH` lookup) with stdin `/dev/null`, stdout and stderr to
    /// pipes, default signal handling, the daemon's environment minus systemd's variables, and
    /// collects both outputs and the exit status, blocking for at most `timeout`.
    static func run(_ argv: [String], timeout: Timestamp.Duration) throws(SystemError) -> Output {
        let deadline = MonotonicClock.now() + timeout
        var out: [Int32] = [-1, -1], err: [Int32] = [-1, -1]
        guard evroute_pipe2(&out, O_CLOEXEC) == 0 else { throw SystemError(call: "pipe2", errno: errno) }
        guard evroute_pipe2(&err, O_CLOEXEC) == 0 else {
            let e = errno
            close(out[0]); close(out[1])
            throw SystemError(call: "pipe2", errno: e)
        }
        let spawned = Spawn.start(argv, environment: ChildEnvironment.inherited(), stdin: nil, stdout: out[1],
                                  stderr: err[1], searchPath: false, newProcessGroup: false)
        close(out[1])
        close(err[1])
        let pid: pid_t
        switch spawned {
        case .success(let p): pid = p
        case .failure(let f):
            close(out[0]); close(err[0])
            throw SystemError(call: "posix_spawn \(argv[0])", errno: f.errno)
        }
        let pidfd = evroute_pidfd_open(pid)
        defer { if pidfd >= 0 { close(pidfd) } }

        var output = Output()
        var pipes: [(fd: Int32, isStdout: Bool)] = [(out[0], true), (err[0], false)]
        defer { for p in pipes { close(p.fd) } }
        var chunk = [UInt8](repeating: 0, count: 65536)
        // Both pipes to their end (the child exits right after), or until the deadline.
        while !pipes.isEmpty {
            let left = deadline - MonotonicClock.now()
            guard left.microseconds > 0 else { return killed(pid, after: timeout) }
            var fds = pipes.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
            let r = poll(&fds, nfds_t(fds.count), Int32(min(left.microseconds / 1000 + 1, 60_000)))
            if r < 0 {
                if errno == EINTR { continue }
                let e = errno
                _ = killed(pid, after: timeout)
                throw SystemError(call: "poll", errno: e)
            }
            var closed: [Int32] = []
            for (i, p) in fds.enumerated() where p.revents != 0 {
                let n = chunk.withUnsafeMutableBytes { read(p.fd, $0.baseAddress, $0.count) }
                if n > 0 {
                    if pipes[i].isStdout { output.stdout += chunk[0..<n] } else { output.stderr += chunk[0..<n] }
                } else if n == 0 || (errno != EINTR && errno != EAGAIN) {
                    closed.append(p.fd)
                }
            }
            for fd in closed {
                close(fd)
                pipes.removeAll { $0.fd == fd }
            }
        }
        // The child has closed its output: it is exiting. Wait for it, still within the deadline.
        var status: Int32 = 0
        if pidfd >= 0 {
            while true {
                let left = deadline - MonotonicClock.now()
                guard left.microseconds > 0 else { return killed(pid, after: timeout) }
                var p = pollfd(fd: pidfd, events: Int16(POLLIN), revents: 0)
                let r = poll(&p, 1, Int32(min(left.microseconds / 1000 + 1, 60_000)))
                if r > 0 { break }
                if r < 0 && errno != EINTR { break }
            }
        }
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { output.status = .exited(-1); return output }
        }
        output.status = Status(waitStatus: status)
        return output
    }

    /// Kills the child and reaps it.
    private static func killed(_ pid: pid_t, after timeout: Timestamp.Duration) -> Output {
        kill(pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        var output = Output()
        output.status = .timedOut(timeout)
        return output
    }
}

/// What went wrong loading the config in the child, one line each (config errors as
/// `file:line:col: error: …`).
public struct ConfigChildErrors: Error, Sendable, CustomStringConvertible {
    public var lines: [String]
    public init(_ lines: [String]) { self.lines = lines }
    public var description: String { lines.joined(separator: "\n") }
}
