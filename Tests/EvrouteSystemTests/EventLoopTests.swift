import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import EvrouteSystem
import EvrouteCore

@Suite("Event loop")
struct EventLoopTests {
    @Test func readableDescriptorTimersAndSignals() throws {
        let loop = try EventLoop()
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        var got: [String] = []
        try loop.watch(FileDescriptor(rawValue: fds[0])) { _ in
            var b: UInt8 = 0
            _ = read(fds[0], &b, 1)
            got.append("read \(b)")
        }
        loop.schedule(after: .milliseconds(5)) { var b: UInt8 = 7; _ = write(fds[1], &b, 1) }
        let late = loop.schedule(after: .milliseconds(1)) { got.append("cancelled timer fired") }
        loop.cancel(late)
        let thread = pthread_self()
        loop.schedule(after: .milliseconds(20)) { pthread_kill(thread, SIGUSR1) }
        try loop.handleSignals([SIGUSR1]) { sig in got.append("signal \(sig)"); loop.stop() }
        loop.run()
        #expect(got == ["read 7", "signal \(SIGUSR1)"])
        // Three wakeups at most: timer (write), pipe readable, timer (kill) + signal, possibly merged.
        #expect(loop.wakeups <= 4)
        close(fds[0]); close(fds[1])
    }
}
