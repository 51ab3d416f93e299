#if canImport(Glibc)
import Glibc
#endif
import CLinux

/// The one way tests run a program: posix_spawn with arguments, an environment, a working
/// directory and a standard input; its output to pipes, files or /dev/null. `run` waits for
/// the end and returns the status and both outputs; a child still running when its
/// `TestProcess` goes away is killed. Every wait has a guard deadline (a hung child fails
/// the test, it does not hang the suite).
public final class TestProcess {
    /// Where the child's standard input comes from.
    public enum Input {
        case null
        case text(String)
        case file(String)
    }

    /// Where one of the child's outputs goes.
    public enum Output {
        /// A pipe the test reads (``readOutput(until:)``, or `run`'s result).
        case pipe
        case null
        /// A file, created or truncated.
        case file(String)
        /// A descriptor of the test's (dup'ed into the child).
        case descriptor(Int32)
        /// Standard error only: wherever standard output goes.
        case standardOutput
    }

    /// What a finished child left: its exit status (128 + the signal when killed) and outputs.
    public struct Result {
        public var status: Int32
        public var out: String
        public var err: String
    }

    /// The environment a child gets.
    public enum Environment {
        /// The test process's own.
        case inherited
        /// Exactly these variables.
        case only([String: String])
        /// PATH, HOME and LANG from the test process, and these.
        case minimal(adding: [String: String])
    }

    public let pid: pid_t
    public let pidfd: Int32
    /// The read ends of the pipes for standard output and error (-1 when not a pipe).
    public private(set) var stdoutFD: Int32 = -1
    public private(set) var stderrFD: Int32 = -1
    /// Where standard error goes when it is a file (the daemon's log).
    public let stderrPath: String?
    public private(set) var exitStatus: Int32?

    /// Starts `executable` (a path; with `searchPath`, a name looked up in PATH).
    public init(_ executable: String, _ arguments: [String], environment: Environment = .inherited,
                directory: String? = nil, stdin: Input = .null, stdout: Output = .pipe, stderr: Output = .pipe,
                searchPath: Bool = false) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var closeAfterSpawn: [Int32] = []
        defer { for fd in closeAfterSpawn { close(fd) } }
        var inputFile: String?
        defer { if let inputFile { unlink(inputFile) } }

        switch stdin {
        case .null: posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        case .file(let path): posix_spawn_file_actions_addopen(&actions, 0, path, O_RDONLY, 0)
        case .text(let text):
            // Through a file, not a pipe: the child reads it at its own pace and the test never blocks.
            let path = temporaryPath("stdin")
            writeFile(path, text)
            inputFile = path
            posix_spawn_file_actions_addopen(&actions, 0, path, O_RDONLY, 0)
        }
        func route(_ output: Output, to target: Int32) throws -> Int32 {
            switch output {
            case .pipe:
                var fds: [Int32] = [-1, -1]
                guard pipe2(&fds, O_CLOEXEC) == 0 else { throw TestSupportError("pipe: \(String(cString: strerror(errno)))") }
                posix_spawn_file_actions_adddup2(&actions, fds[1], target)
                closeAfterSpawn.append(fds[1])
                return fds[0]
            case .null: posix_spawn_file_actions_addopen(&actions, target, "/dev/null", O_WRONLY, 0)
            case .file(let path): posix_spawn_file_actions_addopen(&actions, target, path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            case .descriptor(let fd): posix_spawn_file_actions_adddup2(&actions, fd, target)
            case .standardOutput: posix_spawn_file_actions_adddup2(&actions, 1, target)
            }
            return -1
        }
        let outRead = try route(stdout, to: 1)
        let errRead = try route(stderr, to: 2)
        if case .file(let path) = stderr { stderrPath = path } else { stderrPath = nil }

        // The child starts with no signal blocked, whatever the test runner blocks.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))

        var variables: [String: String]?
        switch environment {
        case .inherited: variables = nil
        case .only(let v): variables = v
        case .minimal(let extra):
            var v: [String: String] = [:]
            for key in ["PATH", "HOME", "LANG"] { if let value = getenv(key) { v[key] = String(cString: value) } }
            for (key, value) in extra { v[key] = value }
            variables = v
        }
        // A working directory through /bin/sh (Glibc's module does not export
        // posix_spawn_file_actions_addchdir_np): `cd` then exec the program itself.
        var executable = executable, arguments = arguments, searchPath = searchPath
        if let directory {
            arguments = ["-c", "cd \"$0\" && exec \"$@\"", directory, executable] + arguments
            executable = "/bin/sh"
            searchPath = false
        }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = variables.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer { for p in argv + (envp ?? []) { free(p) } }
        var child: pid_t = 0
        let r = (envp ?? []).withUnsafeBufferPointer { e in
            let env = envp == nil ? environ : UnsafeMutablePointer(mutating: e.baseAddress!)
            return searchPath ? posix_spawnp(&child, executable, &actions, &attributes, argv, env)
                              : posix_spawn(&child, executable, &actions, &attributes, argv, env)
        }
        guard r == 0 else {
            if outRead >= 0 { close(outRead) }
            if errRead >= 0 { close(errRead) }
            throw TestSupportError("cannot run \(executable): \(String(cString: strerror(r)))")
        }
        pid = child
        pidfd = evroute_pidfd_open(child)
        stdoutFD = outRead
        stderrFD = errRead
    }

