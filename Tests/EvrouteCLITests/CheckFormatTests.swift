import Foundation
import Testing
import EvrouteChecks
import EvrouteTestSupport

/// `evroute check FILE [--format json]` through the real binary: exit codes 0 (warnings
/// allowed), 1 (errors), 2 (usage), and the JSON document.
@Suite("check: text and JSON")
struct CheckFormatTests {
    func write(_ text: String) throws -> String { temporaryConfig(text, name: "check.yaml") }

    static let warned = """
        displays: [{ name: main, size: [100, 100] }]
        screens:
          - name: home
            root:
              name: root
              frame: [0, 0, 100, 100]
              regions: [{ name: a, frame: [90, 0, 20, 20] }]
        """

    static let broken = """
        displays: [{ name: main, size: [100, 100] }]
        plugins: [{ name: ui, type: socket, deadline-ms: 40ms, path: /tmp/x.sock }]
        screens: [{ name: home, root: { name: root, frame: [0, 0, 100, 100] } }]
        """

    @Test func warningsOnlyExitZeroWithTheSummary() throws {
        let path = try write(Self.warned)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let r = try runEvroute(["check", path])
        expectEqual(r.status, 0)
        expectEqual(r.err, "\(path):7:25: warning: region 'a' sticks out of its parent 'root' (frame [90, 0, 20, 20] in a parent of 100×100): the part outside cannot be hit\n")
        expect(r.out.hasPrefix("\(path): ok — 1 display(s)"))

        let j = try runEvroute(["check", path, "--format", "json"])
        expectEqual(j.status, 0)
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(j.out.utf8)) as? [String: Any])
        expectEqual(doc["file"] as? String, path)
        expectEqual(doc["ok"] as? Bool, true)
        expectEqual((doc["errors"] as? [Any])?.isEmpty, true)
        let w = try #require((doc["warnings"] as? [[String: Any]])?.first)
        expect(w["file"] as? String == path && w["line"] as? Int == 7 && w["column"] as? Int == 25)
        expectEqual((w["message"] as? String)?.hasPrefix("region 'a' sticks out of its parent 'root'"), true)
    }

    @Test func moreSocketClientsThanTheDescriptorLimitIsAWarning() throws {
        // 4000 + 64 socket clients, the control socket's 64 and the margin of 64
        // need 4192 descriptors; under a hard limit of 1000 that is a warning at the largest
        // max-clients, exit 0. Under 5000 it fits.
        let path = try write("""
            displays: [{ name: main, size: [100, 100] }]
            plugins:
              - { name: ui, type: socket, path: /tmp/ui.sock, max-clients: 4000 }
              - { name: other, type: socket, path: /tmp/other.sock }
            screens: [{ name: home, handlers: [{ plugin: other, on: [key] }], root: { name: root, frame: [0, 0, 100, 100], handlers: [{ plugin: ui, on: [touch] }] } }]
            """)
        defer { try? FileManager.default.removeItem(atPath: path) }
        func check(limit: Int) throws -> TestProcess.Result {
            let argv = TestProcess.withDescriptorLimit(limit, [try evrouteBinary(), "check", path])
            return try TestProcess.run(argv[0], Array(argv.dropFirst()))
        }
        let r = try check(limit: 1000)
        expectEqual(r.status, 0)
        expectEqual(r.err, "\(path):3:64: warning: the socket plugins' max-clients (4064 in all), the control socket's 64 clients and 64 for the daemon itself need 4192 file descriptors, more than the 1000 it may open (RLIMIT_NOFILE's hard limit, to which it raises its own): clients past it are refused; lower max-clients or raise the limit (LimitNOFILE= in the unit)\n")
        expect(r.out.hasPrefix("\(path): ok — 1 display(s)"))
        let fits = try check(limit: 5000)
        expect(fits.status == 0 && fits.err == "", "\(fits.err)")
    }

    @Test func errorsExitOneInBothFormats() throws {
        let path = try write(Self.broken)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let message = "plugin ui: `deadline-ms` must be a whole number of milliseconds from 1 to 3600000, found '40ms'"
        let r = try runEvroute(["check", path])
        expectEqual(r.status, 1)
        expectEqual(r.err, "\(path):2:50: error: \(message)\n")
        expect(r.out.isEmpty)

        let j = try runEvroute(["check", "--format", "json", path])
        expectEqual(j.status, 1)
        expectEqual(j.out, #"{"file":"\#(path)","ok":false,"errors":[{"file":"\#(path)","line":2,"column":50,"message":"\#(message)"}],"warnings":[]}"# + "\n")
    }

    @Test func usageErrorsExitTwo() throws {
        try expectEqual(try runEvroute(["check", "--format", "yaml", "config/minimal.yaml"]).status, 2)
    }

    /// One error per cause, and at most 100 printed: 150 distinct errors print the
    /// first 100 in file order, then `… and 50 more error(s)`; the JSON keeps them all.
    @Test func atMost100ErrorsArePrintedThenACount() throws {
        let path = try write(GeneratedConfig.oneScreen(regions: (0..<150).map {
            "{ name: r\($0), frame: [0, 0, 1, 1], handlers: [{ plugin: nope\($0), on: tap }] }"
        }))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let r = try runEvroute(["check", path])
        expectEqual(r.status, 1)
        let lines = r.err.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        expectEqual(lines.count, 101)
        expectEqual(lines.first?.hasPrefix("\(path):8:63: error: unknown plugin 'nope0'"), true, "\(lines.first ?? "")")
        expect(lines[99].contains("unknown plugin 'nope99'"))
        expectEqual(lines.last, "… and 50 more error(s)")
        let j = try runEvroute(["check", path, "--format", "json"])
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(j.out.utf8)) as? [String: Any])
        expectEqual((doc["errors"] as? [Any])?.count, 150)
    }

    /// A `next` cycle through 20,000 regions is one error (it was 20,000 identical ones).
    @Test func a20000RegionNextCycleIsOneError() throws {
        let path = try write(GeneratedConfig.oneScreen(regions: (0..<20_000).map {
            "{ name: r\($0), frame: [0, 0, 1, 1], next: r\(($0 + 1) % 20_000) }"
        }))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let r = try runEvroute(["check", path])
        expectEqual(r.status, 1)
        expectEqual(r.err, "\(path):8:48: error: 'next' forms a cycle in the responder chain: home/root/r0 → home/root/r1 → home/root/r2 → home/root/r3 → home/root/r4 → … (20000 regions) (the chain of each region on it, or leading into it, would never end)\n")
    }
}
