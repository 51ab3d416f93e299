#if canImport(Glibc)
import Glibc
#endif
import CLinux
import EvrouteTime

/// evroute's log: one line per message on stderr. When stderr is the journal
/// (systemd sets `JOURNAL_STREAM` to its device:inode), lines carry syslog priority
/// prefixes (`<3>` error … `<7>` debug) so journald files them at the right level; otherwise
/// they read `evroute: warning: …`. A log given a journal socket (the daemon's) sends its
/// entries there instead when stderr is the journal, through journald's native protocol
/// (``JournalEntry``): `PRIORITY`, `SYSLOG_IDENTIFIER=evroute`, `MESSAGE`, and the
/// `MESSAGE_ID` and `EVROUTE_*` fields of a message logged with its ``LogKind`` and
/// ``LogField``s. When that socket cannot be used, the lines go to stderr for good, after one
/// notice.
///
/// The daemon's log never waits for its reader (``writeWithoutWaiting()``): a reader that stalls
/// (journald stuck, a paused terminal, `| less`) leaves lines waiting, at most
/// ``maximumBacklog`` bytes of them; beyond that whole lines are dropped and counted, and once
/// the backlog is written a line `N log lines dropped while stderr was not being read` says so.
/// Bytes from peers are written through ``LogLine/append(peer:)`` (``Log/escaped(_:)``): their
/// control characters and invalid UTF-8 as visible escapes.
public final class Log: @unchecked Sendable {
    public enum Level: Int, Comparable, Sendable {
        case error = 3, warning = 4, notice = 5, info = 6, debug = 7
        @inlinable public static func < (a: Level, b: Level) -> Bool { a.rawValue < b.rawValue }
        /// The journal's `PRIORITY` value.
        var priority: StaticString {
            switch self {
            case .error: "3"
            case .warning: "4"
            case .notice: "5"
            case .info: "6"
            case .debug: "7"
            }
        }
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
    @inlinable public var threshold: Level {
        get { currentThreshold }
        set { currentThreshold = newValue }
    }
    /// What every line reads (``threshold``, ``buffered``, ``native``), in one place: read at
    /// every line, on the loop's thread only, so without dynamic exclusivity checks.
    @usableFromInline struct LineState {
        @usableFromInline var threshold: Level
        @usableFromInline var buffered = false
        @usableFromInline var native = false
        @usableFromInline init(threshold: Level) { self.threshold = threshold }
    }
    @exclusivity(unchecked) @usableFromInline internal var lineState: LineState
    @inlinable var currentThreshold: Level {
        get { lineState.threshold }
        set { lineState.threshold = newValue }
    }
    @inlinable var currentlyBuffered: Bool {
        get { lineState.buffered }
        set { lineState.buffered = newValue }
    }
    /// Whether entries go to ``journal`` (journald's native protocol): ``pending`` then holds
    /// entries, each a 4-byte length (host order) and the entry's fields.
    @inlinable var native: Bool {
        get { lineState.native }
        set { lineState.native = newValue }
    }
    /// journald's socket, while entries go there.
    private var journal: JournalSocket?
    /// Where the entry being written begins in ``pending``, and its `MESSAGE` value.
    @usableFromInline var entryStart = 0
    @usableFromInline var messageStart = 0
    /// When set, info and debug lines are collected and written by ``flush()`` (the daemon's
    /// loop flushes per the one flush policy, `OutputFlush`, at most 250 ms late: one write(2)
    /// for a burst of events instead of one per line); notices, warnings and errors are written
    /// at once.
    @inlinable public var buffered: Bool {
        get { currentlyBuffered }
        set { currentlyBuffered = newValue }
    }
    /// Lines not yet written. Confined to the loop's thread like the rest of the log. Made at
    /// the size it is flushed at (``lineEnded(_:)``) and room for a line beyond: a busy log never
    /// grows it (its pages are touched only as lines fill them).
    @usableFromInline let pending = LogBuffer(capacity: 1 << 16 + 1 << 12)
    public let toJournal: Bool
    /// Where lines go: the descriptor given, or the log's own open of it
    /// (``writeWithoutWaiting()``).
    private var fd: Int32
    /// Whether ``fd`` is the log's own (closed with the log).
    private var ownsFD = false
    /// Whether ``fd`` is a socket (journald's stream): written with `send(MSG_DONTWAIT)`.
    private var isSocket = false
    /// Whether writing may stop when ``fd`` is full (EAGAIN) instead of waiting for it.
    private var neverWaits = false
    /// The most bytes of unwritten lines kept while the reader does not read; lines beyond are
    /// dropped (whole) and counted.
    public let maximumBacklog: Int
    /// Lines dropped since the reader stopped reading, not yet reported.
    public private(set) var droppedLines = 0
    /// While lines are being dropped: the bytes at the front of ``pending`` that are kept (the
    /// backlog, written before the drop notice); what is logged after them is dropped until they
    /// are written.
    private var kept = 0
    /// The loop that tells the log when a full ``fd`` takes more (``watchWritability(in:)``).
    private weak var loop: EventLoop?
    /// Whether the log waits for ``loop`` to report ``fd`` writable (nothing is tried before).
    private var awaitingWriter = false

