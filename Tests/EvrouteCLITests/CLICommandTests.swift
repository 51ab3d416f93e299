import Foundation
import Testing
import EvrouteChecks
import EvrouteTestSupport

/// Runs `evroute` with arguments (in the repository root); exit status, stdout and stderr.
func runEvroute(_ arguments: [String], stdin: TestProcess.Input = .null) throws -> TestProcess.Result {
    try TestProcess.run(try evrouteBinary(), arguments, directory: packageRoot, stdin: stdin)
}

@Suite("Command line")
struct CLICommandTests {
    @Test(arguments: ["config/kiosk.yaml", "config/minimal.yaml", "config/demo.yaml"])
    func checkAcceptsTheShippedConfigs(path: String) throws {
        let r = try runEvroute(["check", "--config", path])
        expectEqual(r.status, 0, "\(r.err)")
        expect(r.out.hasPrefix("\(path): ok"))
    }

    /// `check -` reads the layout from standard input (a pipe from a generator, an editor's
    /// buffer): the same checks, the places named `<stdin>`.
    @Test func checkReadsStandardInputForDash() throws {
        let good = try runEvroute(["check", "-"], stdin: .file(packageRoot + "/config/demo.yaml"))
        expectEqual(good.status, 0, "\(good.err)")
        expect(good.out.hasPrefix("<stdin>: ok"), "\(good.out)")
        let bad = try runEvroute(["check", "-"], stdin: .text("displays: [{name: a, size: [10]}]\n"))
        expectEqual(bad.status, 1)
        expect(bad.err.hasPrefix("<stdin>:1:"), "\(bad.err)")
        // Nothing on standard input: an empty layout, refused like an empty file.
        let empty = try runEvroute(["check", "-"])
        expect(empty.status == 1 && empty.err.contains("<stdin>"), "\(empty.err)")
    }

    /// `-V` is `--version`, as most tools spell it.
    @Test func capitalVIsTheVersion() throws {
        let long = try runEvroute(["--version"]), short = try runEvroute(["-V"])
        expect(short.status == 0 && short.out == long.out && short.out.hasPrefix("evroute "))
    }

    @Test(arguments: ["syntax", "types", "semantic"])
    func checkRejectsBrokenConfigsWithFileLineColumn(name: String) throws {
        let path = "Tests/EvrouteConfigTests/Fixtures/bad/\(name).yaml"
        let r = try runEvroute(["check", "--config", path])
        expectEqual(r.status, 1)
        let lines = r.err.split(separator: "\n")
        expect(!lines.isEmpty)
        for line in lines {
            expect(line.range(of: #"^\#(path):[0-9]+:[0-9]+: error: .+"#, options: .regularExpression) != nil, "\(line)")
        }
    }

    @Test func checkNamesAMissingFile() throws {
        let r = try runEvroute(["check", "--config", "no/such/layout.yaml"])
        expectEqual(r.status, 1)
        expect(r.err.contains("no/such/layout.yaml"))
    }

    @Test func hitPrintsTheRegionAndTheWholeChainAsJSON() throws {
        let r = try runEvroute(["hit", "--config", "config/kiosk.yaml", "80", "50", "--format", "json"])
        expectEqual(r.status, 0, "\(r.err)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any])
        expectEqual(object["region"] as? String, "home/root/header/back")
        expectEqual(object["chain"] as? [String], ["home/root/header/back", "home/root/header", "home/root", "screen:home",
                                                 "display:panel", "application", "fallback"])
        let miss = try runEvroute(["hit", "--config", "config/kiosk.yaml", "5000", "5000", "--format", "json"])
        let missObject = try #require(try JSONSerialization.jsonObject(with: Data(miss.out.utf8)) as? [String: Any])
        expect(missObject["region"] is NSNull)
        expectEqual((missObject["chain"] as? [String])?.first, "screen:home")
    }

    @Test func hitOnAnotherScreenAndUnknownNames() throws {
        let r = try runEvroute(["hit", "--config", "config/kiosk.yaml", "--screen", "admin", "10", "10", "--format", "json"])
        expectEqual(r.status, 0, "\(r.err)")
        expect(r.out.contains("\"screen:admin\""))
        let bad = try runEvroute(["hit", "--config", "config/kiosk.yaml", "--screen", "nope", "10", "10"])
        expect(bad.status != 0)
        expect(bad.err.contains("unknown screen 'nope'"))
    }

    @Test func treeShowsFramesFlagsAndChains() throws {
        let r = try runEvroute(["tree", "--config", "config/kiosk.yaml"])
        expectEqual(r.status, 0, "\(r.err)")
        expect(r.out.contains("back [0, 0, 160, 100]"))
        expect(r.out.contains("{exclusive}"))
        expect(r.out.contains("chain: → home/root/header → home/root → screen:home → display:panel → application → fallback"))
    }

    @Test func dryRunPrintsJSONLinesAndMalformedRecordingsNameTheLine() throws {
        let r = try runEvroute(["--config", "config/demo.yaml", "--dry-run", "--replay", "demo/touchscreen.events", "--format", "json"])
        expectEqual(r.status, 0, "\(r.err)")
        let lines = r.out.split(separator: "\n")
        expect(lines.count > 100)
        for line in lines { expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) is [String: Any]) }

        let dir = URL(fileURLWithPath: temporaryPath("evroute-cli"))
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let bad = dir.appendingPathComponent("broken.events").path
        var text = try String(contentsOfFile: packageRoot + "/demo/touchscreen.events", encoding: .utf8)
        text += "E: 9999.000000 0003 gg 1\n"
        try text.write(toFile: bad, atomically: true, encoding: .utf8)
        let lineNumber = text.split(separator: "\n", omittingEmptySubsequences: false).count - 1
        let failed = try runEvroute(["--config", "config/demo.yaml", "--dry-run", "--replay", bad])
        expect(failed.status != 0)
        expect(failed.err.contains("broken.events:\(lineNumber)"), "\(failed.err)")
    }
}
