#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CLinux
@_exported import struct SystemPackage.FileDescriptor

/// A failed system or library call: which call, on which path, and the errno it failed with.
///
/// evroute's one error type for system calls. Every `open`, `read`, `write`, `close`,
/// `ioctl`, socket, epoll and libevdev/libudev call goes through ``SystemCall`` (the one errno
/// choke point), so every failure arrives as this one type.
public struct SystemError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The `errno` value (`ENOENT`, `EBUSY`, `ENODEV`, …).
    public var errno: Int32
    /// The call that failed (`open`, `ioctl(EVIOCGRAB)`, `libevdev_new_from_fd`, …).
    public var call: String
    /// The file the call was about, if any (`/dev/input/event3`).
    public var path: String?
    /// Why, when the errno alone does not say it (a directory refused: whose it is, its mode).
    public var detail: String?

    public init(errno: Int32, call: String, path: String? = nil, detail: String? = nil) {
        self.errno = errno
        self.call = call
        self.path = path
        self.detail = detail
    }

    /// `strerror(errno)`: "No such file or directory", …
    public var message: String { String(cString: strerror(errno)) }

    /// The symbolic name of common errnos (`ENOENT`), or `errno N`.
    public var errnoName: String {
        switch errno {
        case EPERM: "EPERM"
        case ENOENT: "ENOENT"
        case EINTR: "EINTR"
        case EIO: "EIO"
        case ENXIO: "ENXIO"
        case EBADF: "EBADF"
        case EAGAIN: "EAGAIN"
        case ENOMEM: "ENOMEM"
        case EACCES: "EACCES"
        case EBUSY: "EBUSY"
        case ENODEV: "ENODEV"
        case ENOTDIR: "ENOTDIR"
        case EISDIR: "EISDIR"
        case EINVAL: "EINVAL"
        case EMFILE: "EMFILE"
        case ENOTTY: "ENOTTY"
        case ENOSPC: "ENOSPC"
        case EPIPE: "EPIPE"
        case ENOSYS: "ENOSYS"
        default: "errno \(errno)"
        }
    }

    /// Whether the error says the device is gone (unplugged): `ENODEV`.
    public var isDeviceGone: Bool { errno == ENODEV }

    /// `open /dev/input/event3: Device or resource busy (EBUSY)`.
    public var description: String {
        var text = call
        if let path { text += " \(path)" }
        if let detail { return text + ": " + detail }
        text += ": \(message) (\(errnoName))"
        if call == "ioctl(EVIOCGRAB)" && errno == EBUSY {
            text += "; another process (X, a compositor, another evroute) has grabbed the device"
        }
        if call == "open" && errno == EACCES && (path?.hasPrefix("/dev/input/") ?? false) {
            text += "; run as root or as a member of group input"
        }
        return text
    }
}

/// The one place evroute calls into the system.
///
/// Descriptors are typed (`FileDescriptor`, from apple/swift-system). Each wrapper retries
/// `EINTR` and turns a failure into a ``SystemError`` naming the call and the path; callers
/// that need a system call not wrapped here pass it through ``retryingInterrupts(_:path:_:)``. Library calls that report errors
/// as negative errno values (libevdev) go through ``checkNegativeErrno(_:path:_:)``.
public enum SystemCall {
    /// Retries `body` while it fails with `EINTR`; throws on any other failure (result −1).
    @inline(__always)
    public static func retryingInterrupts<Result: BinaryInteger>(
        _ call: @autoclosure () -> String, path: String?, _ body: () -> Result
    ) throws(SystemError) -> Result {
        while true {
            let result = body()
            if result != -1 { return result }
            let code = Glibc.errno
            if code == EINTR { continue }
            throw SystemError(errno: code, call: call(), path: path)
        }
    }