    /// The prefix of an info line (the per-event lines' level; ``writePrefix(_:toJournal:into:)``)
    /// as three words to store, and its length: written by three stores instead of a copy.
    @usableFromInline let infoPrefix: (UInt64, UInt64, UInt64)
    @usableFromInline let infoPrefixLength: Int

    /// A log writing to `fd`. With `journalSocket` (the daemon's log: ``JournalEntry/defaultSocketPath``),
    /// entries go through that socket in journald's native protocol when `fd` is the journal's
    /// stream (`JOURNAL_STREAM`); when the socket cannot be opened, lines go to `fd` after one
    /// notice.
    public init(threshold: Level = .info, fd: Int32 = 2, maximumBacklog: Int = 1 << 18, journalSocket: String? = nil) {
        lineState = LineState(threshold: threshold)
        self.fd = fd
        self.maximumBacklog = maximumBacklog
        toJournal = Log.isJournal(fd: fd)
        var journalFailure: SystemError?
        if toJournal, let journalSocket {
            do throws(SystemError) {
                journal = try JournalSocket(path: journalSocket)
                lineState.native = true
            } catch {
                journalFailure = error
            }
        }
        // Written by the one prefix rule, then kept as words.
        let written = LogBuffer(capacity: 64)
        Log.writePrefix(.info, toJournal: toJournal, into: written)
        var words: (UInt64, UInt64, UInt64) = (0, 0, 0)
        precondition(written.count <= MemoryLayout.size(ofValue: words), "an info prefix longer than its three words")
        withUnsafeMutableBytes(of: &words) { raw in
            for i in 0..<written.count { raw[i] = written.base[i] }
        }
        infoPrefix = words
        infoPrefixLength = written.count
        if let journalFailure, let journalSocket {
            notice(.journalUnavailable, "journal: cannot use \(journalSocket) (\(journalFailure)); logging lines to stderr")
        }
    }

    /// Whether entries go through journald's native protocol (else lines to stderr).
    public var sendsToJournal: Bool { native }

    /// The journal socket the daemon's log uses: `$EVROUTE_JOURNAL_SOCKET` (for tests) or
    /// journald's (``JournalEntry/defaultSocketPath``).
    public static var journalSocketPath: String {
        getenv("EVROUTE_JOURNAL_SOCKET").map { String(cString: $0) } ?? JournalEntry.defaultSocketPath
    }

    /// The descriptor the log writes to: journald's socket, or ``fd``.
    private var output: FileDescriptor { journal?.fd ?? FileDescriptor(rawValue: fd) }

    deinit {
        watchWritability(in: nil)
        if ownsFD { _ = close(fd) }
    }

