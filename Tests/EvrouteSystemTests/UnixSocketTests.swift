import Testing
import EvrouteChecks
#if canImport(Glibc)
import Glibc
#endif
@testable import EvrouteSystem
import EvrouteTestSupport
import EvrouteCore

/// The one Unix-socket listener and line connection (control socket and `socket` plugin).
@Suite("Unix socket listener and line connections")
struct UnixSocketTests {
    @Test("lines in, answers out; mode, parent directories, peer credentials and groups; the file removed on close")
    func echo() throws {
        let scratch = Scratch("evroute-sock")
        defer { scratch.cleanUp() }
        let loop = try EventLoop()
        let path = scratch.file("sub/s.sock")
        let listener = try UnixListener(path: path, mode: 0o600, loop: loop, maximumConnections: 4, overflow: .wait,
                                        maximumLineLength: 64, maximumOutput: 1024, createParentDirectories: true)
        var st = stat()
        expect(lstat(path, &st) == 0 && st.st_mode & 0o777 == 0o600)
        var received: [String] = []
        var credentials: (pid: pid_t, uid: uid_t, gid: gid_t)?
        var peerGroups: [gid_t]?
        listener.onConnection = { connection in
            credentials = connection.peerCredentials
            peerGroups = connection.peerGroups
            connection.onLine = { line in
                received.append(String(decoding: line, as: UTF8.self))
                try? connection.send(Array("ok \(received.count)\n".utf8))
            }
        }
        let client = try LineClient(path: path)
        defer { client.close() }
        client.send("one\r\ntwo\nthr")
        client.send("ee\n")
        runLoop(loop, upTo: 2) { received.count == 3 }
        expectEqual(received, ["one", "two", "three"])
        expect(credentials?.pid == getpid() && credentials?.uid == geteuid())
        // SO_PEERGROUPS: the connecting process's own supplementary groups (this process here)
        var own = [gid_t](repeating: 0, count: Int(getgroups(0, nil)))
        own = Array(own.prefix(Int(getgroups(Int32(own.count), &own))))
        expectEqual(peerGroups.map { Set($0) }, Set(own))
        var buffer = [UInt8](repeating: 0, count: 256)
        var answer = ""
        while !answer.hasSuffix("ok 3\n") {
            let n = read(client.fd, &buffer, buffer.count)
            if n <= 0 { break }
            answer += String(decoding: buffer[0..<n], as: UTF8.self)
        }
        expectEqual(answer, "ok 1\nok 2\nok 3\n")
        listener.close()
        expect(access(path, F_OK) != 0, "close removes the socket file")
    }

