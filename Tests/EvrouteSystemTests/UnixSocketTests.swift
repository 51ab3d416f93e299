import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import EvrouteSystem
import EvrouteCore

/// The one Unix-socket listener and line connection (control socket and `socket` plugin).
@Suite("Unix socket listener and line connections")
struct UnixSocketTests {
    /// A socket path in a fresh directory, removed afterwards.
    final class Scratch {
        let directory: String
        init() {
            var template = Array("/tmp/evroute-sock-XXXXXX".utf8CString)
            _ = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
            directory = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        func path(_ name: String) -> String { directory + "/" + name }
        deinit {
            for name in ["s.sock", "sub/s.sock", "file"] { unlink(path(name)) }
            rmdir(path("sub"))
            rmdir(directory)
        }
    }

    /// A blocking client socket connected to `path`.
    static func connectClient(_ path: String) throws -> Int32 {
        let fd = socket(AF_UNIX, SocketType.stream, 0)
        let r = UnixSocketAddress(path)!.withSockaddr { connect(fd, $0, $1) }
        guard r == 0 else { throw SystemError(errno: errno, call: "connect", path: path) }
        return fd
    }

    static func send(_ fd: Int32, _ text: String) {
        _ = text.withCString { Glibc.send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
    }

    /// Runs the loop until `done` or 2 s.
    static func run(_ loop: EventLoop, until done: @escaping () -> Bool) {
        func check() { if done() { loop.stop() } else { loop.schedule(after: .milliseconds(2)) { check() } } }
        loop.schedule(after: .milliseconds(0)) { check() }
        loop.schedule(after: .milliseconds(2000)) { loop.stop() }
        loop.run()
    }

    @Test("lines in, answers out; mode, parent directories, peer credentials and groups; the file removed on close")
    func echo() throws {
        let scratch = Scratch()
        let loop = try EventLoop()
        let path = scratch.path("sub/s.sock")
        let listener = try UnixListener(path: path, mode: 0o600, loop: loop, maximumConnections: 4, overflow: .wait,
                                        maximumLineLength: 64, maximumOutput: 1024, createParentDirectories: true)
        var st = stat()
        #expect(lstat(path, &st) == 0 && st.st_mode & 0o777 == 0o600)
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
        let client = try Self.connectClient(path)
        defer { close(client) }
        Self.send(client, "one\r\ntwo\nthr")
        Self.send(client, "ee\n")
        Self.run(loop) { received.count == 3 }
        #expect(received == ["one", "two", "three"])
        #expect(credentials?.pid == getpid() && credentials?.uid == geteuid())
        // SO_PEERGROUPS: the connecting process's own supplementary groups (this process here)
        var own = [gid_t](repeating: 0, count: Int(getgroups(0, nil)))
        own = Array(own.prefix(Int(getgroups(Int32(own.count), &own))))
        #expect(peerGroups.map { Set($0) } == Set(own))
        var buffer = [UInt8](repeating: 0, count: 256)
        var answer = ""
        while !answer.hasSuffix("ok 3\n") {
            let n = read(client, &buffer, buffer.count)
            if n <= 0 { break }
            answer += String(decoding: buffer[0..<n], as: UTF8.self)
        }
        #expect(answer == "ok 1\nok 2\nok 3\n")
        listener.close()
        #expect(access(path, F_OK) != 0, "close removes the socket file")
    }

    @Test("a live socket is not taken over; a stale one is replaced; a file that is not a socket is refused")
    func setUp() throws {
        let scratch = Scratch()
        let loop = try EventLoop()
        let path = scratch.path("s.sock")
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
        let file = scratch.path("file")
        close(open(file, O_CREAT | O_WRONLY, 0o644))
        #expect(throws: SystemError(errno: ENOTSOCK, call: "bind", path: file)) {
            _ = try UnixListener(path: file, mode: 0o660, loop: loop, maximumConnections: 1, overflow: .wait,
                                 maximumLineLength: 64, maximumOutput: 64)
        }
    }