    /// `open(path, flags)`; returns the file descriptor.
    public static func open(_ path: String, flags: Int32, mode: mode_t = 0) throws(SystemError) -> FileDescriptor {
        FileDescriptor(rawValue: try retryingInterrupts("open", path: path) { Glibc.open(path, flags, mode) })
    }

    /// `read(fd, buffer, count)`; returns the byte count (0 = end of file).
    /// Throws `EAGAIN` on a non-blocking descriptor with nothing to read.
    public static func read(_ fd: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer, path: String? = nil) throws(SystemError) -> Int {
        try retryingInterrupts("read", path: path) { Glibc.read(fd.rawValue, buffer.baseAddress, buffer.count) }
    }

    /// What ``writeAll(_:_:path:socket:whenFull:)`` does when `fd` takes no more for now
    /// (`EAGAIN`: a non-blocking pipe, socket or terminal whose reader is behind).
    public enum WhenFull: Sendable {
        /// Waits in poll(2) until it takes more (output that must not be lost: a trace, a file).
        case wait
        /// Returns what was written (output that must never wait: the daemon's log, a
        /// client's socket; the caller keeps the rest for when `fd` is writable again).
        case stop
    }

    /// Writes `bytes` to `fd`, continuing after partial writes and `EINTR`; returns the count
    /// written: all of them, unless `fd` is full and `whenFull` is ``WhenFull/stop``. A socket
    /// (`socket`) is written with send(2) (`MSG_NOSIGNAL`: a vanished peer raises no SIGPIPE;
    /// with ``WhenFull/stop`` also `MSG_DONTWAIT`, so a blocking socket never waits either).
    /// Throws on any other failure (`EPIPE`: the reader is gone). evroute's one write loop.
    @discardableResult
    public static func writeAll(_ fd: FileDescriptor, _ bytes: UnsafeRawBufferPointer, path: String? = nil,
                                socket: Bool = false, whenFull: WhenFull = .wait) throws(SystemError) -> Int {
        let flags = Int32(whenFull == .stop ? MSG_NOSIGNAL | MSG_DONTWAIT : MSG_NOSIGNAL)
        var offset = 0
        while offset < bytes.count {
            let start = bytes.baseAddress! + offset, count = bytes.count - offset
            let n = socket ? Glibc.send(fd.rawValue, start, count, flags) : Glibc.write(fd.rawValue, start, count)
            if n > 0 { offset += n; continue }
            let code = n == 0 ? EAGAIN : Glibc.errno
            if code == EINTR { continue }
            guard code == EAGAIN || code == EWOULDBLOCK else {
                throw SystemError(errno: code, call: socket ? "send" : "write", path: path)
            }
            if whenFull == .stop { break }
            var entry = pollfd(fd: fd.rawValue, events: Int16(POLLOUT), revents: 0)
            _ = try retryingInterrupts("poll", path: path) { poll(&entry, 1, -1) }
        }
        return offset
    }

    /// Writes a string's UTF-8 bytes to `fd`.
    public static func writeAll(_ fd: FileDescriptor, _ text: String, path: String? = nil) throws(SystemError) {
        let bytes = Array(text.utf8)
        let failure = bytes.withUnsafeBytes { raw -> SystemError? in
            do throws(SystemError) { try writeAll(fd, raw, path: path); return nil } catch { return error }
        }
        if let failure { throw failure }
    }

    /// `close(fd)`. `EINTR` is not retried: on Linux the descriptor is released anyway.
    public static func close(_ fd: FileDescriptor, path: String? = nil) throws(SystemError) {
        if Glibc.close(fd.rawValue) == -1, Glibc.errno != EINTR {
            throw SystemError(errno: Glibc.errno, call: "close", path: path)
        }
    }

    /// An `ioctl` through one of the C shim's wrappers (`evroute_ioctl_grab`, …), which
    /// return −1 with errno set on failure. `name` is the request (`EVIOCGRAB`).
    public static func ioctl(_ name: String, path: String?, _ body: () -> Int32) throws(SystemError) -> Int32 {
        try retryingInterrupts("ioctl(\(name))", path: path, body)
    }