    deinit {
        kill9()
        if pidfd >= 0 { close(pidfd) }
        if stdoutFD >= 0 { close(stdoutFD) }
        if stderrFD >= 0 { close(stderrFD) }
    }

    public func signal(_ s: Int32) { if exitStatus == nil { kill(pid, s) } }

    /// Stops the child for good (SIGKILL) when a test failed half way.
    public func kill9() {
        if exitStatus == nil { kill(pid, SIGKILL); _ = waitForExit(seconds: 5) }
    }

    /// Whether the child is still running (not reaped).
    public var isRunning: Bool { waitForExit(seconds: 0) == nil }

    /// Waits up to `seconds` for the child to exit; its exit status (128 + signal when
    /// killed), or nil when it is still running.
    @discardableResult
    public func waitForExit(seconds: Double) -> Int32? {
        if let exitStatus { return exitStatus }
        if pidfd >= 0 {
            var p = pollfd(fd: pidfd, events: Int16(POLLIN), revents: 0)
            if seconds <= 0 ? poll(&p, 1, 0) <= 0 : !waitReadable(pidfd, until: monotonicSeconds() + seconds) { return nil }
        }
        var status: Int32 = 0
        while true {
            let r = waitpid(pid, &status, 0)
            if r == pid { break }
            if r < 0 && errno == EINTR { continue }
            return nil
        }
        let code = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        exitStatus = code
        return code
    }

    /// Reads the piped standard output until `done(text so far)` holds, end of file or the
    /// guard deadline; the text read (kept: later calls continue it).
    @discardableResult
    public func readOutput(seconds: Double = 20, until done: (String) -> Bool = { _ in false }) -> String {
        let deadline = monotonicSeconds() + seconds
        while stdoutFD >= 0, !done(outputSoFar), waitReadable(stdoutFD, until: deadline) {
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = read(stdoutFD, &chunk, chunk.count)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            output += chunk[0..<n]
        }
        return outputSoFar
    }
    private var output: [UInt8] = []
    private var outputSoFar: String { String(decoding: output, as: UTF8.self) }