    @Test("bounds: a peer over the output limit is told, an overlong line is refused whole, extra peers wait or are refused")
    func bounds() throws {
        let scratch = Scratch()
        let loop = try EventLoop()
        let path = scratch.path("s.sock")
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
        let a = try Self.connectClient(path)
        let b = try Self.connectClient(path)
        defer { close(a); close(b) }
        // Over-long lines, in one piece and in several (the limit passed before the newline came),
        // never reach onLine: their first 8 bytes go to onOverlong, the rest up to the newline is dropped.
        Self.send(a, "0123456789abcdef\nok\nABCDEF")
        Self.run(loop) { lines.count == 1 && refused == 1 }
        Self.send(a, "GHIJ")
        Self.send(a, "KLMN\nend\n")
        Self.run(loop) { lines.count == 2 }
        #expect(lines == ["ok", "end"])
        #expect(overlong == ["01234567", "ABCDEFGH"])
        #expect(refused == 1, "the second peer is refused at once under .refuse")
        // The peer never reads: sends fail with overLimit once 4 KiB (plus the kernel's buffer) wait.
        let connection = try #require(connections.first)
        var failure: LineConnection.SendFailure?
        for _ in 0..<10_000 where failure == nil {
            do { try connection.send([UInt8](repeating: 0x41, count: 1000)) } catch { failure = error }
        }
        #expect(failure == .overLimit)
        #expect(connection.queuedBytes <= 4096)
        connection.close()
        #expect(closed == 1 && listener.connectionCount == 0)
    }

    @Test("under .wait, a peer beyond the limit waits in the backlog and is served once a connection closes")
    func waitOverflow() throws {
        let scratch = Scratch()
        let loop = try EventLoop()
        let path = scratch.path("s.sock")
        let listener = try UnixListener(path: path, mode: 0o600, loop: loop, maximumConnections: 1, overflow: .wait,
                                        maximumLineLength: 64, maximumOutput: 64)
        var served: [String] = []
        listener.onConnection = { c in
            c.onLine = { line in
                served.append(String(decoding: line, as: UTF8.self))
                c.closeWhenFlushed()
            }
        }
        let a = try Self.connectClient(path)
        let b = try Self.connectClient(path)
        defer { close(a); close(b) }
        Self.send(b, "second\n")
        Self.run(loop) { listener.connectionCount == 1 }
        Self.send(a, "first\n")
        Self.run(loop) { served.count == 2 }
        #expect(served == ["first", "second"])
    }
}

/// A line handler that closes its own connection (a plugin dropping a client while it answers)
/// ends the read under way: the connection's reader reads nothing more from the descriptor
/// number, which a descriptor opened meanwhile may already have.
@Suite("A connection closed by its own line handler")
struct ConnectionClosedInItsHandlerTests {
    @Test func readsNothingMoreFromItsDescriptorNumber() throws {
        let scratch = UnixSocketTests.Scratch()
        let loop = try EventLoop()
        let path = scratch.path("s.sock")
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
        let client = try UnixSocketTests.connectClient(path)
        defer { close(client) }
        UnixSocketTests.send(client, "first\nsecond\n")
        UnixSocketTests.run(loop) { !received.isEmpty }
        UnixSocketTests.run(loop) { received.count > 1 }   // a reader that went on would be seen here
        #expect(received.count == 1 && received.first == "first", "\(received.prefix(3)) … (\(received.count) lines)")
        // The pipe's line is still there: nobody read it.
        var buffer = [UInt8](repeating: 0, count: 16)
        _ = fcntl(pipeEnds[0], F_SETFL, O_NONBLOCK)
        let n = read(pipeEnds[0], &buffer, buffer.count)
        #expect(n == 7)
        listener.close()
        close(pipeEnds[0]); close(pipeEnds[1])
    }
}
