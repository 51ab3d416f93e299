import Testing
import EvrouteChecks
#if canImport(Glibc)
import Glibc
#endif
@testable import EvrouteSystem
import EvrouteCore
import Synchronization

@Suite("Event loop")
struct EventLoopTests {
    @Test func readableDescriptorTimersAndSignals() throws {
        let loop = try EventLoop()
        var fds: [Int32] = [0, 0]
        expectEqual(pipe(&fds), 0)
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
        expectEqual(got, ["read 7", "signal \(SIGUSR1)"])
        // Three wakeups at most: timer (write), pipe readable, timer (kill) + signal, possibly merged.
        expect(loop.wakeups <= 4)
        close(fds[0]); close(fds[1])
    }

    /// Output waiting for the lazy flush goes out at the end of the first wake-up whose input
    /// time is past its deadline, and its timer is cancelled (no wake-up of its own); without an
    /// input time, the timer writes it.
    @Test(arguments: [true, false])
    func lazyFlushWritesAtTheFirstWakeupPastItsDeadlineByInputTime(withInputTime: Bool) throws {
        let loop = try EventLoop()
        var fds: [Int32] = [0, 0]
        expectEqual(pipe(&fds), 0)
        defer { close(fds[0]); close(fds[1]) }
        var pending = false
        var flushes = 0
        var inputTime = Timestamp(microseconds: 0)
        // Counted in wake-ups, not timed: the one that read the second byte, and the one that flushed.
        var secondByteWakeup = 0, flushWakeup = 0
        // The flush timer's deadline, armed when the first byte's output began to wait.
        var beganWaiting: Timestamp?, armedDeadline: Timestamp?
        try loop.watch(FileDescriptor(rawValue: fds[0])) { _ in
            var b: UInt8 = 0
            _ = read(fds[0], &b, 1)
            if b == 1 { beganWaiting = MonotonicClock.now() }
            pending = true
            // The second byte's input is "late": past any deadline the loop set.
            if b == 2 {
                inputTime = MonotonicClock.now() + .seconds(10)
                secondByteWakeup = loop.wakeups
                armedDeadline = loop.nextDeadline
            }
        }
        loop.lazyFlush = EventLoop.LazyFlush(delay: .milliseconds(300), pending: { pending }, flush: {
            pending = false
            flushes += 1
            flushWakeup = loop.wakeups
            loop.stop()
        })
        // What the pipeline does for live input (OutputFlush): write early by the input's time.
        if withInputTime {
            loop.addEndOfWakeupHook {
                if let earliest = loop.lazyFlushEarliest, inputTime >= earliest { loop.flushLazyOutput() }
            }
        }
        var one: UInt8 = 1
        _ = write(fds[1], &one, 1)
        loop.schedule(after: .milliseconds(20)) { var two: UInt8 = 2; _ = write(fds[1], &two, 1) }
        loop.run()
        expectEqual(flushes, 1)
        // The wait is the loop's timer, 300 ms after the output began to wait (the first byte).
        let began = try #require(beganWaiting), armed = try #require(armedDeadline, "no timer armed for the waiting output")
        expect(armed - began >= .milliseconds(300), "armed \((armed - began).microseconds) µs after the output began to wait")
        expect(secondByteWakeup > 0)
        if withInputTime {
            // Written at the second byte's wake-up (~20 ms), not at the timer (300 ms), which was
            // cancelled: nothing wakes the loop afterwards.
            expectEqual(flushWakeup, secondByteWakeup)
            let wakeups = loop.wakeups
            loop.schedule(after: .milliseconds(400)) { loop.stop() }
            loop.run()
            expectEqual(loop.wakeups, wakeups + 1)
            expectEqual(flushes, 1)
        } else {
            // Written by the timer: a wake-up of its own, after the second byte's.
            expect(flushWakeup > secondByteWakeup)
        }
    }

    /// A watcher that reads one byte per wake-up and counts them.
    final class ByteWatcher: EventLoop.Watcher {
        let fd: Int32
        var bytes: [UInt8] = []
        var onReady: (() -> Void)?
        init(fd: Int32) { self.fd = fd }
        override func ready(_ readiness: EventLoop.Readiness) {
            var b: UInt8 = 0
            if read(fd, &b, 1) == 1 { bytes.append(b) }
            onReady?()
        }
    }

