import Foundation
import Testing
import EvrouteChecks
import EvrouteTestSupport

/// examples/ui-client.py against a stand-in for the `ui` socket plugin: the test plays
/// evroute's part (event lines out, command lines in, answers out) on a Unix socket.
private final class FakeUISocket {
    let path: String
    private let listener: Int32
    /// The accepted connection: the client's end of the `ui` socket.
    private var connection: LineClient?

    init() throws {
        path = temporaryPath("evroute-ui.sock")
        listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, b) in path.utf8.enumerated() { raw[i] = b }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, listen(listener, 1) == 0 else { throw TestSupportError("cannot listen on \(path)") }
    }

    deinit {
        close(listener)
        unlink(path)
    }

    func accept(seconds: Int32 = 10) throws {
        var p = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
        guard poll(&p, 1, seconds * 1000) == 1 else { throw TestSupportError("the client did not connect") }
        connection = LineClient(adopting: Glibc.accept(listener, nil, nil))
    }

    func send(_ line: String) { connection?.send(line + "\n") }

    /// The next line the client wrote, or nil at EOF or after 10 s.
    func readLine() -> String? { connection?.readLine(seconds: 10) }

    /// The next line as a JSON object.
    func readObject() throws -> [String: Any] {
        let line = try #require(readLine(), "the client sent nothing")
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not an object: \(line)")
    }

    func closeConnection() { connection?.close() }
}

private func tap(_ button: String?, region: String, id: Int) -> String {
    let options = button.map { #","options":{"button":"\#($0)"}"# } ?? ""
    return #"{"type":"touch","time":10.08,"device":"touch","touch":\#(id),"phase":"ended","x":1.0,"y":1.0,"region":"\#(region)","handled_by":"\#(region)","handler":"ui","tap_count":1,"tap":true\#(options),"id":\#(id)}"#
}

private func startClient(_ arguments: [String]) throws -> TestProcess {
    try TestProcess("/usr/bin/env", ["python3", packageRoot + "/examples/ui-client.py"] + arguments, stderr: .descriptor(2))
}

@Suite("The UI client example")
struct UIClientExampleTests {
    @Test func followsTheButtonsWaitsForEachAnswerAndKeepsEventsThatArriveMeanwhile() throws {
        let ui = try FakeUISocket()
        let client = try startClient([ui.path, "--once", "3"])
        try ui.accept()
        // Not for the client: a began phase, and a tap on something without a button option.
        ui.send(#"{"type":"touch","time":10.0,"touch":1,"phase":"began","region":"home/root/settings","id":1}"#)
        ui.send(tap(nil, region: "home/root/title", id: 2))
        ui.send(tap("settings", region: "home/root/settings", id: 3))
        let present = try ui.readObject()
        expectEqual(present["command"] as? String, "present")
        expectEqual(present["screen"] as? String, "settings")
        let tag = try #require(present["tag"] as? Int)
        // An event before the answer, and an answer to something else: the client keeps
        // waiting for its own, then handles the event.
        ui.send(tap("delete", region: "settings/root/delete", id: 4))
        ui.send(#"{"ok":true,"tag":"someone else's"}"#)
        ui.send(#"{"ok":true,"tag":\#(tag)}"#)
        let confirm = try ui.readObject()
        expectEqual(confirm["command"] as? String, "present")
        expectEqual(confirm["screen"] as? String, "confirm")
        let tag2 = try #require(confirm["tag"] as? Int)
        expect(tag2 != tag)
        ui.send(#"{"ok":false,"error":"screen 'confirm' is already in the presentation stack","tag":\#(tag2)}"#)
        ui.send(tap("no", region: "confirm/root/dialog/no", id: 5))
        let dismiss = try ui.readObject()
        expectEqual(dismiss["command"] as? String, "dismiss")
        ui.send(#"{"ok":true,"tag":\#(dismiss["tag"] as? Int ?? -1)}"#)
        // --once 3: it exits after the third command.
        let printed = client.readOutput()
        expectEqual(client.waitForExit(seconds: 20), 0)
        expectEqual(printed, """
            connected to \(ui.path)
            tap settings (home/root/settings) → present settings: ok
            tap delete (settings/root/delete) → present confirm: refused: screen 'confirm' is already in the presentation stack
            tap no (confirm/root/dialog/no) → dismiss: ok

            """)
    }

    @Test func exitsCleanlyAtEOF() throws {
        let ui = try FakeUISocket()
        let client = try startClient([ui.path])
        try ui.accept()
        ui.send(tap("back", region: "settings/root/back", id: 1))
        try expectEqual(try ui.readObject()["command"] as? String, "dismiss")
        ui.closeConnection()   // the daemon goes away before answering
        client.readOutput()
        expectEqual(client.waitForExit(seconds: 20), 0)
    }
}
