#if canImport(Glibc)
import Glibc
#endif
import CLinux
import EvrouteTime

/// A child process spawned with `posix_spawn` (never `fork`: the Swift runtime is not
/// fork-safe), in its own process group, with a pidfd the event loop watches so that its
/// exit is noticed and reaped without SIGCHLD and without blocking.
public final class ChildProcess {
    public let pid: pid_t
    public let argv: [String]
    public let startTime: Timestamp
    /// The raw wait status once reaped.
    public private(set) var exitStatus: Int32?
    private var pidfd: FileDescriptor
    private weak var loop: EventLoop?
    /// Called on the loop once the child has exited and been reaped.
    public var onExit: ((ChildProcess) -> Void)?
    /// When the child exits, whatever is left of its process group (background children it
    /// started) is killed (SIGKILL) before the child is reaped — while the exited leader is
    /// still a zombie, so the group id cannot have been reused by then.
    public let killsGroupOnExit: Bool
    /// Processes of its group still there when it exited, and killed then.
    public private(set) var killedLeftovers = false

    private init(pid: pid_t, pidfd: FileDescriptor, argv: [String], loop: EventLoop, killsGroupOnExit: Bool) {
        self.pid = pid
        self.pidfd = pidfd
        self.argv = argv
        self.loop = loop
        self.killsGroupOnExit = killsGroupOnExit
        startTime = MonotonicClock.now()
    }

    /// Spawns `argv` (looked up in `PATH`) with `environment` ("NAME=value"), `stdin`
    /// (nil = /dev/null), `stdout` and `stderr` as its standard descriptors and nothing else
    /// open. Signals the daemon blocks or ignores are back to normal in the child.
    /// A failure is a ``SystemError`` of the call `posix_spawn` on `argv[0]`. `killsGroupOnExit`:
    /// see ``killsGroupOnExit`` (long-running helpers; a command may leave work behind on purpose).
    public static func spawn(_ argv: [String], environment: [String], stdin: FileDescriptor?, stdout: FileDescriptor,
                             stderr: FileDescriptor, loop: EventLoop, killsGroupOnExit: Bool = false) throws(SystemError) -> ChildProcess {
        let pid = try Spawn.start(argv, environment: environment, stdin: stdin, stdout: stdout, stderr: stderr,
                                  searchPath: true, newProcessGroup: true).get()

        let pidfd = FileDescriptor(rawValue: evroute_pidfd_open(pid))
        let child = ChildProcess(pid: pid, pidfd: pidfd, argv: argv, loop: loop, killsGroupOnExit: killsGroupOnExit)
        if pidfd.isValid {
            _ = fcntl(pidfd.rawValue, F_SETFD, FD_CLOEXEC)
            do {
                try loop.watch(pidfd) { [weak child] _ in child?.reap() }
            } catch {
                child.closePidfd()
            }
        }
        return child
    }

    /// Whether it has not been reaped yet.
    public var isRunning: Bool { exitStatus == nil }

    /// Sends `signal` to its process group (a shell's children too), or to it alone when the
    /// group is gone. Does nothing once it has been reaped (its pid may be reused).
    public func signal(_ signal: Int32) {
        guard isRunning else { return }
        if kill(-pid, signal) != 0 { _ = kill(pid, signal) }
    }

    /// Collects the exit status if it has exited (never blocks). Returns whether it has.
    @discardableResult
    public func reap() -> Bool {
        guard isRunning else { return true }
        if killsGroupOnExit, evroute_child_exited(pid) != 0, kill(-pid, SIGKILL) == 0 { killedLeftovers = true }
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
    public func waitForExit(until deadline: Timestamp) {
        while isRunning {
            let remaining = deadline - MonotonicClock.now()
            if remaining.microseconds <= 0 { return }
            if pidfd.isValid {
                _ = try? SystemCall.waitReadable(pidfd, timeout: Int32(min(max(1, remaining.microseconds / 1000), 60_000)))
            } else {
                usleep(5_000)
            }
            reap()
        }
    }

    private func closePidfd() {
        guard pidfd.isValid else { return }
        loop?.unwatch(pidfd)
        try? SystemCall.close(pidfd)
        pidfd = .invalid
    }

    /// "exited with status 3", "killed by signal 9".
    public var exitDescription: String {
        guard let s = exitStatus else { return "running" }
        if s < 0 { return "exited (status unknown)" }
        let sig = s & 0x7f
        if sig == 0 { return "exited with status \((s >> 8) & 0xff)" }
        return "killed by signal \(sig)"
    }

    /// Exited normally with status 0.
    public var exitedCleanly: Bool { exitStatus.map { $0 >= 0 && $0 & 0x7f == 0 && ($0 >> 8) & 0xff == 0 } ?? false }

    deinit { closePidfd() }
}

/// The environment children inherit: the daemon's, minus what only the daemon must see
/// (systemd's notify socket and watchdog, the journal stream its stderr is).
public enum ChildEnvironment {
    public static let withheld: Set<String> = ["NOTIFY_SOCKET", "WATCHDOG_PID", "WATCHDOG_USEC", "JOURNAL_STREAM", "LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES"]

    public static func inherited() -> [String] {
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
public struct Pipe {
    public let read: FileDescriptor
    public let write: FileDescriptor

    public static func make() throws(SystemError) -> Pipe {
        var fds: [Int32] = [-1, -1]
        _ = try SystemCall.retryingInterrupts("pipe2", path: nil) { evroute_pipe2(&fds, O_CLOEXEC) }
        return Pipe(read: FileDescriptor(rawValue: fds[0]), write: FileDescriptor(rawValue: fds[1]))
    }
}
