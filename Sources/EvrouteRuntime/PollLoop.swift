#if canImport(Glibc)
import Glibc
#endif

/// A minimal blocking wait on file descriptors with SIGINT/SIGTERM as stop requests,
/// for the foreground `--dry-run` on live devices. It sleeps in poll(2) until a descriptor is
/// readable or a signal arrives: no timers, no polling.
final class PollLoop {
    nonisolated(unsafe) static var stopRequested = false

    init() throws {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in PollLoop.stopRequested = true }
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0   // no SA_RESTART: poll returns EINTR on a signal
        sigaction(SIGINT, &action, nil)
        sigaction(SIGTERM, &action, nil)
    }

    /// Blocks until some of `fds` are readable (or a signal); returns the readable ones.
    func wait(on fds: [Int32]) -> [Int32] {
        var pfds = fds.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        let n = poll(&pfds, nfds_t(pfds.count), -1)
        guard n > 0 else { return [] }
        return pfds.filter { $0.revents != 0 }.map(\.fd)
    }
}