    /// Makes writing never wait for the reader (the daemon's log): a write that would block
    /// writes what fits and the rest waits (see ``flush()``). O_NONBLOCK belongs to the open file
    /// description, which stderr shares with the parent (a shell's terminal, a pipe's other
    /// writers): setting it there would hand them EAGAIN. So the descriptor is not changed:
    /// - a socket (journald's stream) is written with `send(MSG_DONTWAIT)`, per call;
    /// - a pipe or a terminal is opened again through `/proc/self/fd` with `O_NONBLOCK`: a
    ///   description of the log's own (when that fails — no /proc — writes may still wait);
    /// - a regular file (or anything else) never makes a writer wait for a reader.
    public func writeWithoutWaiting() {
        guard !neverWaits else { return }
        neverWaits = true
        var st = stat()
        guard fstat(fd, &st) == 0 else { return }
        switch st.st_mode & S_IFMT {
        case S_IFSOCK:
            isSocket = true
        case S_IFIFO, S_IFCHR:
            let own = open("/proc/self/fd/\(fd)", O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
            if own >= 0 {
                fd = own
                ownsFD = true
            }
        default:
            break
        }
    }

    /// Lets `loop` tell the log when its descriptor, full, takes more: until then nothing is
    /// written (no write is tried per line, the loop's flush timer is not armed) and the backlog
    /// goes out at the writability. Nil: the next ``flush()`` tries again (the daemon's last
    /// lines at exit).
    public func watchWritability(in loop: EventLoop?) {
        if let old = self.loop, awaitingWriter { old.unwatch(output) }
        awaitingWriter = false
        self.loop = loop
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

    /// Logs a message of a kind (its journal `MESSAGE_ID`) about what `fields` name (the
    /// journal's `EVROUTE_*` fields). Outside the journal the line is the same as without them.
    public func log(_ level: Level, _ kind: LogKind, fields: KeyValuePairs<LogField, String> = [:], _ message: @autoclosure () -> String) {
        guard level <= threshold else { return }
        appendLine(level, kind, fields: fields, message())
        lineEnded(level)
    }

    /// Logs a line written in place, into the log's own buffer (the per-event path: no `String`
    /// is built, nothing is allocated). Nothing is written, and `write` is not called, when
    /// `level` is above the threshold.
    public func log(_ level: Level, _ write: (inout LogLine) -> Void) {
        guard level <= threshold else { return }
        writePrefix(level)
        var line = LogLine(buffer: pending, keepsNewlines: native)
        write(&line)
        endLine(level)
    }

    /// The per-event path's way to write a line whose length it bounds: `write` appends at most
    /// `maximum` bytes of text (no newline) after the line's prefix, in the log's own buffer
    /// (not called, and nothing written, when `level` is above the threshold). No ``LogLine``.
    /// (Inlined into the caller: the per-event line's path makes no call into the log while
    /// the line waits for the flush.)
    @inlinable @inline(__always)
    public func writeLine(_ level: Level, maximum: Int, _ write: (inout OutputSpan<UInt8>) -> Void) {
        guard level <= threshold else { return }
        if level == .info, !native {
            // Room for the prefix's three words, the text and the newline.
            let p = pending.reserve(24 + maximum + 1)
            let raw = UnsafeMutableRawPointer(p)
            raw.storeBytes(of: infoPrefix.0, toByteOffset: 0, as: UInt64.self)
            raw.storeBytes(of: infoPrefix.1, toByteOffset: 8, as: UInt64.self)
            raw.storeBytes(of: infoPrefix.2, toByteOffset: 16, as: UInt64.self)
            pending.advance(infoPrefixLength)
        } else {
            writePrefix(level)
        }
        let room = UnsafeMutableBufferPointer(start: pending.reserve(maximum + 1), count: maximum)
        var text = OutputSpan(buffer: room, initializedCount: 0)
        write(&text)
        let length = text.finalize(for: room)
        if native {
            pending.advance(length)
            endEntry()
        } else {
            // The newline, in the room reserved for it.
            (pending.base + pending.length + length).pointee = 0x0A
            pending.advance(length + 1)
        }
        lineEnded(level)
    }

    /// Begins a line (or, to the journal, an entry without a kind) at `level`.
    @usableFromInline
    func writePrefix(_ level: Level) {
        if native { beginEntry(level, nil, [:]); return }
        Log.writePrefix(level, toJournal: toJournal, into: pending)
    }

    /// Begins a journal entry in ``pending``: its length's room, the fields, and `MESSAGE=`
    /// (the message is written next, then ``endEntry()``).
    @usableFromInline
    func beginEntry(_ level: Level, _ kind: LogKind?, _ fields: KeyValuePairs<LogField, String>) {
        entryStart = pending.count
        pending.reserve(4)
        pending.advance(4)
        JournalEntry.append("PRIORITY", level.priority, to: pending)
        JournalEntry.append("SYSLOG_IDENTIFIER", "evroute", to: pending)
        if let kind { JournalEntry.append("MESSAGE_ID", kind.id, to: pending) }
        for (field, value) in fields { JournalEntry.append(field.key, value, to: pending) }
        messageStart = JournalEntry.beginValue("MESSAGE", in: pending)
    }

    /// Ends the journal entry being written: the message's field, and the entry's length.
    @usableFromInline
    func endEntry() {
        JournalEntry.endValue(from: messageStart, in: pending)
        let length = UInt32(pending.count - entryStart - 4)
        UnsafeMutableRawPointer(pending.base + entryStart).storeBytes(of: length, as: UInt32.self)
    }

    /// What a line at `level` begins with: its syslog priority for the journal (`<6>`), else
    /// ``Level/prefix``.
    private static func writePrefix(_ level: Level, toJournal: Bool, into buffer: LogBuffer) {
        if toJournal {
            let p = buffer.reserve(3)
            p[0] = UInt8(ascii: "<")
            p[1] = UInt8(truncatingIfNeeded: 0x30 + level.rawValue)
            p[2] = UInt8(ascii: ">")
            buffer.advance(3)
        } else {
            level.prefix.withUTF8Buffer { buffer.append($0) }
        }
    }

    private func endLine(_ level: Level) {
        terminateLine()
        lineEnded(level)
    }

    /// Ends the line (or entry) being written, without writing it.
    private func terminateLine() {
        if native { endEntry(); return }
        pending.reserve(1)[0] = 0x0A
        pending.advance(1)
    }

    /// Appends a whole line (or entry) of `kind`, not written yet.
    private func appendLine(_ level: Level, _ kind: LogKind, fields: KeyValuePairs<LogField, String> = [:], _ text: String) {
        if native { beginEntry(level, kind, fields) } else { writePrefix(level) }
        var line = LogLine(buffer: pending, keepsNewlines: native)
        line.append(text)
        terminateLine()
    }

    /// Where the journal entry at `offset` of ``pending`` ends (its 4-byte length, then its fields).
    private func entryEnd(at offset: Int) -> Int {
        offset + 4 + Int(UnsafeRawPointer(pending.base + offset).loadUnaligned(as: UInt32.self))
    }

    /// A line at `level` is complete: written now, or left for the loop's flush.
    @inlinable @inline(__always)
    func lineEnded(_ level: Level) {
        // Notices, warnings and errors are rare and wanted now; info and debug lines (one per
        // event from the log plugin) wait for the loop's flush.
        if !buffered || level <= .notice || pending.count >= 1 << 16 { flush() }
    }

    /// Whether lines wait for ``flush()`` (buffered mode) that a flush can write now (not while
    /// the log waits for its reader to read: the loop then reports the descriptor writable).
    public var hasPending: Bool { pending.count > 0 && !awaitingWriter }

    /// Writes the collected lines, as far as the descriptor takes them without waiting
    /// (``writeWithoutWaiting()``); the rest waits, at most ``maximumBacklog`` bytes of it.
    public func flush() {
        guard pending.count > 0 else { return }
        if awaitingWriter {
            // The reader is behind: no write until the loop says it reads again.
            keepWithinBacklog()
            return
        }
        write()
    }

    /// Writes what waits: the backlog; once all of it is written, the drop notice, if lines
    /// were dropped.
    private func write() {
        if droppedLines > 0 { dropAfterKept() }
        let written: Int
        do throws(SystemError) {
            if let journal {
                written = try sendEntries(to: journal)
            } else {
                written = try SystemCall.writeAll(FileDescriptor(rawValue: fd), UnsafeRawBufferPointer(start: pending.base, count: pending.count),
                                                  socket: isSocket, whenFull: neverWaits ? .stop : .wait)
            }
        } catch {
            if let journal {
                journalFailed(journal, error)
                return
            }
            // The reader is gone (EPIPE) or the descriptor broken: the lines go nowhere.
            pending.removeAll()
            kept = 0
            droppedLines = 0
            readerIsBack()
            return
        }
        pending.removeFirst(written)
        if pending.count == 0 {
            kept = 0
            readerIsBack()
            if droppedLines > 0 {
                let n = droppedLines
                droppedLines = 0
                appendLine(.warning, .logLinesDropped, native
                           ? "\(n) log entr\(n == 1 ? "y" : "ies") dropped while the journal was not reading"
                           : "\(n) log line\(n == 1 ? "" : "s") dropped while stderr was not being read")
                write()
            }
            return
        }
        if droppedLines > 0 { kept = pending.count }
        keepWithinBacklog()
        awaitWriter()
    }

    /// At exit (the loop no longer runs): writes what waits — the backlog, then the count of
    /// the lines dropped — waiting for the reader at most `milliseconds` in all (poll(2) on the
    /// descriptor between tries). Journal entries still unsent then (journald behind) go to
    /// stderr as its `<N>` lines, the drop count with them, written without waiting: a stop never
    /// loses its last lines in silence, and never hangs on its reader.
    public func drain(waitingAtMost milliseconds: Int) {
        watchWritability(in: nil)
        let deadline = MonotonicClock.now() + Timestamp.Duration.milliseconds(Int64(milliseconds))
        while pending.count > 0 || droppedLines > 0 {
            if pending.count == 0 { kept = 0 }
            write()
            if pending.count == 0 && droppedLines == 0 { return }
            let left = (deadline - MonotonicClock.now()).microseconds / 1000
            if left <= 0 { break }
            var entry = pollfd(fd: output.rawValue, events: Int16(POLLOUT), revents: 0)
            if Glibc.poll(&entry, 1, Int32(min(left, Int64(Int32.max)))) < 0 && Glibc.errno != EINTR { break }
        }
        // Nothing left (all written before or during the wait): no fallback, no notice.
        guard native, journal != nil, pending.count > 0 || droppedLines > 0 else { return }
        // journald did not take them in time: its stream (stderr) gets them as lines.
        var lines: [UInt8] = []
        var offset = 0
        while offset + 4 <= pending.count {
            let end = entryEnd(at: offset)
            lines += Log.streamLine(ofEntry: UnsafeBufferPointer(start: pending.base + offset + 4, count: end - offset - 4))
            offset = end
        }
        let unsent = countLines(from: 0)
        if droppedLines > 0 {
            let n = droppedLines
            lines += Array("<4>\(n) log entr\(n == 1 ? "y" : "ies") dropped while the journal was not reading\n".utf8)
        }
        if unsent > 0 {
            lines += Array("<4>journal: \(unsent) log entr\(unsent == 1 ? "y" : "ies") not sent to \(journal!.path) before exit (journald behind); written to stderr\n".utf8)
        }
        pending.removeAll()
        droppedLines = 0
        kept = 0
        native = false
        journal = nil
        _ = lines.withUnsafeBytes { raw in
            try? SystemCall.writeAll(FileDescriptor(rawValue: fd), raw, socket: isSocket, whenFull: .stop)
        }
    }

    /// A journal entry (its fields) as a line of journald's stream: `<PRIORITY>MESSAGE`, the
    /// message's newlines as ` ⏎ `.
    static func streamLine(ofEntry entry: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var priority: [UInt8] = [UInt8(ascii: "6")], message: [UInt8] = []
        var i = 0
        while i < entry.count {
            var end = i
            while end < entry.count && entry[end] != 0x0A && entry[end] != UInt8(ascii: "=") { end += 1 }
            guard end < entry.count else { break }
            let key = Array(entry[i..<end])
            let value: [UInt8]
            if entry[end] == UInt8(ascii: "=") {
                var newline = end + 1
                while newline < entry.count && entry[newline] != 0x0A { newline += 1 }
                value = Array(entry[(end + 1)..<newline])
                i = newline + 1
            } else {
                guard end + 9 <= entry.count else { break }
                var length = 0
                for k in 0..<8 { length |= Int(entry[end + 1 + k]) << (8 * k) }
                let start = end + 9
                guard start + length <= entry.count else { break }
                value = Array(entry[start..<(start + length)])
                i = start + length + 1
            }
            if key == Array("PRIORITY".utf8) { priority = value }
            if key == Array("MESSAGE".utf8) { message = value }
        }
        var line = LogLine()
        line.append(prepared: [UInt8(ascii: "<")] + priority + [UInt8(ascii: ">")])
        line.append(String(decoding: message, as: UTF8.self))
        return line.bytes + [0x0A]
    }

    /// Sends the waiting journal entries, one datagram each, until journald takes no more;
    /// returns the bytes of ``pending`` sent.
    private func sendEntries(to journal: JournalSocket) throws(SystemError) -> Int {
        var offset = 0
        do throws(SystemError) {
            while offset + 4 <= pending.count {
                let end = entryEnd(at: offset)
                guard try journal.send(UnsafeRawBufferPointer(start: pending.base + offset + 4, count: end - offset - 4)) else { break }
                offset = end
            }
        } catch {
            pending.removeFirst(offset)   // those went; the rest is lost (journalFailed)
            throw error
        }
        return offset
    }

    /// journald's socket failed (gone, refused): lines go to stderr from now on; the entries
    /// waiting are lost, and said so.
    private func journalFailed(_ journal: JournalSocket, _ error: SystemError) {
        let lost = countLines(from: 0) + droppedLines
        readerIsBack()
        awaitingWriter = false
        pending.removeAll()
        kept = 0
        droppedLines = 0
        self.journal = nil
        native = false
        appendLine(.warning, .journalUnavailable,
                   "journal: cannot send to \(journal.path) (\(error)); \(lost) log entr\(lost == 1 ? "y" : "ies") lost; logging lines to stderr from now on")
        write()
    }

    /// Keeps the unwritten lines within ``maximumBacklog``: once beyond, the lines past it
    /// (whole) are dropped and counted, and so is every line logged after them until the kept
    /// ones are written.
    private func keepWithinBacklog() {
        if droppedLines > 0 { dropAfterKept(); return }
        guard pending.count > maximumBacklog else { return }
        if native {
            // Journal entries: the first kept whole, and every one that ends within the bound.
            var end = 0
            while end + 4 <= pending.count {
                let next = entryEnd(at: end)
                if next > maximumBacklog && end > 0 { break }
                end = next
            }
            guard end < pending.count else { return }
            kept = end
            droppedLines = countLines(from: kept)
            pending.removeLast(pending.count - kept)
            return
        }
        // The first line is kept whole (it may be half written), and every line that ends
        // within the bound.
        var end = 0
        for i in stride(from: maximumBacklog - 1, to: 0, by: -1) where pending.base[i] == 0x0A { end = i + 1; break }
        if end == 0, let first = memchr(pending.base, 0x0A, pending.count) {
            end = first.assumingMemoryBound(to: UInt8.self) - pending.base + 1
        }
        guard end > 0, end < pending.count else { return }
        kept = end
        droppedLines = countLines(from: kept)
        pending.removeLast(pending.count - kept)
    }

    /// Drops (counting them) the lines after the kept backlog.
    private func dropAfterKept() {
        guard pending.count > kept else { return }
        droppedLines += countLines(from: kept)
        pending.removeLast(pending.count - kept)
    }

    /// The lines (newlines; journal entries) in ``pending`` from `offset` on.
    private func countLines(from offset: Int) -> Int {
        if native {
            var count = 0, at = offset
            while at + 4 <= pending.count {
                at = entryEnd(at: at)
                count += 1
            }
            return count
        }
        var count = 0, p = pending.base + offset, left = pending.count - offset
        while left > 0, let nl = memchr(p, 0x0A, left) {
            let next = nl.assumingMemoryBound(to: UInt8.self) + 1
            count += 1
            left -= next - p
            p = next
        }
        return count
    }

    /// The descriptor is full: when a loop watches for it, nothing is tried until it takes more.
    private func awaitWriter() {
        guard let loop, !awaitingWriter else { return }
        do {
            let fd = output
            if !loop.isWatching(fd) {
                try loop.watch(fd, for: .writable) { [unowned self] _ in
                    awaitingWriter = false
                    write()   // stops the watch once all is written
                }
            }
            awaitingWriter = true
        } catch {
            // Not watchable: the loop's flush timer tries again (hasPending stays true).
        }
    }

    /// Stops watching for writability.
    private func readerIsBack() {
        guard let loop, loop.isWatching(output) else { return }
        loop.unwatch(output)
    }

    public func error(_ m: @autoclosure () -> String) { log(.error, m()) }
    public func warning(_ m: @autoclosure () -> String) { log(.warning, m()) }
    public func notice(_ m: @autoclosure () -> String) { log(.notice, m()) }
    public func info(_ m: @autoclosure () -> String) { log(.info, m()) }
    public func debug(_ m: @autoclosure () -> String) { log(.debug, m()) }

    public func error(_ kind: LogKind, fields: KeyValuePairs<LogField, String> = [:], _ m: @autoclosure () -> String) { log(.error, kind, fields: fields, m()) }
    public func warning(_ kind: LogKind, fields: KeyValuePairs<LogField, String> = [:], _ m: @autoclosure () -> String) { log(.warning, kind, fields: fields, m()) }
    public func notice(_ kind: LogKind, fields: KeyValuePairs<LogField, String> = [:], _ m: @autoclosure () -> String) { log(.notice, kind, fields: fields, m()) }
    public func info(_ kind: LogKind, fields: KeyValuePairs<LogField, String> = [:], _ m: @autoclosure () -> String) { log(.info, kind, fields: fields, m()) }
    public func debug(_ kind: LogKind, fields: KeyValuePairs<LogField, String> = [:], _ m: @autoclosure () -> String) { log(.debug, kind, fields: fields, m()) }
}

/// Bytes being collected for output: a growable buffer written through raw pointers (no
/// uniqueness or bounds bookkeeping per byte, unlike an array), for the log's lines. Confined
/// to one thread.
public final class LogBuffer {
    @inlinable var base: UnsafeMutablePointer<UInt8> { start }
    /// ``base``, the bytes collected and the room, in one place (read per line, on one thread:
    /// no dynamic exclusivity checks).
    @usableFromInline struct Storage {
        @usableFromInline var start: UnsafeMutablePointer<UInt8>
        @usableFromInline var length = 0
        @usableFromInline var capacity: Int
        @usableFromInline init(start: UnsafeMutablePointer<UInt8>, capacity: Int) {
            self.start = start
            self.capacity = capacity
        }
    }
    @exclusivity(unchecked) @usableFromInline var storage: Storage
    @inlinable var start: UnsafeMutablePointer<UInt8> {
        get { storage.start }
        set { storage.start = newValue }
    }
    /// The bytes collected.
    public var count: Int { length }
    @inlinable var length: Int {
        get { storage.length }
        set { storage.length = newValue }
    }
    @inlinable var capacity: Int {
        get { storage.capacity }
        set { storage.capacity = newValue }
    }

    public init(capacity: Int) {
        let capacity = max(capacity, 64)
        storage = Storage(start: .allocate(capacity: capacity), capacity: capacity)
    }

    deinit { base.deallocate() }

    /// Room for `n` more bytes at the end; write them there, then ``advance(_:)``.
    @inlinable @inline(__always)
    @discardableResult
    func reserve(_ n: Int) -> UnsafeMutablePointer<UInt8> {
        if length + n > capacity { grow(to: length + n) }
        return base + length
    }

    /// Counts `n` bytes written at ``reserve(_:)``'s place.
    @inlinable @inline(__always)
    func advance(_ n: Int) { length += n }

    /// Appends `bytes`.
    @inlinable @inline(__always)
    func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        reserve(bytes.count).update(from: source, count: bytes.count)
        length += bytes.count
    }

    /// Forgets the contents (the memory stays for the next ones).
    public func removeAll() { length = 0 }

    /// Forgets the first `n` bytes (the rest moves to the front).
    public func removeFirst(_ n: Int) {
        guard n > 0 else { return }
        if n < length { memmove(base, base + n, length - n) }
        length -= min(n, length)
    }

    /// Forgets the last `n` bytes.
    public func removeLast(_ n: Int) { length -= min(n, length) }

    /// A copy of the bytes from `offset` on.
    public func bytes(from offset: Int = 0) -> [UInt8] {
        Array(UnsafeBufferPointer(start: base + offset, count: count - offset))
    }

    @usableFromInline
    func grow(to minimum: Int) {
        let newCapacity = max(minimum, capacity * 2)
        let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newBase.update(from: base, count: count)
        base.deallocate()
        start = newBase
        capacity = newCapacity
    }
}

/// A log line being written, as UTF-8 appended to a ``LogBuffer`` (the log's own, or a line of
/// its own): text appended with ``append(_:)-(String)`` has its newlines replaced (one journal
/// entry per message) — except in a journal entry of the native protocol, which keeps them (its
/// `MESSAGE` is then sent in the binary-safe form); literals, prepared bytes and numbers
/// (``write(maximum:_:)``) are copied as they are.
public struct LogLine {
    @usableFromInline let buffer: LogBuffer
    /// Where this line begins in ``buffer``.
    let start: Int
    /// Whether newlines in text stay (a native journal entry's message).
    let keepsNewlines: Bool

