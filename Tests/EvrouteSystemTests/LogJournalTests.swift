import Testing
import EvrouteChecks
#if canImport(Glibc)
import Glibc
#endif
import CLinux
@testable import EvrouteSystem
import EvrouteTestSupport

/// The log under journald: stderr is the journal's stream (`JOURNAL_STREAM` names its
/// device:inode; here a file's), and the log sends entries through the native protocol to a
/// datagram socket the test binds in journald's place, then parses what arrives.
@Suite("Log: journald's native protocol", .serialized)
struct LogJournalTests {
    /// A bound datagram socket standing in for /run/systemd/journal/socket, and a file standing
    /// in for the journal's stream (stderr).
    final class FakeJournal {
        let scratch = Scratch("evroute-journal-test")
        let socketPath: String
        let streamPath: String
        private(set) var socketFD: Int32
        let streamFD: Int32

        init() throws {
            socketPath = scratch.file("journal.sock")
            streamPath = scratch.file("stream")
            let fd = socket(AF_UNIX, SocketType.datagram | SocketType.nonBlocking, 0)
            socketFD = fd
            guard let address = UnixSocketAddress(socketPath), address.withSockaddr({ bind(fd, $0, $1) }) == 0 else {
                throw TestSupportError("bind \(socketPath): \(String(cString: strerror(errno)))")
            }
            streamFD = open(streamPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            var st = stat()
            guard streamFD >= 0, fstat(streamFD, &st) == 0 else { throw TestSupportError("open \(streamPath)") }
            setenv("JOURNAL_STREAM", "\(st.st_dev):\(st.st_ino)", 1)
        }

        deinit {
            unsetenv("JOURNAL_STREAM")
            closeSocket()
            close(streamFD)
            scratch.cleanUp()
        }

        /// Closes the receiving end (journald gone).
        func closeSocket() {
            if socketFD >= 0 { close(socketFD) }
            socketFD = -1
        }

        /// What a datagram brought: its payload, or the contents of the descriptor it carried.
        struct Datagram {
            var payload: [UInt8]
            /// The memfd's contents and seals, when it carried one.
            var memfd: (contents: [UInt8], seals: Int32)?
            var entry: [UInt8] { memfd?.contents ?? payload }
        }

        /// Every datagram waiting (the socket is non-blocking: the log sent them already).
        func receive() -> [Datagram] {
            var out: [Datagram] = []
            guard socketFD >= 0 else { return out }
            var buffer = [UInt8](repeating: 0, count: 1 << 20)
            while true {
                var fd: Int32 = -1
                let n = buffer.withUnsafeMutableBytes { evroute_receive_with_descriptor(socketFD, $0.baseAddress, UInt($0.count), &fd, 0) }
                guard n >= 0 else { break }
                var datagram = Datagram(payload: Array(buffer[0..<Int(n)]))
                if fd >= 0 {
                    let seals = evroute_memfd_seals(fd)
                    var contents: [UInt8] = [], chunk = [UInt8](repeating: 0, count: 65536)
                    _ = lseek(fd, 0, SEEK_SET)
                    while true {
                        let r = read(fd, &chunk, chunk.count)
                        if r <= 0 { break }
                        contents += chunk[0..<r]
                    }
                    close(fd)
                    datagram.memfd = (contents, seals)
                }
                out.append(datagram)
            }
            return out
        }

        /// What the log wrote to its stderr.
        var stream: String { (try? SystemCall.readFile(streamPath)).map { String(decoding: $0, as: UTF8.self) } ?? "" }
    }

    /// An entry's fields in order, per the protocol: `KEY=value\n`, or `KEY\n` + a
    /// little-endian 64-bit length + the value + `\n`.
    static func fields(_ entry: [UInt8]) -> [(String, [UInt8])] {
        var out: [(String, [UInt8])] = [], i = 0
        while i < entry.count {
            guard let end = entry[i...].firstIndex(where: { $0 == 0x0A || $0 == UInt8(ascii: "=") }) else { break }
            let key = String(decoding: entry[i..<end], as: UTF8.self)
            if entry[end] == UInt8(ascii: "=") {
                let newline = entry[(end + 1)...].firstIndex(of: 0x0A) ?? entry.count
                out.append((key, Array(entry[(end + 1)..<newline])))
                i = newline + 1
            } else {
                var length: UInt64 = 0
                for k in 0..<8 { length |= UInt64(entry[end + 1 + k]) << (8 * UInt64(k)) }
                let start = end + 9
                out.append((key, Array(entry[start..<(start + Int(length))])))
                expectEqual(entry[start + Int(length)], 0x0A, "a binary-safe value ends with a newline")
                i = start + Int(length) + 1
            }
        }
        return out
    }

