#if canImport(Glibc)
import Glibc
#endif
import CLinux
import EvrouteCore

/// A child process spawned with `posix_spawn` (never `fork`: the Swift runtime is not
/// fork-safe), in its own process group, with a pidfd the event loop watches so that its
/// exit is noticed and reaped without SIGCHLD and without blocking.
final class ChildProcess {
    struct SpawnError: Error, CustomStringConvertible {
        var argv0: String
        var errno: Int32
        var description: String { "cannot run \(argv0): \(String(cString: strerror(errno)))" }
    }

    let pid: pid_t
    let argv: [String]
    let startTime: Timestamp
    /// The raw wait status once reaped.
    private(set) var exitStatus: Int32?
    private var pidfd: Int32
    private weak var loop: EventLoop?
    /// Called on the loop once the child has exited and been reaped.
    var onExit: ((ChildProcess) -> Void)?

    private init(pid: pid_t, pidfd: Int32, argv: [String], loop: EventLoop) {
        self.pid = pid
        self.pidfd = pidfd
        self.argv = argv
        self.loop = loop
        startTime = MonotonicClock.now()
    }

    /// Spawns `argv` (looked up in `PATH`) with `environment` ("NAME=value"), `stdin`
    /// (nil = /dev/null), `stdout` and `stderr` as its standard descriptors and nothing else
    /// open. Signals the daemon blocks or ignores are back to normal in the child.
    static func spawn(_ argv: [String], environment: [String], stdin: Int32?, stdout: Int32, stderr: Int32,
                      loop: EventLoop) throws(SpawnError) -> ChildProcess {
        let pid: pid_t
        switch Spawn.start(argv, environment: environment, stdin: stdin, stdout: stdout, stderr: stderr,
                           searchPath: true, newProcessGroup: true) {
        case .success(let p): pid = p
        case .failure(let f): throw SpawnError(argv0: argv[0], errno: f.errno)
        }

        let pidfd = evroute_pidfd_open(pid)
        let child = ChildProcess(pid: pid, pidfd: pidfd, argv: argv, loop: loop)
        if pidfd >= 0 {
            _ = fcntl(pidfd, F_SETFD, FD_CLOEXEC)
            do {
                try loop.watch(pidfd) { [weak child] _ in child?.reap() }
            } catch {
                child.closePidfd()
            }
        }
        return child
    }

    /// Whether it has not been reaped yet.
    var isRunning: Bool { exitStatus == nil }

    /// Sends `signal` to its process group (a shell's children too), or to it alone when the
    /// group is gone. Does nothing once it has been reaped (its pid may be reused).
    func signal(_ signal: Int32) {
        guard isRunning else { return }
        if kill(-pid, signal) != 0 { _ = kill(pid, signal) }
    }

    /// Collects the exit status if it has exited (never blocks). Returns whether it has.
    @discardableResult
    func reap() -> Bool {
        guard isRunning else { return true }
        var status: Int32 = 0
        let r = waitpid(pid, &status, WNOHANG)
        if r == 0 { return false }
        // r < 0 (ECHILD: someone else reaped it, or SIGCHLD is ignored): treat as gone.
        exitStatus = r == pid ? status : -1
        closePidfd()
        onExit?(self)
        onExit = nil
        return true
    }

    /// Waits up to `deadline` for it to exit (shutdown only: blocks the caller).
    func waitForExit(until deadline: Timestamp) {
        while isRunning {
            let remaining = deadline - MonotonicClock.now()
            if remaining.microseconds <= 0 { return }
            if pidfd >= 0 {
                var p = pollfd(fd: pidfd, events: Int16(POLLIN), revents: 0)
                _ = poll(&p, 1, Int32(max(1, remaining.microseconds / 1000)))
            } else {
                usleep(5_000)
            }
            reap()
        }
    }

    private func closePidfd() {
        guard pidfd >= 0 else { return }
        loop?.unwatch(pidfd)
        close(pidfd)
        pidfd = -1
    }

    /// "exited with status 3", "killed by signal 9".
    var exitDescription: String {
        guard let s = exitStatus else { return "running" }
        if s < 0 { return "exited (status unknown)" }
        let sig = s & 0x7f
        if sig == 0 { return "exited with status \((s >> 8) & 0xff)" }
        return "killed by signal \(sig)"
    }

    /// Exited normally with status 0.
    var exitedCleanly: Bool { exitStatus.map { $0 >= 0 && $0 & 0x7f == 0 && ($0 >> 8) & 0xff == 0 } ?? false }

    deinit { closePidfd() }
}

/// The environment children inherit: the daemon's, minus what only the daemon must see
/// (systemd's notify socket and watchdog, the journal stream its stderr is).
enum ChildEnvironment {
    static let withheld: Set<String> = ["NOTIFY_SOCKET", "WATCHDOG_PID", "WATCHDOG_USEC", "JOURNAL_STREAM", "LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES"]

    static func inherited() -> [String] {
        var out: [String] = []
        var p = environ
        while let entry = p.pointee {
            let s = String(cString: entry)
            let name = s.split(separator: "=", maxSplits: 1).first.map(String.init) ?? s
            if !withheld.contains(name) && !name.hasPrefix("EVROUTE_") { out.append(s) }
            p += 1
        }
        return out
    }
}

/// A pipe whose ends are close-on-exec; `nonBlockingRead`/`Write` pick the end(s) the
/// daemon keeps.
struct Pipe {
    let read: Int32
    let write: Int32

    static func make() throws(ChildProcess.SpawnError) -> Pipe {
        var fds: [Int32] = [-1, -1]
        guard evroute_pipe2(&fds, O_CLOEXEC) == 0 else { throw ChildProcess.SpawnError(argv0: "pipe", errno: errno) }
        return Pipe(read: fds[0], write: fds[1])
    }
}

/// Makes `fd` non-blocking.
func setNonBlocking(_ fd: Int32) {
    let flags = fcntl(fd, F_GETFL)
    _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
}