    /// A ``EventLoop/Watcher`` is told of its descriptor directly; one unwatched (and freed) by
    /// an earlier callback of the same wake-up is not called for events the wake-up still holds.
    @Test func watchersAreCalledDirectlyAndNotAfterTheyAreUnwatchedInTheSameWakeup() throws {
        let loop = try EventLoop()
        var a: [Int32] = [0, 0], b: [Int32] = [0, 0]
        expectEqual(pipe(&a), 0)
        expectEqual(pipe(&b), 0)
        defer { close(a[0]); close(a[1]); close(b[0]); close(b[1]) }
        var first: ByteWatcher? = ByteWatcher(fd: a[0])
        var second: ByteWatcher? = ByteWatcher(fd: b[0])
        weak let firstGone = first, secondGone = second
        try loop.watch(FileDescriptor(rawValue: a[0]), by: first!)
        try loop.watch(FileDescriptor(rawValue: b[0]), by: second!)
        expect(loop.isWatching(FileDescriptor(rawValue: a[0])))
        // Whichever is called first unwatches and frees the other; the loop stops after the wake-up.
        loop.addEndOfWakeupHook { loop.stop() }
        var calls = 0
        let both: () -> Void = {
            calls += 1
            if let f = first, !f.bytes.isEmpty, second != nil {
                loop.unwatch(FileDescriptor(rawValue: b[0]))
                second = nil
            } else if let s = second, !s.bytes.isEmpty, first != nil {
                loop.unwatch(FileDescriptor(rawValue: a[0]))
                first = nil
            }
        }
        first?.onReady = both
        second?.onReady = both
        var one: UInt8 = 1, two: UInt8 = 2
        _ = write(a[1], &one, 1)
        _ = write(b[1], &two, 1)
        loop.run()
        // Both were ready in one wake-up; the second event of the batch was dropped.
        expectEqual(calls, 1)
        expect((firstGone == nil) != (secondGone == nil))
        expectEqual(loop.wakeups, 1)
        // The one left is still watched and called on the next wake-up.
        let left = first ?? second!
        let leftWrite = left === first ? a[1] : b[1]
        left.onReady = nil
        var three: UInt8 = 3
        _ = write(leftWrite, &three, 1)
        loop.run()
        expectEqual(left.bytes.last, 3)
        loop.unwatch(FileDescriptor(rawValue: left.fd))
        expect(!loop.isWatching(FileDescriptor(rawValue: left.fd)))
    }
}

/// ``BackgroundJob``: work on a thread of its own, its result back on the loop.
@Suite("Background job")
struct BackgroundJobTests {
    /// What the job's thread saw of itself.
    struct ThreadFacts: Sendable {
        var thread: pthread_t
        var blocked: [Int32]
        var name: String
        var waited: UInt8
    }

    /// Reads one byte from `fd` (blocking): the work cannot end before the loop has written it.
    static func readByte(_ fd: Int32) -> UInt8 {
        var b: UInt8 = 0
        while read(fd, &b, 1) < 0 && errno == EINTR {}
        return b
    }

    static func facts(waitingOn fd: Int32) -> ThreadFacts {
        var mask = sigset_t()
        pthread_sigmask(SIG_BLOCK, nil, &mask)
        let blocked = [SIGTERM, SIGINT, SIGHUP, SIGCHLD, SIGUSR1, SIGPIPE].filter { sigismember(&mask, $0) == 1 }
        let name = (try? SystemCall.readFile("/proc/thread-self/comm")).map { String(decoding: $0, as: UTF8.self) } ?? "?"
        return ThreadFacts(thread: pthread_self(), blocked: blocked, name: name, waited: readByte(fd))
    }