    @Test("a live socket is not taken over; a stale one is replaced; a file that is not a socket is refused")
    func setUp() throws {
        let scratch = Scratch("evroute-sock")
        defer { scratch.cleanUp() }
        let loop = try EventLoop()
        let path = scratch.file("s.sock")
        var first: UnixListener? = try UnixListener(path: path, mode: 0o660, loop: loop, maximumConnections: 1, overflow: .wait,
                                                    maximumLineLength: 64, maximumOutput: 64)
        #expect(throws: SystemError(errno: EADDRINUSE, call: "bind", path: path)) {
            _ = try UnixListener(path: path, mode: 0o660, loop: loop, maximumConnections: 1, overflow: .wait,
                                 maximumLineLength: 64, maximumOutput: 64)
        }
        _ = first
        // Stale: a socket file nobody listens on.
        let stale = socket(AF_UNIX, SocketType.stream, 0)
        first?.close()
        first = nil
        _ = UnixSocketAddress(path)!.withSockaddr { bind(stale, $0, $1) }
        close(stale)
        let second = try UnixListener(path: path, mode: 0o660, loop: loop, maximumConnections: 1, overflow: .wait,
                                      maximumLineLength: 64, maximumOutput: 64)
        second.close()
        let file = scratch.file("file")
        close(open(file, O_CREAT | O_WRONLY, 0o644))
        #expect(throws: SystemError(errno: ENOTSOCK, call: "bind", path: file)) {
            _ = try UnixListener(path: file, mode: 0o660, loop: loop, maximumConnections: 1, overflow: .wait,
                                 maximumLineLength: 64, maximumOutput: 64)
        }
    }

    @Test("bounds: a peer over the output limit is told, an overlong line is refused whole, extra peers wait or are refused")
    func bounds() throws {
        let scratch = Scratch("evroute-sock")
        defer { scratch.cleanUp() }
        let loop = try EventLoop()
        let path = scratch.file("s.sock")
        let listener = try UnixListener(path: path, mode: 0o600, loop: loop, maximumConnections: 1, overflow: .refuse,
                                        maximumLineLength: 8, maximumOutput: 4096)
        var connections: [LineConnection] = []
        var lines: [String] = []
        var overlong: [String] = []
        var refused = 0
        var closed = 0
        listener.onRefused = { refused += 1 }
        listener.onConnection = { c in
            connections.append(c)
            c.onLine = { lines.append(String(decoding: $0, as: UTF8.self)) }
            c.onOverlong = { overlong.append(String(decoding: $0, as: UTF8.self)) }
            c.onClose = { closed += 1 }
        }
        let a = try LineClient(path: path)
        defer { a.close() }
        let b = try LineClient(path: path)
        defer { b.close() }
        // Over-long lines, in one piece and in several (the limit passed before the newline came),
        // never reach onLine: their first 8 bytes go to onOverlong, the rest up to the newline is dropped.
        a.send("0123456789abcdef\nok\nABCDEF")
        runLoop(loop, upTo: 2) { lines.count == 1 && refused == 1 }
        a.send("GHIJ")
        a.send("KLMN\nend\n")
        runLoop(loop, upTo: 2) { lines.count == 2 }
        expectEqual(lines, ["ok", "end"])
        expectEqual(overlong, ["01234567", "ABCDEFGH"])
        expectEqual(refused, 1, "the second peer is refused at once under .refuse")
        // The peer never reads: sends fail with overLimit once 4 KiB (plus the kernel's buffer) wait.
        let connection = try #require(connections.first)
        var failure: LineConnection.SendFailure?
        for _ in 0..<10_000 where failure == nil {
            do { try connection.send([UInt8](repeating: 0x41, count: 1000)) } catch { failure = error }
        }
        expectEqual(failure, .overLimit)
        expect(connection.queuedBytes <= 4096)
        connection.close()
        expect(closed == 1 && listener.connectionCount == 0)
    }

    @Test("at exit, a peer that reads slowly gets everything queued for it before the close (flush(until:))")
    func flushBeforeClose() throws {
        let scratch = Scratch("evroute-sock")
        defer { scratch.cleanUp() }
        let loop = try EventLoop()
        let path = scratch.file("s.sock")
        let listener = try UnixListener(path: path, mode: 0o600, loop: loop, maximumConnections: 1, overflow: .refuse,
                                        maximumLineLength: 64, maximumOutput: 4 << 20)
        defer { listener.close() }
        var connection: LineConnection?
        listener.onConnection = { connection = $0 }
        let client = try LineClient(path: path)
        runLoop(loop, upTo: 5) { connection != nil }
        let server = try #require(connection)
        // More than the kernel's socket buffer: the rest waits in the connection's queue.
        let line = [UInt8](repeating: 0x41, count: 999) + [0x0a]
        var sent = 0
        while server.queuedBytes == 0 || sent < 1_000_000 {
            try server.send(line)
            sent += line.count
        }
        try server.send(Array("END\n".utf8))
        sent += 4
        expect(server.queuedBytes > 0, "bytes wait for the peer")
        // The peer: a process that starts reading a moment later, to the end of the stream.
        let out = scratch.file("received")
        let outFD = open(out, O_CREAT | O_WRONLY | O_TRUNC, 0o600)
        let reader = try Spawn.start(["/bin/sh", "-c", "sleep 0.2; exec cat"], environment: ["PATH=/usr/bin:/bin"],
                                     stdin: FileDescriptor(rawValue: client.fd), stdout: FileDescriptor(rawValue: outFD),
                                     stderr: FileDescriptor(rawValue: 2), searchPath: false, newProcessGroup: false).get()
        Glibc.close(outFD)
        client.close()
        server.flush(until: MonotonicClock.now() + .seconds(30))
        expectEqual(server.queuedBytes, 0, "everything was written before the deadline")
        server.close()
        var status: Int32 = 0
        waitpid(reader, &status, 0)
        var st = stat()
        expect(stat(out, &st) == 0 && Int(st.st_size) == sent, "the peer read every byte, to the end")
        var tail = [UInt8](repeating: 0, count: 4)
        let inFD = open(out, O_RDONLY)
        defer { Glibc.close(inFD) }
        expect(pread(inFD, &tail, 4, off_t(max(0, sent - 4))) == 4 && tail == Array("END\n".utf8))
    }

    @Test("under .wait, a peer beyond the limit waits in the backlog and is served once a connection closes")
    func waitOverflow() throws {
        let scratch = Scratch("evroute-sock")
        defer { scratch.cleanUp() }
        let loop = try EventLoop()
        let path = scratch.file("s.sock")
        let listener = try UnixListener(path: path, mode: 0o600, loop: loop, maximumConnections: 1, overflow: .wait,
                                        maximumLineLength: 64, maximumOutput: 64)
        var served: [String] = []
        listener.onConnection = { c in
            c.onLine = { line in
                served.append(String(decoding: line, as: UTF8.self))
                c.closeWhenFlushed()
            }
        }
        let a = try LineClient(path: path)
        defer { a.close() }
        let b = try LineClient(path: path)
        defer { b.close() }
        b.send("second\n")
        runLoop(loop, upTo: 2) { listener.connectionCount == 1 }
        a.send("first\n")
        runLoop(loop, upTo: 2) { served.count == 2 }
        expectEqual(served, ["first", "second"])
    }
}