    /// `fcntl(fd, F_SETFL, flags | O_NONBLOCK)`.
    public static func setNonBlocking(_ fd: FileDescriptor, path: String? = nil) throws(SystemError) {
        let flags = try retryingInterrupts("fcntl(F_GETFL)", path: path) { fcntl(fd.rawValue, F_GETFL) }
        if flags & O_NONBLOCK != 0 { return }
        _ = try retryingInterrupts("fcntl(F_SETFL)", path: path) { fcntl(fd.rawValue, F_SETFL, flags | O_NONBLOCK) }
    }

    /// `poll` on one descriptor for reading; returns whether it became readable
    /// (`false` on timeout). `timeout` in milliseconds, −1 waits forever.
    public static func waitReadable(_ fd: FileDescriptor, timeout: Int32, path: String? = nil) throws(SystemError) -> Bool {
        try wait(fd, for: POLLIN, timeout: timeout, path: path)
    }

    /// `poll` on one descriptor for writing (or its peer gone); whether it became ready
    /// (`false` on timeout). `timeout` in milliseconds, −1 waits forever.
    public static func waitWritable(_ fd: FileDescriptor, timeout: Int32, path: String? = nil) throws(SystemError) -> Bool {
        try wait(fd, for: POLLOUT, timeout: timeout, path: path)
    }

    private static func wait(_ fd: FileDescriptor, for events: Int32, timeout: Int32, path: String?) throws(SystemError) -> Bool {
        var entry = pollfd(fd: fd.rawValue, events: Int16(events), revents: 0)
        let ready = try retryingInterrupts("poll", path: path) { poll(&entry, 1, timeout) }
        return ready > 0
    }

    /// For library calls that return a negative errno on failure (libevdev's convention):
    /// retries `-EINTR`, throws on any other negative result, returns a non-negative one.
    public static func checkNegativeErrno(_ call: String, path: String?, _ body: () -> Int32) throws(SystemError) -> Int32 {
        while true {
            let result = body()
            if result >= 0 { return result }
            if result == -EINTR { continue }
            throw SystemError(errno: -result, call: call, path: path)
        }
    }

    /// For library calls that return NULL and set errno (libudev's convention).
    public static func checkNotNull<Pointer>(_ call: String, path: String? = nil, _ body: () -> Pointer?) throws(SystemError) -> Pointer {
        Glibc.errno = 0
        if let pointer = body() { return pointer }
        let code = Glibc.errno
        throw SystemError(errno: code == 0 ? ENOMEM : code, call: call, path: path)
    }
}

extension FileDescriptor {
    /// The invalid descriptor (−1): "none", "closed".
    public static let invalid = FileDescriptor(rawValue: -1)
    /// Whether this is a real descriptor (≥ 0).
    public var isValid: Bool { rawValue >= 0 }
}

extension SystemCall {
    /// Creates or replaces `path` (mode 0644 before the umask) with `text`: generated files
    /// (man pages, a heatmap).
    public static func writeFile(_ path: String, _ text: String) throws(SystemError) {
        let fd = try open(path, flags: O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode: 0o644)
        defer { try? close(fd, path: path) }
        try writeAll(fd, text, path: path)
    }