    static func text(_ fields: [(String, [UInt8])], _ key: String) -> String? {
        fields.first { $0.0 == key }.map { String(decoding: $0.1, as: UTF8.self) }
    }

    @Test("a tagged warning: PRIORITY, SYSLOG_IDENTIFIER, MESSAGE_ID, EVROUTE_PLUGIN, MESSAGE; nothing on stderr")
    func taggedEntry() throws {
        let journal = try FakeJournal()
        let log = Log(threshold: .debug, fd: journal.streamFD, journalSocket: journal.socketPath)
        expect(log.sendsToJournal)
        log.writeWithoutWaiting()
        log.warning(.pluginFailed, fields: [.plugin: "scan-helper"], "process scan-helper: gone")
        log.info(.deviceAdded, fields: [.device: "touch"], "device added")
        log.notice("untagged")
        let datagrams = journal.receive()
        try #require(datagrams.count == 3)
        expect(datagrams.allSatisfy { $0.memfd == nil })
        let first = Self.fields(datagrams[0].entry)
        expectEqual(first.map(\.0), ["PRIORITY", "SYSLOG_IDENTIFIER", "MESSAGE_ID", "EVROUTE_PLUGIN", "MESSAGE"])
        expectEqual(Self.text(first, "PRIORITY"), "4")
        expectEqual(Self.text(first, "SYSLOG_IDENTIFIER"), "evroute")
        expectEqual(Self.text(first, "MESSAGE_ID"), "17b5ec15247145c1b766f0e592aed007")
        expectEqual(Self.text(first, "EVROUTE_PLUGIN"), "scan-helper")
        expectEqual(Self.text(first, "MESSAGE"), "process scan-helper: gone")
        let second = Self.fields(datagrams[1].entry)
        expectEqual(Self.text(second, "PRIORITY"), "6")
        expectEqual(Self.text(second, "MESSAGE_ID"), LogKind.deviceAdded.id.description)
        expectEqual(Self.text(second, "EVROUTE_DEVICE"), "touch")
        let third = Self.fields(datagrams[2].entry)
        expectEqual(third.map(\.0), ["PRIORITY", "SYSLOG_IDENTIFIER", "MESSAGE"])
        expectEqual(Self.text(third, "PRIORITY"), "5")
        expect(journal.stream.isEmpty, "entries go to the socket, not stderr")
    }

    @Test("every MESSAGE_ID is 32 lowercase hex digits, and each kind has its own")
    func messageIDs() {
        let ids = LogKind.allCases.map { $0.id.description }
        expectEqual(Set(ids).count, ids.count)
        for id in ids { expect(id.count == 32 && id.allSatisfy { "0123456789abcdef".contains($0) }, "\(id)") }
    }

    @Test("every MESSAGE_ID is in the catalog of docs/daemon.md and in systemd/evroute.catalog, and no other")
    func catalogs() throws {
        let docs = try #require(readFile(packageRoot + "/docs/daemon.md"))
        let catalog = try #require(readFile(packageRoot + "/systemd/evroute.catalog"))
        let ids = Set(LogKind.allCases.map { $0.id.description })
        let inDocs = Set(docs.split(separator: "\n").compactMap { row -> String? in
            // `| `ID` | …`: 32 hex digits in backquotes open a row of the catalog's table.
            guard row.hasPrefix("| `"), row.count > 36, row.dropFirst(35).first == "`" else { return nil }
            let id = String(row.dropFirst(3).prefix(32))
            return id.allSatisfy { "0123456789abcdef".contains($0) } ? id : nil
        })
        let inCatalog = Set(catalog.split(separator: "\n").filter { $0.hasPrefix("-- ") }.map { String($0.dropFirst(3)) })
        expectEqual(inDocs, ids, "docs/daemon.md's table: missing \(ids.subtracting(inDocs)), unknown \(inDocs.subtracting(ids))")
        expectEqual(inCatalog, ids, "systemd/evroute.catalog: missing \(ids.subtracting(inCatalog)), unknown \(inCatalog.subtracting(ids))")
    }

    @Test("a message with a newline (and a field value with one) is sent in the binary-safe form")
    func binarySafe() throws {
        let journal = try FakeJournal()
        let log = Log(threshold: .debug, fd: journal.streamFD, journalSocket: journal.socketPath)
        log.error(.reloadFailed, fields: [.region: "a\nb"], "line one\nline two")
        let datagrams = journal.receive()
        try #require(datagrams.count == 1)
        let raw = datagrams[0].entry
        let expectedMessage = Array("MESSAGE\n".utf8) + [17, 0, 0, 0, 0, 0, 0, 0] + Array("line one\nline two\n".utf8)
        expectEqual(Array(raw.suffix(expectedMessage.count)), expectedMessage)
        let fields = Self.fields(raw)
        expectEqual(Self.text(fields, "MESSAGE"), "line one\nline two")
        expectEqual(Self.text(fields, "EVROUTE_REGION"), "a\nb")
        expectEqual(Self.text(fields, "PRIORITY"), "3")
    }