    init(buffer: LogBuffer, keepsNewlines: Bool = false) {
        self.buffer = buffer
        start = buffer.count
        self.keepsNewlines = keepsNewlines
    }

    /// A line on a buffer of its own (to keep or to turn into a `String`).
    public init() { self.init(buffer: LogBuffer(capacity: 128)) }

    /// The bytes of this line so far.
    public var bytes: [UInt8] { buffer.bytes(from: start) }

    /// Appends a literal of the program's own (it holds no newline): one copy, no scan.
    @inlinable @inline(__always)
    public mutating func append(_ literal: StaticString) {
        literal.withUTF8Buffer { buffer.append($0) }
    }

    /// Appends UTF-8 prepared for a log line (newlines already replaced, e.g. the ``bytes`` of
    /// another line): one copy.
    @inlinable @inline(__always)
    public mutating func append(prepared: [UInt8]) {
        prepared.withUnsafeBufferPointer { buffer.append($0) }
    }

    /// Appends prepared UTF-8 (as ``append(prepared:)-([UInt8])``) lent for the call.
    @inlinable @inline(__always)
    public mutating func append(prepared: Span<UInt8>) {
        prepared.withUnsafeBufferPointer { buffer.append($0) }
    }

    /// Lets `body` append at most `maximum` bytes in place (no newline). For numbers:
    /// `line.write(maximum: JSONText.maximumFixedLength) { $0.append(fixed: …, decimals: 6) }`.
    @inlinable @inline(__always)
    public mutating func write(maximum: Int, _ body: (inout OutputSpan<UInt8>) -> Void) {
        let room = UnsafeMutableBufferPointer(start: buffer.reserve(maximum), count: maximum)
        var text = OutputSpan(buffer: room, initializedCount: 0)
        body(&text)
        buffer.advance(text.finalize(for: room))
    }

