#if canImport(Glibc)
import Glibc
#endif
import CLinux
import EvrouteTime
import Synchronization

/// Pure work that would stall the event loop (the daemon reading and compiling a large config on
/// reload), run on a thread of its own; its result comes back to the loop through an eventfd the
/// loop watches, and `completion` runs on the loop like any other callback. There is still one
/// loop: the thread only computes and hands back one value.
///
/// The rules for `work`: it is `@Sendable`, so the compiler refuses it any loop-owned state
/// (the router, plugins, the log, connections); it reads files and computes. Its thread starts
/// with every signal blocked (a signal meant for the loop's signalfd can never land on it) and
/// ends when `work` returns. The thread is detached: nothing ever waits for it. ``cancel()``
/// only drops the result (and the loop stops watching for it); a cancelled job's thread runs
/// on to its end, or is ended with the process.
///
/// ```swift
/// job = try BackgroundJob(loop: loop, name: "evroute-config", work: { compile(path) }) { result in
///     swap(result)      // on the loop
/// }
/// ```
///
/// Why one thread per job and not one long-lived worker: a job is rare (a reload) and long (up
/// to about a second); a thread costs tens of microseconds to start, and none is left idle
/// between jobs — no idle thread to wake, no queue or condition variable to get right, nothing to
/// stop at exit.
public final class BackgroundJob<Output: Sendable> {
    /// The result's way back: the eventfd (closed when neither side holds this any more) and
    /// the result under a lock.
    private final class Handoff: Sendable {
        let fd: FileDescriptor
        let result = Mutex<Output?>(nil)

        init(fd: FileDescriptor) { self.fd = fd }
        deinit { try? SystemCall.close(fd) }

        /// On the worker thread: stores the result and wakes the loop.
        func deliver(_ output: Output) {
            result.withLock { $0 = output }
            var one: UInt64 = 1
            while write(fd.rawValue, &one, 8) < 0 && errno == EINTR {}
        }
    }

    private let loop: EventLoop
    private let handoff: Handoff
    private var completion: ((Output) -> Void)?
    /// True from the start until `completion` has been called or the job was cancelled.
    public private(set) var isRunning = true
    /// When the job started (the loop's clock).
    public let started: Timestamp

    /// Starts `work` on a new thread named `name` (at most 15 bytes are shown by `ps -L`); when it
    /// returns, `completion` gets its result on `loop`. Throws when no eventfd or thread can be
    /// had (`EMFILE`, `EAGAIN`: the process's task limit); nothing runs then.
    public init(loop: EventLoop, name: String, work: @escaping @Sendable () -> Output,
                completion: @escaping (Output) -> Void) throws(SystemError) {
        self.loop = loop
        self.completion = completion
        started = MonotonicClock.now()
        let fd = FileDescriptor(rawValue: try SystemCall.retryingInterrupts("eventfd", path: nil) { evroute_eventfd() })
        let handoff = Handoff(fd: fd)
        self.handoff = handoff
        try loop.watch(fd) { [weak self] _ in self?.collect() }

        let start = Unmanaged.passRetained(BackgroundThreadStart(name: name) { handoff.deliver(work()) })
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        // The main thread's usual stack: the config reader recurses at most 256 nesting levels.
        pthread_attr_setstacksize(&attributes, 8 << 20)
        // Every signal blocked while the thread is created, so it starts (and stays) with all of
        // them blocked; the caller's mask is put back right after.
        var all = sigset_t(), previous = sigset_t()
        sigfillset(&all)
        pthread_sigmask(SIG_SETMASK, &all, &previous)
        var thread = pthread_t()
        let rc = pthread_create(&thread, &attributes, { raw in
            let start = Unmanaged<BackgroundThreadStart>.fromOpaque(raw!).takeRetainedValue()
            evroute_name_this_thread(start.name)
            start.body()
            return nil
        }, start.toOpaque())
        pthread_sigmask(SIG_SETMASK, &previous, nil)
        if rc != 0 {
            start.release()
            loop.unwatch(fd)
            isRunning = false
            self.completion = nil
            throw SystemError(errno: rc, call: "pthread_create")
        }
    }

    deinit { if isRunning { loop.unwatch(handoff.fd) } }

    /// Drops the result: `completion` is not called, the loop stops watching. The thread is not
    /// stopped (pure work has nothing to undo); it ends when its work returns, or with the process.
    public func cancel() {
        guard isRunning else { return }
        isRunning = false
        completion = nil
        loop.unwatch(handoff.fd)
    }

    /// On the loop, when the eventfd is readable: the result to `completion`.
    private func collect() {
        var count: UInt64 = 0
        _ = read(handoff.fd.rawValue, &count, 8)
        guard isRunning, let output = handoff.result.withLock({ $0.take() }) else { return }
        isRunning = false
        loop.unwatch(handoff.fd)
        let completion = self.completion
        self.completion = nil
        completion?(output)
    }
}

/// What a ``BackgroundJob``'s thread runs, passed through `pthread_create`'s one pointer (not
/// generic: a C function pointer cannot capture generic context).
private final class BackgroundThreadStart: Sendable {
    let name: String
    let body: @Sendable () -> Void
    init(name: String, body: @escaping @Sendable () -> Void) {
        self.name = name
        self.body = body
    }
}

extension BackgroundJob where Output == Void {
    /// Lets `object` go on a thread of its own: `object` is set to nil here, and the reference
    /// that was in it is dropped on the new thread, so if it was the last one, the object and
    /// everything only it holds are freed there, not on the loop (the daemon's replaced layout:
    /// freeing a large one is a visible pause; docs/performance.md). `done` runs on the loop afterwards, while the
    /// returned job is kept. Without a thread to be had, the object is let go here, `done` is
    /// called at once, and the result is nil.
    public static func release<Object: AnyObject & Sendable>(_ object: inout Object?, loop: EventLoop,
                                                             done: @escaping () -> Void) -> BackgroundJob<Void>? {
        let box = ReleaseBox<Object>()
        box.object = object
        object = nil
        do {
            return try BackgroundJob(loop: loop, name: "evroute-release", work: { box.drop() }) { _ in done() }
        } catch {
            box.drop()
            done()
            return nil
        }
    }
}

/// The one reference ``BackgroundJob/release(_:loop:)`` hands to its thread. Only that thread
/// touches it once the thread is started (the loop drops its own reference to the box too).
private final class ReleaseBox<Object: AnyObject & Sendable>: @unchecked Sendable {
    var object: Object?
    func drop() { object = nil }
}
