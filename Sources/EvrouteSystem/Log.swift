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
        /// What a line at this level begins with outside the journal.
        var prefix: StaticString {
            switch self {
            case .error: "evroute: error: "
            case .warning: "evroute: warning: "
            case .notice: "evroute: notice: "
            case .info: "evroute: info: "
            case .debug: "evroute: debug: "
            }
        }
    }

    /// Messages above this level are dropped.
    public var threshold: Level
    /// When set, info and debug lines are collected and written by ``flush()`` (the daemon's
    /// loop flushes when idle or within 50 ms: one write(2) for a burst of events instead of one
    /// per line); notices, warnings and errors are written at once.
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
        log(level) { line in line.append(message()) }
    }

    /// Logs a line written in place (the per-event path: no `String` is built). Nothing is
    /// written, and `write` is not called, when `level` is above the threshold.
    public func log(_ level: Level, _ write: (inout LogLine) -> Void) {
        guard level <= threshold else { return }
        var line = LogLine(bytes: pending)
        pending = []
        if toJournal {
            line.bytes.append(UInt8(ascii: "<"))
            line.bytes.append(UInt8(truncatingIfNeeded: 0x30 + level.rawValue))
            line.bytes.append(UInt8(ascii: ">"))
        } else {
            line.append(level.prefix)
        }
        write(&line)
        line.bytes.append(0x0A)
        pending = line.bytes
        // Notices, warnings and errors are rare and wanted now; info and debug lines (one per
        // event from the log plugin) wait for the loop's flush.
        if !buffered || level <= .notice || pending.count >= 1 << 16 { flush() }
    }

    /// Whether lines wait for ``flush()`` (buffered mode).
    public var hasPending: Bool { !pending.isEmpty }

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

/// A log line being written, as UTF-8 appended to the log's own buffer: text appended with
/// ``append(_:)`` has its newlines replaced (one journal entry per message); numbers are
/// appended to ``bytes`` directly by the writer.
public struct LogLine {
    /// The bytes of the line so far (and of the lines before it still buffered).
    public var bytes: [UInt8]

    public init(bytes: [UInt8]) { self.bytes = bytes }

    /// Appends a literal of the program's own (it holds no newline): one copy, no scan.
    @inline(__always)
    public mutating func append(_ literal: StaticString) {
        literal.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// Appends UTF-8 prepared for a log line (newlines already replaced, e.g. by an earlier
    /// ``append(_:)-(String)`` into another line): one copy.
    @inline(__always)
    public mutating func append(prepared: [UInt8]) {
        bytes.append(contentsOf: prepared)
    }

    /// Appends `text`, each newline as ` ⏎ `.
    @_disfavoredOverload
    public mutating func append(_ text: String) {
        var text = text
        text.withUTF8 { p in
            guard let base = p.baseAddress, memchr(base, 0x0A, p.count) != nil else {
                bytes.append(contentsOf: p)   // the usual case: one copy
                return
            }
            for c in p {
                if c == 0x0A { bytes.append(contentsOf: [0x20, 0xE2, 0x8F, 0x8E, 0x20]) } else { bytes.append(c) }
            }
        }
    }
}

extension String {
    /// One journal entry per message: embedded newlines become ` ⏎ `.
    public func replacingNewlines() -> String {
        guard utf8.contains(0x0A) else { return self }
        var line = LogLine(bytes: [])
        line.append(self)
        return String(decoding: line.bytes, as: UTF8.self)
    }
}
