import Testing
#if canImport(Glibc)
import Glibc
#endif
import CLinux
import EvrouteDaemon
import EvrouteRuntime
import EvrouteJSON
import EvrouteSystem

// The harness the daemon tests share: the real `evroute` binary run as a child process, a fake
// `$NOTIFY_SOCKET`, clients for the control and plugin sockets. Every wait is bounded (poll(2)
// on a descriptor with a deadline), and a child still running when its test ends is killed.

/// The package's root (for `config/`, `demo/`, `Tests/Fixtures/recordings`).
let harnessPackageRoot: String = {
    var path = #filePath
    for _ in 0..<3 { path = String(path[..<path.lastIndex(of: "/")!]) }
    return path
}()

/// The `evroute` binary `swift test` built next to the test bundle.
func harnessBinary() -> String? {
    var buffer = [CChar](repeating: 0, count: 4096)
    let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    var candidates: [String] = []
    if n > 0 {
        let exe = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var dir = String(exe[..<exe.lastIndex(of: "/")!])
        // Inside an .xctest bundle directory on some layouts: walk up to the build folder.
        for _ in 0..<4 {
            candidates.append(dir + "/evroute")
            guard let slash = dir.lastIndex(of: "/") else { break }
            dir = String(dir[..<slash])
        }
    }
    for c in candidates where access(c, X_OK) == 0 { return c }
    return nil
}

/// A fresh directory under /tmp, removed by `cleanUp()`.
final class DaemonScratch {
    let path: String
    init() {
        var template = Array("/tmp/evroute-daemon-test-XXXXXX".utf8CString)
        let p = mkdtemp(&template)!
        path = String(cString: p)
    }
    func file(_ name: String) -> String { path + "/" + name }
    func write(_ name: String, _ text: String) -> String {
        let p = file(name)
        let fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        precondition(fd >= 0, "cannot write \(p)")
        _ = text.withCString { Glibc.write(fd, $0, strlen($0)) }
        close(fd)
        return p
    }
    func read(_ name: String) -> String? { harnessRead(file(name)) }
    func cleanUp() { _ = system("rm -rf '\(path)'") }
}

func harnessRead(_ path: String) -> String? {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = Glibc.read(fd, &chunk, chunk.count)
        if n <= 0 { break }
        bytes += chunk[0..<n]
    }
    return String(decoding: bytes, as: UTF8.self)
}

func harnessNow() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// Waits until `fd` is readable or `deadline` (monotonic seconds) passes.
func harnessWaitReadable(_ fd: Int32, until deadline: Double) -> Bool {
    while true {
        let left = deadline - harnessNow()
        if left <= 0 { return false }
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let r = poll(&p, 1, Int32(min(left * 1000, 60_000)) + 1)
        if r > 0 { return true }
        if r < 0 && errno != EINTR { return false }
    }
}

/// The evroute daemon as a child process. Its stderr (the log) goes to a file, or to `stderr`
/// when given (a pipe's write end: the log's reader is then the test).
final class DaemonProcess {
    let pid: pid_t
    let pidfd: Int32
    let logPath: String
    private(set) var exitStatus: Int32?

    init(_ binary: String, arguments: [String], environment: [String: String] = [:], logPath: String, stderr: Int32? = nil) throws {
        self.logPath = logPath
        var env: [String: String] = [:]
        for key in ["PATH", "HOME", "LANG"] { if let v = getenv(key) { env[key] = String(cString: v) } }
        for (k, v) in environment { env[k] = v }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let stderr {
            posix_spawn_file_actions_adddup2(&actions, stderr, 2)
        } else {
            posix_spawn_file_actions_addopen(&actions, 2, logPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        }
        posix_spawn_file_actions_addopen(&actions, 1, logPath + ".out", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        let argv = ([binary] + arguments).map { strdup($0) } + [nil]
        let envp = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for p in argv + envp { free(p) } }
        var child: pid_t = 0
        let r = posix_spawn(&child, binary, &actions, &attributes, argv, envp)
        guard r == 0 else { throw DaemonHarnessError("posix_spawn \(binary): \(String(cString: strerror(r)))") }
        pid = child
        pidfd = evroute_pidfd_open(child)
    }

    deinit {
        if exitStatus == nil {
            kill(pid, SIGKILL)
            _ = waitForExit(seconds: 5)
        }
        if pidfd >= 0 { close(pidfd) }
    }

    func signal(_ s: Int32) { kill(pid, s) }

    /// Waits for the child to exit; its exit status (128 + signal when killed), or nil at the timeout.
    func waitForExit(seconds: Double) -> Int32? {
        if let exitStatus { return exitStatus }
        guard harnessWaitReadable(pidfd, until: harnessNow() + seconds) else { return nil }
        var status: Int32 = 0
        guard waitpid(pid, &status, 0) == pid else { return nil }
        let code = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        exitStatus = code
        return code
    }

    /// Stops the child for good (SIGKILL) when a test failed half way.
    func kill9() {
        if exitStatus == nil { kill(pid, SIGKILL); _ = waitForExit(seconds: 5) }
    }

    var log: String { harnessRead(logPath) ?? "" }

    /// `/proc/PID/status` fields summed over the process's threads (`voluntary_ctxt_switches`).
    func threadSum(_ field: String) -> Int {
        var total = 0
        guard let dir = opendir("/proc/\(pid)/task") else { return -1 }
        defer { closedir(dir) }
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard Int(name) != nil, let text = harnessRead("/proc/\(pid)/task/\(name)/status") else { continue }
            total += harnessStatusField(text, field) ?? 0
        }
        return total
    }