    /// Reads both pipes to their end and waits for the exit, within `seconds`; past them the
    /// child is killed and the result says so (status 128 + SIGKILL, a note on stderr).
    public func finish(seconds: Double = 120) -> Result {
        let deadline = monotonicSeconds() + seconds
        var out = output, err: [UInt8] = []
        var open = [stdoutFD, stderrFD].filter { $0 >= 0 }
        var timedOut = false
        while !open.isEmpty {
            let left = deadline - monotonicSeconds()
            if left <= 0 { timedOut = true; break }
            var fds = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            let r = poll(&fds, nfds_t(fds.count), Int32(min(left * 1000, 60_000)) + 1)
            if r < 0 && errno == EINTR { continue }
            if r < 0 { break }
            for p in fds where p.revents != 0 {
                var chunk = [UInt8](repeating: 0, count: 65536)
                let n = read(p.fd, &chunk, chunk.count)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { open.removeAll { $0 == p.fd }; continue }
                if p.fd == stdoutFD { out += chunk[0..<n] } else { err += chunk[0..<n] }
            }
        }
        var status = timedOut ? nil : waitForExit(seconds: max(deadline - monotonicSeconds(), 0.001))
        if status == nil {
            timedOut = true
            kill9()
            status = exitStatus
        }
        var errText = String(decoding: err, as: UTF8.self)
        if timedOut { errText += "\n(test guard: killed after \(seconds) s)" }
        return Result(status: status ?? -1, out: String(decoding: out, as: UTF8.self), err: errText)
    }

    /// The file standard error went to (the daemon's log), as text so far.
    public var log: String { stderrPath.flatMap(readFile) ?? "" }

    /// `/proc/PID/status` fields summed over the process's threads (`voluntary_ctxt_switches`).
    public func threadSum(_ field: String) -> Int {
        var total = 0
        guard let dir = opendir("/proc/\(pid)/task") else { return -1 }
        defer { closedir(dir) }
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard Int(name) != nil, let text = readFile("/proc/\(pid)/task/\(name)/status") else { continue }
            total += procStatusField(text, field) ?? 0
        }
        return total
    }

    /// A field of `/proc/PID/status` (the number before any unit).
    public func status(_ field: String) -> Int? {
        readFile("/proc/\(pid)/status").flatMap { procStatusField($0, field) }
    }

    /// Runs a program to its end: status, standard output and standard error. `timeout` only
    /// guards against a hung child (it is killed and the result says so).
    public static func run(_ executable: String, _ arguments: [String], environment: Environment = .inherited,
                           directory: String? = nil, stdin: Input = .null, stderr: Output = .pipe,
                           searchPath: Bool = false, timeout: Double = 300) throws -> Result {
        try TestProcess(executable, arguments, environment: environment, directory: directory, stdin: stdin,
                         stdout: .pipe, stderr: stderr, searchPath: searchPath).finish(seconds: timeout)
    }

    /// Whether the child blocks or catches signal `s` (its `/proc/PID/status` SigBlk/SigCgt masks).
    public func handles(signal s: Int32) -> Bool {
        guard let text = readFile("/proc/\(pid)/status") else { return false }
        let bit = UInt64(1) << UInt64(s - 1)
        return ["SigBlk:", "SigCgt:"].contains { field in
            guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(field) }),
                  let mask = UInt64(line.dropFirst(field.count).trimmingPrefix(while: { $0 == " " || $0 == "\t" }), radix: 16) else { return false }
            return mask & bit != 0
        }
    }

    /// Waits (polling /proc every 10 ms, up to `seconds`) until the child blocks or catches `s`:
    /// a signal sent then is one it handles, not one that kills it before it set itself up.
    @discardableResult
    public func waitUntilHandling(signal s: Int32, seconds: Double = 10) -> Bool {
        let deadline = monotonicSeconds() + seconds
        while !handles(signal: s) {
            if monotonicSeconds() >= deadline || !isRunning { return false }
            usleep(10_000)
        }
        return true
    }

    /// `argv` run through /bin/sh with its descriptor limit (soft and hard) set to `limit`.
    public static func withDescriptorLimit(_ limit: Int, _ argv: [String]) -> [String] {
        ["/bin/sh", "-c", "ulimit -n \(limit) && exec \"$0\" \"$@\""] + argv
    }
}