    @Test func theWorkRunsOnItsOwnThreadWhileTheLoopRunsAndItsResultComesBackOnTheLoop() throws {
        let loop = try EventLoop()
        var fds: [Int32] = [0, 0]
        expectEqual(pipe(&fds), 0)
        defer { close(fds[0]); close(fds[1]) }
        let input = fds[0]
        var order: [String] = []
        var result: ThreadFacts?
        var completionThread: pthread_t?
        let job = try BackgroundJob(loop: loop, name: "evroute-test-job", work: { Self.facts(waitingOn: input) }) { facts in
            order.append("completion")
            result = facts
            completionThread = pthread_self()
            loop.stop()
        }
        expect(job.isRunning)
        // The work waits for this byte, which only the running loop writes.
        loop.schedule(after: .milliseconds(10)) {
            order.append("loop timer")
            var b: UInt8 = 42
            _ = write(fds[1], &b, 1)
        }
        let guardTimer = loop.schedule(after: .seconds(20)) { order.append("timeout"); loop.stop() }
        loop.run()
        loop.cancel(guardTimer)
        expectEqual(order, ["loop timer", "completion"])
        expect(!job.isRunning)
        let facts = try #require(result)
        expectEqual(facts.waited, 42)
        expectEqual(completionThread.map { pthread_equal($0, pthread_self()) != 0 }, true, "the completion runs on the loop's thread")
        expectEqual(pthread_equal(facts.thread, pthread_self()), 0, "the work ran on another thread")
        expectEqual(facts.blocked, [SIGTERM, SIGINT, SIGHUP, SIGCHLD, SIGUSR1, SIGPIPE], "every signal is blocked there")
        expectEqual(facts.name, "evroute-test-jo\n", "the thread's name, cut to 15 bytes")
    }

    /// Writes a byte to `fd` when released: the job's thread lets go of its work (and so of
    /// this) only after it has handed the result over.
    final class Sentinel: Sendable {
        let fd: Int32
        init(fd: Int32) { self.fd = fd }
        deinit { var one: UInt8 = 1; _ = write(fd, &one, 1) }
    }

    /// Where ``Tracked``'s deinit ran.
    final class Seen: Sendable {
        let thread = Mutex<pthread_t?>(nil)
    }

    /// Notes the thread its deinit runs on.
    final class Tracked: Sendable {
        let seen: Seen
        init(_ seen: Seen) { self.seen = seen }
        deinit { seen.thread.withLock { $0 = pthread_self() } }
    }

    @Test func releaseLetsTheLastReferenceGoOnItsOwnThreadThenTellsTheLoop() throws {
        let loop = try EventLoop()
        let seen = Seen()
        var object: Tracked? = Tracked(seen)
        var doneOnLoop: Bool?
        let job = BackgroundJob.release(&object, loop: loop) {
            doneOnLoop = seen.thread.withLock { $0 } != nil
            loop.stop()
        }
        expect(object == nil)
        expect(job != nil)
        let guardTimer = loop.schedule(after: .seconds(20)) { loop.stop() }
        loop.run()
        loop.cancel(guardTimer)
        expectEqual(doneOnLoop, true, "done runs on the loop after the object was freed")
        let freedOn = try #require(seen.thread.withLock { $0 })
        expectEqual(pthread_equal(freedOn, pthread_self()), 0, "freed on the job's thread, not the loop's")
    }

    @Test func aCancelledJobsResultIsDropped() throws {
        let loop = try EventLoop()
        var fds: [Int32] = [0, 0], done: [Int32] = [0, 0]
        expect(pipe(&fds) == 0 && pipe(&done) == 0)
        defer { close(fds[0]); close(fds[1]); close(done[0]); close(done[1]) }
        let input = fds[0]
        var completions = 0
        // Held only by the work, so released when the thread lets go of it.
        let job = try BackgroundJob(loop: loop, name: "cancelled", work: { [sentinel = Sentinel(fd: done[1])] () -> Int in
            _ = sentinel
            return Int(Self.readByte(input))
        }) { _ in completions += 1 }
        job.cancel()
        expect(!job.isRunning)
        // Let the work end; once `done` is readable the result has been handed over, and the
        // loop turn that sees `done` would see the handoff too, were it still watched.
        var b: UInt8 = 7
        _ = write(fds[1], &b, 1)
        try loop.watch(FileDescriptor(rawValue: done[0])) { _ in
            _ = Self.readByte(done[0])
            loop.unwatch(FileDescriptor(rawValue: done[0]))
            loop.schedule(after: .milliseconds(1)) { loop.stop() }
        }
        let guardTimer = loop.schedule(after: .seconds(20)) { loop.stop() }
        loop.run()
        loop.cancel(guardTimer)
        expectEqual(completions, 0)
    }
}