    /// A field of `/proc/PID/status` (the number before any unit).
    func status(_ field: String) -> Int? {
        harnessRead("/proc/\(pid)/status").flatMap { harnessStatusField($0, field) }
    }
}

func harnessStatusField(_ text: String, _ field: String) -> Int? {
    guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }) else { return nil }
    return line.dropFirst(field.count + 1).split(whereSeparator: { $0 == " " || $0 == "\t" }).first.flatMap { Int($0) }
}

struct DaemonHarnessError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}

/// A datagram socket standing in for systemd's `$NOTIFY_SOCKET`.
final class DaemonNotifySocket {
    let path: String
    let fd: Int32
    private(set) var messages: [String] = []

    init(path: String) throws {
        self.path = path
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard let address = UnixSocketAddress(path), address.withSockaddr({ bind(fd, $0, $1) }) == 0 else {
            throw DaemonHarnessError("bind \(path): \(String(cString: strerror(errno)))")
        }
    }

    deinit { close(fd); unlink(path) }

    /// Receives until a message contains `line` (as one of its lines); that message, or nil at the timeout.
    func wait(for line: String, seconds: Double = 20) -> String? {
        if let m = messages.first(where: { $0.split(separator: "\n").contains(Substring(line)) }) {
            messages.removeAll { $0 == m }
            return m
        }
        let deadline = harnessNow() + seconds
        while harnessWaitReadable(fd, until: deadline) {
            var buffer = [UInt8](repeating: 0, count: 4096)
            let n = recv(fd, &buffer, buffer.count, 0)
            guard n > 0 else { continue }
            let m = String(decoding: buffer[0..<n], as: UTF8.self)
            if m.split(separator: "\n").contains(Substring(line)) { return m }
            messages.append(m)
        }
        return nil
    }

    /// Every message received so far or within `seconds` more.
    func drain(seconds: Double) -> [String] {
        let deadline = harnessNow() + seconds
        while harnessWaitReadable(fd, until: deadline) {
            var buffer = [UInt8](repeating: 0, count: 4096)
            let n = recv(fd, &buffer, buffer.count, 0)
            if n > 0 { messages.append(String(decoding: buffer[0..<n], as: UTF8.self)) }
        }
        defer { messages.removeAll() }
        return messages
    }
}

/// A client of a `socket` plugin: connects and reads JSON lines.
final class DaemonLineClient {
    let fd: Int32
    private var buffer: [UInt8] = []
    private(set) var lines: [String] = []

    init(path: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard let address = UnixSocketAddress(path), address.withSockaddr({ connect(fd, $0, $1) }) == 0 else {
            throw DaemonHarnessError("connect \(path): \(String(cString: strerror(errno)))")
        }
    }

    deinit { close(fd) }

    /// Reads until a line satisfies `predicate` (returns it) or the timeout / EOF (nil).
    func wait(seconds: Double = 20, for predicate: (String) -> Bool) -> String? {
        if let l = lines.first(where: predicate) { return l }
        let deadline = harnessNow() + seconds
        while harnessWaitReadable(fd, until: deadline) {
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = recv(fd, &chunk, chunk.count, 0)
            guard n > 0 else { return nil }
            buffer += chunk[0..<n]
            var found: String?
            while let nl = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[..<nl], as: UTF8.self)
                buffer.removeSubrange(...nl)
                lines.append(line)
                if found == nil && predicate(line) { found = line }
            }
            if let found { return found }
        }
        return nil
    }
}

/// Asks the daemon on `socket`; nil when it does not answer.
func harnessControl(_ command: String, _ socket: String) -> JSONValue? {
    try? ControlClient.request(.object([("command", .string(command))]), to: socket, timeoutSeconds: 10)
}
