#if canImport(Glibc)
import Glibc
#endif
import CLinux
import EvrouteTime

/// evroute's one event loop (the daemon's and a live `--dry-run`'s): epoll over file
/// descriptors, signals through signalfd, and timers through one timerfd armed for the
/// earliest deadline (`CLOCK_MONOTONIC`, ``MonotonicClock``). It blocks in `epoll_wait` until
/// something happens: with no ready descriptor and no timer due, an idle process makes no
/// system calls. Single-threaded: every callback runs on the thread that called ``run()``. Work
/// too long to run here (a reload's config compile) runs on a ``BackgroundJob`` thread, whose
/// result comes back as one more watched descriptor (an eventfd).
public final class EventLoop {
    /// What a watched descriptor is ready for.
    public struct Readiness: OptionSet, Sendable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        public static let readable = Readiness(rawValue: evroute_epollin)
        public static let writable = Readiness(rawValue: evroute_epollout)
        /// Hang-up or error: the peer is gone.
        public static let hangup = Readiness(rawValue: evroute_epollhup | evroute_epollerr | evroute_epollrdhup)
        /// Asked for with ``readable``: the callback runs when new data arrives, not while data
        /// waits (`EPOLLET`), so it must read everything there is each time. It spares each
        /// wakeup the kernel's second look at the descriptor (a level-triggered descriptor is
        /// polled again on the next `epoll_wait`).
        public static let edgeTriggered = Readiness(rawValue: evroute_epollet)
    }

    /// The owner of a watched descriptor, told of its wake-ups directly (``watch(_:for:by:)``):
    /// one call from the loop into the owner, no closure (the live input path's devices). The
    /// loop keeps the watcher while its descriptor is watched.
    open class Watcher {
        public init() {}
        /// The descriptor is ready (hang-up included).
        open func ready(_ readiness: Readiness) {}
    }

    /// Identifies a timer for cancellation.
    public struct TimerID: Hashable, Sendable { let raw: Int }

    private let epfd: FileDescriptor
    private let timerfd: FileDescriptor
    private var signalfd = FileDescriptor.invalid
    /// Who is told when a watched descriptor is ready: a callback, or a ``Watcher``.
    private enum Watch {
        case callback((Readiness) -> Void)
        case watcher(Watcher)
    }
    /// What each watched descriptor is watched by, indexed by its number (descriptors are small
    /// integers: a wake-up finds its callback without hashing).
    private var watches: [Watch?] = []
    /// The wake-up being dispatched: its events, and the index of the next one to dispatch
    /// (``unwatch(_:)`` voids the rest of a batch's events for the descriptor it unwatches).
    private var batch: (events: UnsafeMutablePointer<epoll_event>, next: Int, count: Int)?
    private var signalHandlers: [Int32: (Int32) -> Void] = [:]
    private var signalMask = sigset_t()
    private var timers: [(deadline: Timestamp, id: Int, fire: () -> Void)] = []
    private var armedDeadline: Timestamp?
    private var nextTimerID = 1
    private var stopping = false
    /// What runs at the end of each wake-up, after its callbacks, in the order added: each
    /// component that queues work during a wake-up registers its own (a plugin host's frame
    /// writes, a trace's flush, the session timer following what was routed, the early flush of
    /// waiting output), so each sink writes once per wake-up. They last as long as the loop.
    private var endOfWakeupHooks: [() -> Void] = []
    /// How many of ``endOfWakeupHooks`` lead (added with `first`).
    private var leadingHooks = 0

    /// Adds `hook` to the end-of-wake-up hooks (run after those added before it). Components add
    /// theirs once, when they start. `first`: output another process waits on (the frames of a
    /// virtual device): run before every hook added without it, so that nothing of the loop's
    /// own comes between the wake-up's input and that write.
    public func addEndOfWakeupHook(first: Bool = false, _ hook: @escaping () -> Void) {
        if first {
            endOfWakeupHooks.insert(hook, at: leadingHooks)
            leadingHooks += 1
        } else {
            endOfWakeupHooks.append(hook)
        }
    }

    /// How many end-of-wake-up hooks are registered.
    public var endOfWakeupHookCount: Int { endOfWakeupHooks.count }
    /// Output that may wait a little (log lines, a dry-run's trace): written ``LazyFlush/delay``
    /// after it began waiting, instead of once per wakeup — a burst of frames then costs one
    /// `write(2)`, not one per frame. The wait is one of the loop's timers, armed when output
    /// begins to wait: a wakeup costs no clock read and `epoll_wait` no timeout of its own (a
    /// timeout arms and cancels a kernel timer on every call).
    public struct LazyFlush {
        /// The longest a written line waits.
        public var delay: Timestamp.Duration
        /// Whether anything waits.
        public var pending: () -> Bool
        /// Writes it.
        public var flush: () -> Void

        public init(delay: Timestamp.Duration, pending: @escaping () -> Bool, flush: @escaping () -> Void) {
            self.delay = delay
            self.pending = pending
            self.flush = flush
        }
    }
    /// See ``LazyFlush``; nil: nothing is deferred.
    public var lazyFlush: LazyFlush? {
        didSet { lazyPending = lazyFlush?.pending }
    }
    /// ``lazyFlush``'s `pending`, asked before each wait (the closure alone, not the struct
    /// copied with its three closures).
    private var lazyPending: (() -> Bool)?
    /// The timer that writes what ``lazyFlush`` holds, while one is armed, and the time from
    /// which its owner may write it first (``lazyFlushEarliest``).
    private var flushTimer: TimerID?
    private var flushDeadline: Timestamp?
    /// What that timer runs (it has fired: nothing to cancel); made once — a closure made per
    /// arming was an allocation per flush.
    private lazy var flushWaitingOutput: () -> Void = { [unowned self] in
        flushTimer = nil
        flushLazyOutput()
    }

    /// While output waits: three quarters of ``LazyFlush/delay`` after it began to wait. An owner
    /// that knows the time of the input it handles without a clock read (the pipeline, for live
    /// input) may write it from then on by ``flushLazyOutput()`` at the end of a wake-up, so
    /// writing output costs no wake-up of its own. Nil: nothing waits.
    public var lazyFlushEarliest: Timestamp? { flushDeadline }

    /// Writes what ``lazyFlush`` holds, cancelling its timer while one is armed (a write before
    /// it, see ``lazyFlushEarliest``).
    public func flushLazyOutput() {
        if let timer = flushTimer { cancel(timer) }
        flushTimer = nil
        flushDeadline = nil
        lazyFlush?.flush()
    }
    /// How many times `epoll_wait` returned (for the idle-wakeup test and `status`).
    public private(set) var wakeups = 0

    public init() throws(SystemError) {
        epfd = FileDescriptor(rawValue: try SystemCall.retryingInterrupts("epoll_create1", path: nil) {
            epoll_create1(Int32(EPOLL_CLOEXEC))
        })
        timerfd = FileDescriptor(rawValue: try SystemCall.retryingInterrupts("timerfd_create", path: nil) {
            timerfd_create(CLOCK_MONOTONIC, Int32(TFD_NONBLOCK | TFD_CLOEXEC))
        })
        try control(EPOLL_CTL_ADD, timerfd, .readable)
    }

    deinit {
        try? SystemCall.close(timerfd)
        if signalfd.isValid { try? SystemCall.close(signalfd) }
        try? SystemCall.close(epfd)
    }

    /// An epoll event's data word: the watched descriptor's number.
    private static func data(of fd: FileDescriptor) -> UInt64 { UInt64(UInt32(bitPattern: fd.rawValue)) }
    /// The data word of a batch's event voided by ``unwatch(_:)`` (a descriptor number no
    /// process has: no callback is found for it).
    private static let voided = UInt64.max - 1

    private func control(_ operation: Int32, _ fd: FileDescriptor, _ readiness: Readiness) throws(SystemError) {
        let data = Self.data(of: fd)
        var ev = epoll_event()
        ev.events = readiness.rawValue
        evroute_epoll_event_set_data(&ev, data)
        let name = operation == EPOLL_CTL_ADD ? "epoll_ctl(ADD, \(fd.rawValue))" : "epoll_ctl(MOD, \(fd.rawValue))"
        _ = try SystemCall.retryingInterrupts(name, path: nil) { epoll_ctl(epfd.rawValue, operation, fd.rawValue, &ev) }
    }

    /// Calls `handler` whenever `fd` is ready (level-triggered, unless `readiness` has
    /// ``Readiness/edgeTriggered``). Hang-up is always reported.
    public func watch(_ fd: FileDescriptor, for readiness: Readiness = .readable, _ handler: @escaping (Readiness) -> Void) throws(SystemError) {
        try watch(fd, for: readiness, as: .callback(handler))
    }

    /// Tells `watcher` whenever `fd` is ready, as ``watch(_:for:_:)`` calls a callback. The
    /// loop keeps `watcher` until `fd` is unwatched.
    public func watch(_ fd: FileDescriptor, for readiness: Readiness = .readable, by watcher: Watcher) throws(SystemError) {
        try watch(fd, for: readiness, as: .watcher(watcher))
    }

    private func watch(_ fd: FileDescriptor, for readiness: Readiness, as watch: Watch) throws(SystemError) {
        let operation = isWatching(fd) ? EPOLL_CTL_MOD : EPOLL_CTL_ADD
        let index = Int(fd.rawValue)
        guard index >= 0 else { throw SystemError(errno: EBADF, call: "epoll_ctl") }
        let previous = self.watch(of: fd)
        if index >= watches.count { watches += Array(repeating: nil, count: index + 1 - watches.count) }
        watches[index] = watch
        do { try control(operation, fd, readiness) } catch {
            watches[index] = previous
            throw error
        }
    }

    /// Changes what `fd` is watched for (e.g. add `.writable` while output is queued).
    public func change(_ fd: FileDescriptor, to readiness: Readiness) throws(SystemError) {
        try control(EPOLL_CTL_MOD, fd, readiness)
    }

    /// Whether `fd` is watched.
    public func isWatching(_ fd: FileDescriptor) -> Bool { watch(of: fd) != nil }

    /// Stops watching `fd` (call before closing it). Its events not yet dispatched in the
    /// current wake-up are dropped: a watcher may go right after.
    public func unwatch(_ fd: FileDescriptor) {
        guard watch(of: fd) != nil else { return }
        watches[Int(fd.rawValue)] = nil
        var ev = epoll_event()
        _ = epoll_ctl(epfd.rawValue, EPOLL_CTL_DEL, fd.rawValue, &ev)
        guard let batch else { return }
        let data = Self.data(of: fd)
        for i in batch.next..<batch.count where evroute_epoll_event_data(batch.events + i) == data {
            evroute_epoll_event_set_data(batch.events + i, Self.voided)
        }
    }

    @inline(__always)
    private func watch(of fd: FileDescriptor) -> Watch? {
        let index = Int(fd.rawValue)
        return index >= 0 && index < watches.count ? watches[index] : nil
    }

    /// Delivers `signals` through a signalfd (they are blocked for normal delivery) to `handler`.
    /// Calls add up: each registers its own signals, so the daemon (SIGTERM, SIGHUP …) and a
    /// plugin host (SIGCHLD) can both register; a later call for the same signal replaces that
    /// signal's handler. Block the signals in the main thread before any other thread exists
    /// (threads inherit the mask), or a thread may take them.
    public func handleSignals(_ signals: [Int32], _ handler: @escaping (Int32) -> Void) throws(SystemError) {
        if !signalfd.isValid { sigemptyset(&signalMask) }
        var mask = sigset_t()
        sigemptyset(&mask)
        for s in signals {
            sigaddset(&mask, s)
            sigaddset(&signalMask, s)
        }
        let rc = pthread_sigmask(SIG_BLOCK, &mask, nil)
        guard rc == 0 else { throw SystemError(errno: rc, call: "pthread_sigmask") }
        let fd = FileDescriptor(rawValue: try SystemCall.retryingInterrupts("signalfd", path: nil) {
            CLinux.signalfd(signalfd.rawValue, &signalMask, Int32(SFD_NONBLOCK | SFD_CLOEXEC))
        })
        if !signalfd.isValid { try control(EPOLL_CTL_ADD, fd, .readable) }
        signalfd = fd
        for s in signals { signalHandlers[s] = handler }
    }

    /// Runs `fire` once at `deadline` (CLOCK_MONOTONIC).
    @discardableResult
    public func schedule(at deadline: Timestamp, _ fire: @escaping () -> Void) -> TimerID {
        let id = nextTimerID
        nextTimerID += 1
        let i = timers.firstIndex { $0.deadline > deadline } ?? timers.endIndex
        timers.insert((deadline, id, fire), at: i)
        rearm()
        return TimerID(raw: id)
    }

    /// Runs `fire` once after `delay`.
    @discardableResult
    public func schedule(after delay: Timestamp.Duration, _ fire: @escaping () -> Void) -> TimerID {
        schedule(at: MonotonicClock.now() + delay, fire)
    }

    public func cancel(_ timer: TimerID) {
        timers.removeAll { $0.id == timer.raw }
        rearm()
    }

    /// The earliest pending deadline, if any.
    public var nextDeadline: Timestamp? { timers.first?.deadline }

    private func rearm() {
        let deadline = timers.first?.deadline
        guard deadline != armedDeadline else { return }
        armedDeadline = deadline
        var spec = itimerspec()
        if let d = deadline {
            let us = max(d.microseconds, 1)
            spec.it_value.tv_sec = Int(us / 1_000_000)
            spec.it_value.tv_nsec = Int(us % 1_000_000) * 1000
        }
        _ = timerfd_settime(timerfd.rawValue, Int32(TFD_TIMER_ABSTIME), &spec, nil)
    }

    private func fireDueTimers() {
        var expirations: UInt64 = 0
        _ = read(timerfd.rawValue, &expirations, 8)
        armedDeadline = nil
        let now = MonotonicClock.now()
        while let first = timers.first, first.deadline <= now {
            timers.removeFirst()
            first.fire()
        }
        rearm()
    }

    private func drainSignals() {
        var info = signalfd_siginfo()
        while read(signalfd.rawValue, &info, MemoryLayout<signalfd_siginfo>.size) == MemoryLayout<signalfd_siginfo>.size {
            let signal = Int32(info.ssi_signo)
            signalHandlers[signal]?(signal)
        }
    }

    /// Runs until ``stop()``.
    public func run() {
        stopping = false
        // Raw memory, not an array: an array passed inout is checked for uniqueness per wakeup.
        let capacity = 64
        let events = UnsafeMutablePointer<epoll_event>.allocate(capacity: capacity)
        events.initialize(repeating: epoll_event(), count: capacity)
        defer { events.deallocate() }
        while !stopping {
            if flushTimer == nil, let pending = lazyPending, pending(), let lazy = lazyFlush {
                // Before the timer: a wake-up at the timer's own time would come after it.
                let now = MonotonicClock.now()
                flushDeadline = now + Timestamp.Duration(microseconds: lazy.delay.microseconds * 3 / 4)
                flushTimer = schedule(at: now + lazy.delay, flushWaitingOutput)
            }
            let n = epoll_wait(epfd.rawValue, events, Int32(capacity), -1)
            wakeups += 1
            if n < 0 {
                if errno == EINTR { continue }
                break
            }
            if n == 1 {
                // One descriptor ready (a device's frame, a timer): no later event of the
                // batch for an unwatch to void, so no batch is kept.
                dispatch(events)
            } else {
                batch = (events, 0, Int(n))
                for i in 0..<Int(n) {
                    batch!.next = i + 1
                    dispatch(events + i)
                    if stopping { break }
                }
                batch = nil
            }
            for hook in endOfWakeupHooks { hook() }
        }
    }

    /// Tells the owner of a ready descriptor (unless ``unwatch(_:)`` voided the event).
    @inline(__always)
    private func dispatch(_ event: UnsafeMutablePointer<epoll_event>) {
        let data = evroute_epoll_event_data(event)
        guard data != Self.voided else { return }
        let ready = Readiness(rawValue: event.pointee.events)
        let fd = FileDescriptor(rawValue: Int32(truncatingIfNeeded: data))
        if fd == timerfd { fireDueTimers() }
        else if fd == signalfd { drainSignals() }
        else {
            switch watch(of: fd) {
            case .watcher(let w)?: w.ready(ready)
            case .callback(let h)?: h(ready)
            case nil: break
            }
        }
    }

    /// Makes ``run()`` return after the current callback.
    public func stop() { stopping = true }
}