    /// Appends `text`, each newline as ` ⏎ `.
    @_disfavoredOverload
    public mutating func append(_ text: String) {
        var text = text
        text.withUTF8 { p in
            guard !keepsNewlines, let base = p.baseAddress, memchr(base, 0x0A, p.count) != nil else {
                buffer.append(p)   // the usual case: one copy
                return
            }
            let newline: StaticString = " ⏎ "
            var runStart = 0
            for i in 0..<p.count where p[i] == 0x0A {
                buffer.append(UnsafeBufferPointer(rebasing: p[runStart..<i]))
                newline.withUTF8Buffer { buffer.append($0) }
                runStart = i + 1
            }
            buffer.append(UnsafeBufferPointer(rebasing: p[runStart...]))
        }
    }
}

extension LogLine {
    /// Appends bytes a peer sent (a socket client's line, a helper's output, a request, a
    /// device's name), so that they cannot forge or hide log lines on a terminal: printable
    /// UTF-8 is copied as it is; a backslash is written `\\`, NUL `\0`, tab, newline and
    /// carriage return `\t` `\n` `\r`, every other control character (C0, DEL, and the C1
    /// controls U+0080–U+009F, CSI among them) and every byte that is not part of valid UTF-8 as
    /// `\xNN`. The log's one escaper for peer text (``Log/escaped(_:)-(String)`` makes a `String`
    /// of it); runs that need no escape are copied in one piece.
    mutating func append(peer bytes: UnsafeBufferPointer<UInt8>) {
        var i = 0, runStart = 0
        while i < bytes.count {
            let c = bytes[i]
            let kept: Int   // bytes of one character copied as it is; 0: escape `c`
            if c >= 0x20 && c < 0x7F { kept = c == UInt8(ascii: "\\") ? 0 : 1 }
            else if c < 0x80 { kept = 0 }
            else { kept = LogLine.printableUTF8Length(bytes, at: i) }
            if kept > 0 { i += kept; continue }
            buffer.append(UnsafeBufferPointer(rebasing: bytes[runStart..<i]))
            let p = buffer.reserve(4)
            p[0] = UInt8(ascii: "\\")
            switch c {
            case UInt8(ascii: "\\"): p[1] = c; buffer.advance(2)
            case 0: p[1] = UInt8(ascii: "0"); buffer.advance(2)
            case 0x09: p[1] = UInt8(ascii: "t"); buffer.advance(2)
            case 0x0A: p[1] = UInt8(ascii: "n"); buffer.advance(2)
            case 0x0D: p[1] = UInt8(ascii: "r"); buffer.advance(2)
            default:
                let hex: StaticString = "0123456789abcdef"
                p[1] = UInt8(ascii: "x")
                p[2] = hex.utf8Start[Int(c >> 4)]
                p[3] = hex.utf8Start[Int(c & 0x0F)]
                buffer.advance(4)
            }
            i += 1
            runStart = i
        }
        buffer.append(UnsafeBufferPointer(rebasing: bytes[runStart...]))
    }