    @Test("a per-event line written in place (writeLine, buffered) becomes an entry at the flush")
    func reservedLine() throws {
        let journal = try FakeJournal()
        let log = Log(threshold: .info, fd: journal.streamFD, journalSocket: journal.socketPath)
        log.buffered = true
        let text = Array("touch-began 12 34".utf8)
        for _ in 0..<3 {
            log.writeLine(.info, maximum: 64) { out in
                for b in text { out.append(b) }
            }
        }
        log.log(.info) { line in line.append("in place") }
        expect(journal.receive().isEmpty, "info entries wait for the flush")
        log.flush()
        let datagrams = journal.receive()
        try #require(datagrams.count == 4)
        expect(datagrams.prefix(3).allSatisfy { Self.text(Self.fields($0.entry), "MESSAGE") == "touch-began 12 34" })
        expectEqual(Self.text(Self.fields(datagrams[3].entry), "MESSAGE"), "in place")
        expect(datagrams.allSatisfy { Self.text(Self.fields($0.entry), "PRIORITY") == "6" })
    }

    @Test("an entry too large for a datagram goes as a sealed memfd in an empty datagram")
    func largeEntryThroughMemfd() throws {
        let journal = try FakeJournal()
        let log = Log(threshold: .debug, fd: journal.streamFD, maximumBacklog: 1 << 22, journalSocket: journal.socketPath)
        let big = String(repeating: "0123456789abcdef", count: 1 << 16)   // 1 MiB: beyond any datagram
        log.warning(.configWarning, big)
        let datagrams = journal.receive()
        try #require(datagrams.count == 1)
        expect(datagrams[0].payload.isEmpty, "the datagram carrying the descriptor has no payload")
        let memfd = try #require(datagrams[0].memfd)
        expectEqual(memfd.seals & evroute_all_seals, evroute_all_seals, "sealed against shrink, grow, write and more seals")
        let fields = Self.fields(memfd.contents)
        expectEqual(Self.text(fields, "MESSAGE"), big)
        expectEqual(Self.text(fields, "MESSAGE_ID"), LogKind.configWarning.id.description)
    }

    @Test("journald not reading: entries beyond the backlog are dropped and counted; once it reads, the backlog and one notice")
    func fullSocketDropsAndTells() throws {
        let journal = try FakeJournal()
        let log = Log(threshold: .debug, fd: journal.streamFD, maximumBacklog: 16384, journalSocket: journal.socketPath)
        log.writeWithoutWaiting()
        let logged = 5000
        for i in 0..<logged { log.warning(.inputError, "entry \(i) xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx") }
        expect(log.droppedLines > 0, "the socket filled up and the backlog overflowed")
        // journald reads again (its queue takes a few datagrams at a time: net.unix.max_dgram_qlen):
        // the backlog, then the notice.
        var received: [FakeJournal.Datagram] = []
        for _ in 0..<2000 where log.droppedLines > 0 || log.hasPending {
            received += journal.receive()
            log.flush()
        }
        received += journal.receive()
        let messages = received.map { Self.fields($0.entry) }
        let notices = messages.filter { Self.text($0, "MESSAGE_ID") == LogKind.logLinesDropped.id.description }
        try #require(notices.count == 1, "one drop notice; \(messages.count) received, the last: \(messages.last.flatMap { Self.text($0, "MESSAGE") } ?? "-"); dropped \(log.droppedLines), stream \(journal.stream)")
        let notice = try #require(Self.text(notices[0], "MESSAGE"))
        expect(notice.hasSuffix("log entries dropped while the journal was not reading"))
        let dropped = Int(notice.split(separator: " ")[0]) ?? -1
        expectEqual(Self.text(notices[0], "PRIORITY"), "4")
        expectEqual(messages.count - 1 + dropped, logged, "every entry was either received or counted as dropped")
        expect(journal.stream.isEmpty)
    }