/// A line handler that closes its own connection (a plugin dropping a client while it answers)
/// ends the read under way: the connection's reader reads nothing more from the descriptor
/// number, which a descriptor opened meanwhile may already have.
@Suite("A connection closed by its own line handler")
struct ConnectionClosedInItsHandlerTests {
    @Test func readsNothingMoreFromItsDescriptorNumber() throws {
        let scratch = Scratch("evroute-sock")
        defer { scratch.cleanUp() }
        let loop = try EventLoop()
        let path = scratch.file("s.sock")
        let listener = try UnixListener(path: path, mode: 0o600, loop: loop, maximumConnections: 4, overflow: .wait,
                                        maximumLineLength: 64, maximumOutput: 1024)
        var received: [String] = []
        var pipeEnds: [Int32] = [-1, -1]
        listener.onConnection = { connection in
            connection.onLine = { [unowned connection] line in
                received.append(String(decoding: line, as: UTF8.self))
                let number = connection.fd.rawValue
                connection.close()
                // A descriptor opened now takes the closed one's number (made sure with dup2),
                // with a line of its own waiting in it.
                _ = pipe(&pipeEnds)
                dup2(pipeEnds[0], number)
                _ = "stolen\n".withCString { write(pipeEnds[1], $0, 7) }
                pipeEnds[0] = number
            }
        }
        let client = try LineClient(path: path)
        defer { client.close() }
        client.send("first\nsecond\n")
        runLoop(loop, upTo: 2) { !received.isEmpty }
        runLoop(loop, upTo: 2) { received.count > 1 }   // a reader that went on would be seen here
        expect(received.count == 1 && received.first == "first", "\(received.prefix(3)) … (\(received.count) lines)")
        // The pipe's line is still there: nobody read it.
        var buffer = [UInt8](repeating: 0, count: 16)
        _ = fcntl(pipeEnds[0], F_SETFL, O_NONBLOCK)
        let n = read(pipeEnds[0], &buffer, buffer.count)
        expectEqual(n, 7)
        listener.close()
        close(pipeEnds[0]); close(pipeEnds[1])
    }
}