    /// Appends text from a peer (a name it chose) as ``append(peer:)-(UnsafeBufferPointer<UInt8>)`` does.
    public mutating func append(peer text: String) {
        var text = text
        text.withUTF8 { append(peer: $0) }
    }

    /// The length of the well-formed UTF-8 sequence (Unicode's table 3-7: no overlong form, no
    /// surrogate, nothing above U+10FFFF) that begins at `i` with a byte ≥ 0x80, when it is not
    /// a C1 control; else 0.
    static func printableUTF8Length(_ bytes: UnsafeBufferPointer<UInt8>, at i: Int) -> Int {
        let lead = bytes[i]
        let length: Int, second: ClosedRange<UInt8>
        switch lead {
        case 0xC2...0xDF: length = 2; second = 0x80...0xBF
        case 0xE0: length = 3; second = 0xA0...0xBF
        case 0xE1...0xEC, 0xEE...0xEF: length = 3; second = 0x80...0xBF
        case 0xED: length = 3; second = 0x80...0x9F
        case 0xF0: length = 4; second = 0x90...0xBF
        case 0xF1...0xF3: length = 4; second = 0x80...0xBF
        case 0xF4: length = 4; second = 0x80...0x8F
        default: return 0
        }
        guard i + length <= bytes.count, second.contains(bytes[i + 1]) else { return 0 }
        for k in 2..<length where !(0x80...0xBF).contains(bytes[i + k]) { return 0 }
        if lead == 0xC2 && bytes[i + 1] < 0xA0 { return 0 }   // U+0080–U+009F: C1 controls
        return length
    }
}

extension Log {
    /// `bytes` from a peer, escaped for a log message (``LogLine/append(peer:)``).
    public static func escaped(_ bytes: some Collection<UInt8>) -> String {
        var line = LogLine()
        if bytes.withContiguousStorageIfAvailable({ line.append(peer: $0) }) == nil {
            Array(bytes).withUnsafeBufferPointer { line.append(peer: $0) }
        }
        return String(decoding: line.bytes, as: UTF8.self)
    }

    /// Text from a peer (a name it chose, a decoded line), escaped for a log message.
    public static func escaped(_ text: String) -> String {
        var line = LogLine()
        line.append(peer: text)
        return String(decoding: line.bytes, as: UTF8.self)
    }
}

extension String {
    /// One journal entry per message: embedded newlines become ` ⏎ `.
    public func replacingNewlines() -> String {
        guard utf8.contains(0x0A) else { return self }
        var line = LogLine()
        line.append(self)
        return String(decoding: line.bytes, as: UTF8.self)
    }
}
