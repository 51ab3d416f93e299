#if canImport(Glibc)
import Glibc
#endif

// The small helpers every test target shares: where the package, the built binary and the
// fixtures are; temporary paths and scratch directories; reading a whole file; the monotonic
// clock for guard deadlines (never for assertions on speed).

/// An error a test helper throws when something it needs is missing or failed.
public struct TestSupportError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// The package's root directory (for `config/`, `demo/`, `examples/`, `Tests/Fixtures`).
public let packageRoot: String = {
    var path = #filePath
    for _ in 0..<3 { path = String(path[..<path.lastIndex(of: "/")!]) }
    return path
}()

/// The real device recordings (`Tests/Fixtures/recordings`).
public let recordingsDirectory = packageRoot + "/Tests/Fixtures/recordings"

/// A path under the package root.
public func packagePath(_ relative: String) -> String { packageRoot + "/" + relative }

/// The `evroute` binary the tests start: `EVROUTE_TEST_BINARY` when set (`make test` sets it to
/// the release build it makes for the real-kernel tests: the build that ships), else the one
/// `swift build` put next to the test bundle; nil when there is none. Resolved (no symbolic link):
/// a test compares it with what a started process's `/proc/PID/exe` says.
public func evrouteBinaryPath() -> String? {
    if let given = getenv("EVROUTE_TEST_BINARY") {
        guard let resolved = realpath(given, nil) else { return nil }
        defer { free(resolved) }
        return access(resolved, X_OK) == 0 ? String(cString: resolved) : nil
    }
    var buffer = [CChar](repeating: 0, count: 4096)
    let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    guard n > 0 else { return nil }
    let exe = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    var dir = String(exe[..<exe.lastIndex(of: "/")!])
    // Inside an .xctest bundle directory on some layouts: walk up to the build folder.
    for _ in 0..<4 {
        let candidate = dir + "/evroute"
        if access(candidate, X_OK) == 0 { return candidate }
        guard let slash = dir.lastIndex(of: "/") else { break }
        dir = String(dir[..<slash])
    }
    return nil
}

/// The `evroute` binary; throws (so the test fails, saying why) when it was not built.
public func evrouteBinary() throws -> String {
    guard let binary = evrouteBinaryPath() else {
        if let given = getenv("EVROUTE_TEST_BINARY") {
            throw TestSupportError("EVROUTE_TEST_BINARY=\(String(cString: given)) is not an executable")
        }
        throw TestSupportError("the evroute binary is not next to the test bundle; run `swift build` first")
    }
    return binary
}

private let testRootPath = "/tmp/evroute-tests-\(getpid())"

/// This test process's own directory under /tmp (traversable, not listable, by others: a test
/// may run a child as another user in a directory of its own below it). Every temporary file,
/// directory and socket a test makes goes under it (``temporaryPath(_:)``, ``Scratch``,
/// ``temporaryDirectory(_:)``), and it is removed, with whatever a failed test left in it, when
/// the process exits: a test run leaves nothing under /tmp.
public let testRoot: String = {
    mkdir(testRootPath, 0o711)
    chmod(testRootPath, 0o711)   // mkdir's mode is masked by the umask (CI may run with 077)
    atexit { removeTree(testRootPath) }
    return testRootPath
}()

/// A fresh path (nothing there yet) in this process's temporary directory.
public func temporaryPath(_ name: String) -> String {
    "\(testRoot)/\(UInt32.random(in: 0...UInt32.max))-\(name)"
}

/// A fresh directory (0700) under this process's temporary directory; its path.
public func temporaryDirectory(_ prefix: String) -> String { Scratch(prefix).path }

/// A fresh directory under ``testRoot``; `cleanUp()` removes it and everything in it.
public final class Scratch {
    public let path: String

    public init(_ prefix: String = "evroute-test") {
        var template = Array("\(testRoot)/\(prefix)-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "mkdtemp: \(String(cString: strerror(errno)))")
        path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    public func file(_ name: String) -> String { path + "/" + name }

    /// Writes `text` to `name` in the directory; its path.
    @discardableResult
    public func write(_ name: String, _ text: String) -> String {
        let p = file(name)
        writeFile(p, text)
        return p
    }

    public func read(_ name: String) -> String? { readFile(file(name)) }

    public func cleanUp() { removeTree(path) }
}

/// The names in a directory (without `.` and `..`), hidden ones too; empty when it cannot be read.
public func directoryEntries(_ path: String) -> [String] {
    guard let dir = opendir(path) else { return [] }
    defer { closedir(dir) }
    var names: [String] = []
    while let entry = readdir(dir) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        if name != "." && name != ".." { names.append(name) }
    }
    return names
}

/// Removes a file or a directory tree.
public func removeTree(_ path: String) {
    var st = stat()
    guard lstat(path, &st) == 0 else { return }
    if st.st_mode & S_IFMT == S_IFDIR {
        for name in directoryEntries(path) { removeTree(path + "/" + name) }
        rmdir(path)
    } else {
        unlink(path)
    }
}

/// Writes (creates or truncates) a file; traps when it cannot (a broken test machine).
public func writeFile(_ path: String, _ text: String, mode: mode_t = 0o644) {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
    precondition(fd >= 0, "cannot write \(path): \(String(cString: strerror(errno)))")
    defer { close(fd) }
    var bytes = Array(text.utf8)[...]
    while !bytes.isEmpty {
        let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        if n < 0 && errno == EINTR { continue }
        precondition(n > 0, "cannot write \(path): \(String(cString: strerror(errno)))")
        bytes = bytes.dropFirst(n)
    }
}

/// Writes an executable script in a temporary path; its path.
public func script(_ name: String, _ text: String) -> String {
    let path = temporaryPath(name)
    writeFile(path, text, mode: 0o755)
    chmod(path, 0o755)
    return path
}

/// A whole file as text, or nil when it cannot be opened.
public func readFile(_ path: String) -> String? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    return String(decoding: readToEnd(fd), as: UTF8.self)
}

/// Everything readable from `fd` up to end of file (or an error).
public func readToEnd(_ fd: Int32) -> [UInt8] {
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = Glibc.read(fd, &chunk, chunk.count)
        if n < 0 && errno == EINTR { continue }
        if n <= 0 { break }
        bytes += chunk[0..<n]
    }
    return bytes
}

/// CLOCK_MONOTONIC in seconds: for the guard deadlines of waits, not for assertions.
public func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// Waits until `fd` is readable (or hung up) or `deadline` (monotonic seconds) passes.
public func waitReadable(_ fd: Int32, until deadline: Double) -> Bool {
    while true {
        let left = deadline - monotonicSeconds()
        if left <= 0 { return false }
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let r = poll(&p, 1, Int32(min(left * 1000, 60_000)) + 1)
        if r > 0 { return true }
        if r < 0 && errno != EINTR { return false }
    }
}

/// Whether a process exists (signal 0).
public func processExists(_ pid: pid_t) -> Bool { kill(pid, 0) == 0 }

/// A field of a `/proc/PID/status` text (the number before any unit).
public func procStatusField(_ text: String, _ field: String) -> Int? {
    guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }) else { return nil }
    return line.dropFirst(field.count + 1).split(whereSeparator: { $0 == " " || $0 == "\t" }).first.flatMap { Int($0) }
}
