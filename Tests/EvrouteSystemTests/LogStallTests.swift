import Testing
import EvrouteChecks
#if canImport(Glibc)
import Glibc
#endif
import CLinux
@testable import EvrouteSystem
import EvrouteCore
import EvrouteTestSupport

/// `F_SETPIPE_SZ` (linux/fcntl.h: 1024 + 7), not exported by Glibc's module.
let setPipeSize: Int32 = 1031

/// The log's reader stalls (journald stuck, a paused terminal, `| less`): a real pipe whose
/// reader does not read. The loop goes on, and once the reader reads again the backlog and one
/// drop notice come out.
@Suite("Log: a stalled reader", .serialized)
struct LogStallTests {
    @Test("the loop keeps running while the log's pipe is full; once read again, the backlog and one drop notice with the count")
    func loopGoesOnAndTheDropIsReported() throws {
        var fds: [Int32] = [0, 0]
        try #require(evroute_pipe2(&fds, O_CLOEXEC) == 0)
        defer { close(fds[0]); close(fds[1]) }
        _ = fcntl(fds[1], setPipeSize, 4096)   // a page: full after ~80 lines

        // A guard, not the reader: should the log block (the defect), this child starts reading
        // the pipe after 60 s so the test ends (failing, by its mark) instead of hanging.
        let mark = temporaryPath("evroute-log-stall-rescued")
        unlink(mark)
        defer { unlink(mark) }
        let devNull = FileDescriptor(rawValue: open("/dev/null", O_WRONLY | O_CLOEXEC))
        defer { close(devNull.rawValue) }
        let rescuer = try Spawn.start(["/bin/sh", "-c", "sleep 60; : > \(mark); exec cat > /dev/null"], environment: [],
                                      stdin: FileDescriptor(rawValue: fds[0]), stdout: devNull, stderr: devNull,
                                      searchPath: true, newProcessGroup: true).get()

        let loop = try EventLoop()
        let log = Log(threshold: .info, fd: fds[1], maximumBacklog: 8192)
        log.writeWithoutWaiting()
        log.buffered = true
        log.watchWritability(in: loop)
        loop.lazyFlush = EventLoop.LazyFlush(delay: .milliseconds(20), pending: { log.hasPending }, flush: { log.flush() })

        // Timers log 20 × 100 info lines (flushed at each tick) and a warning each (written at
        // once): ~100 KB into a 4 KB pipe nobody reads.
        var ticks = 0, logged = 0
        func tick() {
            ticks += 1
            for _ in 0..<100 {
                logged += 1
                log.info("line \(logged) xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx")
            }
            log.flush()
            logged += 1
            log.warning("tick \(ticks)")
            if ticks == 20 { loop.stop() } else { loop.schedule(after: .milliseconds(1)) { tick() } }
        }
        loop.schedule(after: .milliseconds(1)) { tick() }
        loop.run()
        kill(-rescuer, SIGKILL)
        var status: Int32 = 0
        _ = waitpid(rescuer, &status, 0)
        expectEqual(ticks, 20)
        expect(access(mark, F_OK) != 0, "the log blocked the loop until a reader came")
        var queued: Int32 = 0
        _ = ioctl(fds[0], UInt(FIONREAD), &queued)
        expectEqual(queued, 4096, "the pipe is full: the log had more to write than its reader took")
        expect(log.droppedLines > 0)

        // The reader is back: the loop reads the pipe; the log writes its backlog as the pipe
        // takes it (the loop reports it writable), then the notice.
        let notice = Array("dropped while stderr was not being read\n".utf8)
        var received: [UInt8] = []
        try loop.watch(FileDescriptor(rawValue: fds[0])) { _ in
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = read(fds[0], &chunk, chunk.count)
            if n > 0 { received += chunk[0..<n] }
            if received.count >= notice.count && Array(received.suffix(notice.count)) == notice { loop.stop() }
        }
        loop.schedule(after: .seconds(30)) { loop.stop() }   // a guard only
        loop.run()

        let lines = String(decoding: received, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        let notices = lines.filter { $0.hasSuffix("log lines dropped while stderr was not being read") }
        try #require(notices.count == 1, "\(lines.suffix(3))")
        expectEqual(notices[0], lines.last!, "the notice follows the backlog")
        expect(notices[0].hasPrefix("evroute: warning: "))
        let dropped = Int(notices[0].split(separator: " ")[2]) ?? -1
        expectEqual(log.droppedLines, 0)
        // Every line logged either came out whole or was counted.
        expect(lines.allSatisfy { $0.hasPrefix("evroute: info: line ") || $0.hasPrefix("evroute: warning: ") })
        expectEqual(lines.count - 1 + dropped, logged, "\(lines.count - 1) written + \(dropped) dropped of \(logged)")
    }
}