    @Test("journald behind at exit: drain waits a bounded time, then the unsent entries and the drop count go to stderr")
    func drainAtExit() throws {
        let journal = try FakeJournal()
        let log = Log(threshold: .debug, fd: journal.streamFD, maximumBacklog: 16384, journalSocket: journal.socketPath)
        log.writeWithoutWaiting()
        let logged = 5000
        for i in 0..<logged { log.warning(.inputError, "entry \(i) xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx") }
        log.notice(.stopping, "stopping\nnow")
        expect(log.droppedLines > 0, "the socket filled up and the backlog overflowed")
        expect(journal.stream.isEmpty)
        log.drain(waitingAtMost: 20)   // journald never reads
        expect(!log.hasPending && log.droppedLines == 0)
        let received = journal.receive().count
        let lines = journal.stream.split(separator: "\n").map(String.init)
        let dropLine = try #require(lines.first { $0.hasSuffix("log entries dropped while the journal was not reading") }, "\(lines.suffix(3))")
        expect(dropLine.hasPrefix("<4>"))
        let dropped = Int(dropLine.dropFirst(3).split(separator: " ")[0]) ?? -1
        let summary = try #require(lines.last)
        expect(summary.hasPrefix("<4>journal: ") && summary.hasSuffix("not sent to \(journal.socketPath) before exit (journald behind); written to stderr"), "\(summary)")
        let unsent = Int(summary.dropFirst("<4>journal: ".count).split(separator: " ")[0]) ?? -1
        let entries = lines.filter { $0.hasPrefix("<4>entry ") }
        expectEqual(entries.count, unsent, "every unsent entry is a stderr line, in the stream's form")
        // Every entry, the stop's notice among them, was sent, written to stderr or counted.
        expectEqual(received + unsent + dropped, logged + 1, "\(received) + \(unsent) + \(dropped)")

        // A reader that takes everything within the wait: all sent, nothing on stderr.
        let second = try FakeJournal()
        let quick = Log(threshold: .debug, fd: second.streamFD, journalSocket: second.socketPath)
        quick.writeWithoutWaiting()
        quick.buffered = true
        quick.info("one")
        quick.info("two")
        quick.drain(waitingAtMost: 1000)
        expectEqual(second.receive().count, 2)
        expect(second.stream.isEmpty)

        // Everything already sent before the stop (the loop's last flush took it): the drain
        // has nothing to do, and says nothing on stderr.
        let third = try FakeJournal()
        let flushed = Log(threshold: .debug, fd: third.streamFD, journalSocket: third.socketPath)
        flushed.writeWithoutWaiting()
        flushed.info("sent at once")
        expect(!flushed.hasPending)
        flushed.drain(waitingAtMost: 1000)
        expectEqual(third.receive().count, 1)
        expect(third.stream.isEmpty, "\(third.stream)")
    }

    @Test("no journal socket: the plain `<N>` stream lines, after one notice")
    func fallbackToStream() throws {
        let journal = try FakeJournal()
        let log = Log(threshold: .debug, fd: journal.streamFD, journalSocket: journal.scratch.file("absent.sock"))
        expect(!log.sendsToJournal)
        log.warning(.pluginFailed, fields: [.plugin: "p"], "two\nlines")
        log.info("plain")
        expect(journal.receive().isEmpty)
        let lines = journal.stream.split(separator: "\n").map(String.init)
        try #require(lines.count == 3, "\(lines)")
        expect(lines[0].hasPrefix("<5>journal: cannot use \(journal.scratch.file("absent.sock")) ("))
        expect(lines[0].contains("ENOENT"))
        expectEqual(lines[1], "<4>two ⏎ lines")
        expectEqual(lines[2], "<6>plain")
    }

    @Test("journald's socket goes away: the waiting entries are counted lost, then stderr lines for good")
    func socketGoesAway() throws {
        let journal = try FakeJournal()
        let log = Log(threshold: .debug, fd: journal.streamFD, journalSocket: journal.socketPath)
        log.buffered = true
        log.info("waiting 1")
        log.info("waiting 2")
        journal.closeSocket()   // the receiving end: sends are refused from now on
        log.flush()
        expect(!log.sendsToJournal)
        log.warning("after")
        let lines = journal.stream.split(separator: "\n").map(String.init)
        try #require(lines.count == 2, "\(lines)")
        expect(lines[0].hasPrefix("<4>journal: cannot send to \(journal.socketPath) ("))
        expect(lines[0].hasSuffix("2 log entries lost; logging lines to stderr from now on"))
        expectEqual(lines[1], "<4>after")
    }

    @Test("stderr not the journal: the plain lines, whatever the kind and fields")
    func notTheJournal() throws {
        let journal = try FakeJournal()
        unsetenv("JOURNAL_STREAM")
        let log = Log(threshold: .debug, fd: journal.streamFD, journalSocket: journal.socketPath)
        expect(!log.sendsToJournal)
        log.warning(.pluginFailed, fields: [.plugin: "p"], "failed")
        log.info(.deviceAdded, fields: [.device: "touch"], "device added")
        expect(journal.receive().isEmpty)
        expectEqual(journal.stream, "evroute: warning: failed\nevroute: info: device added\n")
    }
}
