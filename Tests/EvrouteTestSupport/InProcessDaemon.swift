#if canImport(Glibc)
import Glibc
#endif
import EvrouteDaemon
import EvrouteSystem
import EvrouteCore
import EvrouteInput

/// The evroute daemon run inside the test process: ``Daemon/run(options:log:)`` on a thread of
/// its own with its own event loop, exactly as the `evroute` binary runs it (the same config
/// reading, components, control socket, plugin sockets and stop), without a process to spawn.
/// Its log goes to a file (``log``); the test talks to it over its real sockets and stops it
/// with a real signal sent to its thread (``signal(_:)``: the daemon's thread blocks its
/// signals and takes them through its signalfd, which reads those sent to that thread).
///
/// What stays with the binary: exit codes of the command line, signals sent to a process, the
/// systemd environment (`$NOTIFY_SOCKET` is the process's), resource limits.
public final class InProcessDaemon: @unchecked Sendable {
    public let logPath: String
    private var thread = pthread_t()
    /// Written with the exit status's byte when `run` returns.
    private let done: (read: Int32, write: Int32)
    private var status: Int32?

    /// Starts the daemon with `options`; its log (at `options.logLevel`) goes to `logPath`.
    public init(_ options: DaemonOptions, logPath: String) throws {
        self.logPath = logPath
        KeyNames.useLibevdev()  // as the binary does at start
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw TestSupportError("pipe: \(String(cString: strerror(errno)))") }
        done = (fds[0], fds[1])
        let logFD = open(logPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard logFD >= 0 else { throw TestSupportError("open \(logPath): \(String(cString: strerror(errno)))") }
        let write = done.write
        let body = Box {
            let status = Daemon.run(options: options, log: Log(threshold: options.logLevel, fd: logFD))
            close(logFD)
            var byte = UInt8(truncatingIfNeeded: status)
            _ = Glibc.write(write, &byte, 1)
        }
        let made = pthread_create(&thread, nil, { raw in
            let body = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
            body.run()
            return nil
        }, Unmanaged.passRetained(body).toOpaque())
        guard made == 0 else { throw TestSupportError("pthread_create: \(made)") }
    }

    deinit {
        if status == nil {
            signal(SIGTERM)
            _ = waitForExit(seconds: 20)
        }
        if status != nil { pthread_join(thread, nil) } else { pthread_detach(thread) }
        close(done.read)
        close(done.write)
    }

    private final class Box {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }

    /// Sends `s` (SIGTERM, SIGINT, SIGHUP) to the daemon's thread.
    public func signal(_ s: Int32) {
        if status == nil { pthread_kill(thread, s) }
    }

    /// The exit status ``Daemon/run(options:log:)`` returned, once it has, waiting at most
    /// `seconds`; nil while it runs.
    public func waitForExit(seconds: Double) -> Int32? {
        if let status { return status }
        guard waitReadable(done.read, until: monotonicSeconds() + seconds) else { return nil }
        var byte: UInt8 = 0
        guard read(done.read, &byte, 1) == 1 else { return nil }
        status = Int32(byte)
        return status
    }

    /// Whether it still runs.
    public var isRunning: Bool { waitForExit(seconds: 0) == nil }

    /// Waits until the log has `text` (at most `seconds`); whether it has.
    public func waitForLog(_ text: String, seconds: Double = 20) -> Bool {
        let deadline = monotonicSeconds() + seconds
        while !log.contains(text) {
            if monotonicSeconds() >= deadline || !isRunning { return log.contains(text) }
            usleep(2_000)
        }
        return true
    }

    /// The log so far.
    public var log: String { readFile(logPath) ?? "" }
}
