#if canImport(Glibc)
import Glibc
#endif
import CLinux

/// evroute's log: one line per message on stderr. When stderr is the journal
/// (systemd sets `JOURNAL_STREAM` to its device:inode), lines carry syslog priority
/// prefixes (`<3>` error … `<7>` debug) so journald files them at the right level; otherwise
/// they read `evroute: warning: …`.
public final class Log: @unchecked Sendable {
    public enum Level: Int, Comparable, Sendable {
        case error = 3, warning = 4, notice = 5, info = 6, debug = 7
        public static func < (a: Level, b: Level) -> Bool { a.rawValue < b.rawValue }
        var word: String {
            switch self {
            case .error: "error"
            case .warning: "warning"
            case .notice: "notice"
            case .info: "info"
            case .debug: "debug"
            }
        }
    }

    /// Messages above this level are dropped.
    public var threshold: Level
    /// When set, lines are collected and written by ``flush()`` (the daemon flushes once per
    /// event-loop wakeup: one write(2) for a burst of events instead of one per line).
    public var buffered = false
    private var pending: [UInt8] = []
    public let toJournal: Bool
    private let fd: Int32

    public init(threshold: Level = .info, fd: Int32 = 2) {
        self.threshold = threshold
        self.fd = fd
        toJournal = Log.isJournal(fd: fd)
    }

    /// Whether `fd` is the stream `JOURNAL_STREAM` names.
    static func isJournal(fd: Int32) -> Bool {
        guard let env = getenv("JOURNAL_STREAM") else { return false }
        let parts = String(cString: env).split(separator: ":")
        guard parts.count == 2, let dev = UInt64(parts[0]), let ino = UInt64(parts[1]) else { return false }
        var st = stat()
        guard fstat(fd, &st) == 0 else { return false }
        return UInt64(st.st_dev) == dev && UInt64(st.st_ino) == ino
    }

    public func log(_ level: Level, _ message: @autoclosure () -> String) {
        guard level <= threshold else { return }
        var line = toJournal ? "<\(level.rawValue)>\(message())" : "evroute: \(level.word): \(message())"
        line = line.replacingNewlines()
        line.append("\n")
        if buffered {
            pending.append(contentsOf: line.utf8)
            if pending.count >= 1 << 16 { flush() }
            return
        }
        line.withUTF8 { p in _ = write(fd, p.baseAddress, p.count) }
    }

    /// Writes the collected lines (buffered mode).
    public func flush() {
        guard !pending.isEmpty else { return }
        var offset = 0
        while offset < pending.count {
            let n = pending.withUnsafeBytes { p in write(fd, p.baseAddress! + offset, p.count - offset) }
            if n < 0 { if errno == EINTR { continue }; break }
            offset += n
        }
        pending.removeAll(keepingCapacity: true)
    }

    public func error(_ m: @autoclosure () -> String) { log(.error, m()) }
    public func warning(_ m: @autoclosure () -> String) { log(.warning, m()) }
    public func notice(_ m: @autoclosure () -> String) { log(.notice, m()) }
    public func info(_ m: @autoclosure () -> String) { log(.info, m()) }
    public func debug(_ m: @autoclosure () -> String) { log(.debug, m()) }
}

extension String {
    /// One journal entry per message: embedded newlines become `⏎ `.
    public func replacingNewlines() -> String {
        guard contains("\n") else { return self }
        return split(separator: "\n", omittingEmptySubsequences: false).joined(separator: " ⏎ ")
    }
}
