/// The daemon's reload bookkeeping as plain logic: no I/O, no event loop, no clock. ``Daemon``
/// tells it what happened — a reload was asked for (with the control client to answer, if any),
/// a compile ended, the swap ended, the daemon is stopping — and it says what to do: start a
/// compile, swap in this compiled config, answer these clients with this outcome. The daemon does
/// the work (the ``BackgroundJob``, the swap, the log, systemd, the answers' bytes).
///
/// The rules (docs/architecture.md, "Reload"):
/// - One compile at a time. A reload asked for while one compiles starts none: it is noted, and
///   one more compile starts when the current one ends, however many were asked for meanwhile.
/// - Each waiting client is answered once, by the first compile that began after its request.
/// - A compile with errors (or a swap refused, e.g. by a plugin's options) changes nothing but
///   the failure count and the last errors; a good one counts as a reload and clears them.
///
/// `Answer` is what the daemon answers a client through (``ControlServer/PendingAnswer``);
/// `Compiled` is what a good compile gives (the layout with its source and warnings).
struct ReloadCoordinator<Answer, Compiled> {
    /// What a compile gave.
    enum CompileResult {
        case compiled(Compiled)
        case failed([String])
    }

    /// What the daemon does about a reload request.
    enum Request: Equatable {
        /// Start a compile now.
        case startCompile
        /// Nothing now: a compile is running, and one more follows it.
        case queued
    }

    /// What the daemon does when a compile ends.
    enum AfterCompile {
        /// Swap this in, then report how that went with ``swapEnded(errors:)``.
        case swapIn(Compiled)
        /// Nothing was swapped in (the compile failed): do this.
        case finished(Finish)
    }

    /// A reload's outcome, for its clients.
    enum Outcome: Equatable {
        /// The new config runs; `reloads` is the count of reloads done, this one included.
        case reloaded(reloads: Int)
        /// The previous config keeps running.
        case failed(errors: [String])
    }

    /// What the daemon does when a reload has ended: start the queued compile first (if
    /// `startCompile`), then answer `answer` with `outcome`.
    struct Finish {
        var outcome: Outcome
        var answer: [Answer]
        var startCompile: Bool
    }

    /// Reloads done.
    private(set) var reloads = 0
    /// Reloads that changed nothing (errors).
    private(set) var failedReloads = 0
    /// The last reload's errors; empty once a reload succeeds.
    private(set) var lastErrors: [String] = []

    /// Whether a compile is running (its result not yet reported with ``compileEnded(_:)``, or
    /// its swap not yet with ``swapEnded(errors:)``).
    private(set) var isCompiling = false
    /// A reload was asked for while a compile ran: one more compile follows it.
    private(set) var isQueued = false
    /// Clients answered by the running compile, and those answered by the compile after it.
    private var answers: [Answer] = []
    private var nextAnswers: [Answer] = []

    /// Whether a reload is being compiled (or one is queued behind it): `reloading` in `status`.
    var isReloading: Bool { isCompiling || isQueued }

    /// A reload was asked for; `answer` (a control client) gets the outcome of the first compile
    /// that begins after now.
    mutating func requested(answer: Answer?) -> Request {
        if isCompiling {
            isQueued = true
            if let answer { nextAnswers.append(answer) }
            return .queued
        }
        if let answer { answers.append(answer) }
        isCompiling = true
        return .startCompile
    }

    /// The running compile ended with `result`.
    mutating func compileEnded(_ result: CompileResult) -> AfterCompile {
        precondition(isCompiling, "a compile ended while none was running")
        switch result {
        case .compiled(let compiled):
            return .swapIn(compiled)
        case .failed(let errors):
            return .finished(end(errors: errors))
        }
    }

    /// The swap of the compiled config ended: applied (`errors` empty) or refused with `errors`.
    mutating func swapEnded(errors: [String]) -> Finish {
        precondition(isCompiling, "a swap ended while no compile was running")
        return end(errors: errors)
    }

    /// The daemon is stopping: the running compile (if any) is dropped and so is the queued one.
    /// Returns the clients still waiting, each to be told (empty when no compile ran).
    mutating func abandon() -> [Answer] {
        let waiting = answers + nextAnswers
        answers = []
        nextAnswers = []
        isCompiling = false
        isQueued = false
        return waiting
    }

    private mutating func end(errors: [String]) -> Finish {
        let outcome: Outcome
        if errors.isEmpty {
            reloads += 1
            lastErrors = []
            outcome = .reloaded(reloads: reloads)
        } else {
            failedReloads += 1
            lastErrors = errors
            outcome = .failed(errors: errors)
        }
        let waiting = answers
        answers = nextAnswers
        nextAnswers = []
        let again = isQueued
        isQueued = false
        isCompiling = again
        return Finish(outcome: outcome, answer: waiting, startCompile: again)
    }
}