    /// Replaces `path` with `text` atomically: written to a temp file in the same directory,
    /// then renamed over it (a reader sees the old file or the new one, never a part).
    ///
    /// Made for a file another user reads (the metrics text file: node_exporter runs as its own
    /// user) in a directory another user may reach:
    /// - the file gets `mode` whatever the umask (fchmod after create: a unit's `UMask=0077`
    ///   would make it 0600, unreadable to its reader);
    /// - the temp file's name has a random suffix (getrandom(2)), and it is created with
    ///   `O_EXCL|O_NOFOLLOW`, relative to the directory opened once: a link or file planted
    ///   under a predictable name is never followed nor truncated, and the rename replaces a
    ///   link at `path` itself (rename(2) does not follow it);
    /// - the directory must belong to root or to this process's user and be writable by no
    ///   one else unless its sticky bit is set (``checkDirectory(_:descriptor:)``): another
    ///   user's directory, or one anyone may rename in, is refused, naming it.
    /// The temp file is removed when a step fails.
    public static func replaceFile(_ path: String, _ text: String, mode: mode_t = 0o644) throws(SystemError) {
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        guard !name.isEmpty, name != ".", name != ".." else {
            throw SystemError(errno: EISDIR, call: "replace", path: path)
        }
        let dir = try open(directory, flags: evroute_o_path | O_DIRECTORY | O_CLOEXEC)
        defer { try? close(dir, path: directory) }
        try checkDirectory(directory, descriptor: dir)
        let temp = ".\(name).\(try randomSuffix()).tmp"
        let fd = try retryingInterrupts("open", path: directory + "/" + temp) {
            openat(dir.rawValue, temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        }
        do throws(SystemError) {
            defer { Glibc.close(fd) }
            _ = try retryingInterrupts("fchmod", path: directory + "/" + temp) { fchmod(fd, mode) }
            try writeAll(FileDescriptor(rawValue: fd), text, path: directory + "/" + temp)
            _ = try retryingInterrupts("rename", path: path) { renameat(dir.rawValue, temp, dir.rawValue, name) }
        } catch {
            unlinkat(dir.rawValue, temp, 0)
            throw error
        }
    }

    /// Refuses a directory whose owner is neither root nor this process's (effective) user, or
    /// that its group or others may write without the sticky bit (they could rename or remove
    /// the file being replaced): the error names the directory and why.
    public static func checkDirectory(_ path: String, descriptor: FileDescriptor) throws(SystemError) {
        var st = stat()
        _ = try retryingInterrupts("fstat", path: path) { fstat(descriptor.rawValue, &st) }
        let owner = geteuid()
        if st.st_uid != 0 && st.st_uid != owner {
            throw SystemError(errno: EPERM, call: "use directory", path: path,
                              detail: "owned by uid \(st.st_uid), not by root nor by this process's uid \(owner); refused")
        }
        let writableByOthers = st.st_mode & (S_IWGRP | S_IWOTH)
        if writableByOthers != 0 && st.st_mode & S_ISVTX == 0 {
            throw SystemError(errno: EPERM, call: "use directory", path: path,
                              detail: "writable by \(st.st_mode & S_IWOTH != 0 ? "others" : "its group") without the sticky bit (mode \(String(st.st_mode & 0o7777, radix: 8))); refused")
        }
    }

    /// 16 hex digits from getrandom(2): a name nobody can predict.
    static func randomSuffix() throws(SystemError) -> String {
        var value: UInt64 = 0
        let n = try retryingInterrupts("getrandom", path: nil) { withUnsafeMutableBytes(of: &value) { evroute_getrandom($0.baseAddress, UInt($0.count)) } }
        guard n == MemoryLayout<UInt64>.size else { throw SystemError(errno: EIO, call: "getrandom", path: nil) }
        let hex = String(value, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// Reads a whole (small) file: at most `limit` bytes, retrying `EINTR`; what is beyond the
    /// limit is not read. For /proc/self files and request files.
    public static func readFile(_ path: String, limit: Int = 1 << 20) throws(SystemError) -> [UInt8] {
        let fd = try open(path, flags: O_RDONLY | O_CLOEXEC)
        defer { try? close(fd, path: path) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16384)
        while bytes.count < limit {
            let n = try retryingInterrupts("read", path: path) {
                chunk.withUnsafeMutableBytes { Glibc.read(fd.rawValue, $0.baseAddress, $0.count) }
            }
            if n == 0 { break }
            bytes += chunk[0..<min(n, limit - bytes.count)]
        }
        return bytes
    }
}
