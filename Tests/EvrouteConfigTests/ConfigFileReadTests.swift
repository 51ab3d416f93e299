import EvrouteConfig
import EvrouteTestSupport
import EvrouteCore
import Foundation
import Testing
import EvrouteChecks

/// Reading the config file: only a regular file of at most 4 MiB of UTF-8 is read.
@Suite struct ConfigFileReadTests {
    /// A fresh directory for one test's files.
    func scratchDirectory() throws -> URL {
        let url = URL(fileURLWithPath: temporaryPath("evroute-config"))
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// The one error of loading `path` (an issue when it loads, or gives more than one).
    func loadError(_ path: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) -> Diagnostic? {
        do {
            _ = try ConfigLoader.load(path: path)
            Issue.record("\(path) loaded", sourceLocation: sourceLocation)
            return nil
        } catch {
            #expect(error.errors.count == 1, "\(error)", sourceLocation: sourceLocation)
            return error.errors.first
        }
    }

    @Test func devNullIsNotARegularFile() {
        let e = loadError("/dev/null")
        expectEqual(e?.description, "/dev/null: error: is a character device, not a regular file; expected a YAML config file")
        expectEqual(e?.kind, .io)
    }

    @Test func aFIFOIsRefusedWithoutWaitingForAWriter() throws {
        let dir = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("evroute.yaml").path
        expectEqual(mkfifo(path, 0o600), 0)
        let e = loadError(path)
        expectEqual(e?.message, "is a FIFO (named pipe), not a regular file; expected a YAML config file")
        expectEqual(e?.kind, .io)
    }

    @Test func aDirectoryAndAMissingFile() throws {
        let dir = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        expectEqual(loadError(dir.path)?.message, "is a directory, expected a YAML config file")
        expectEqual(loadError(dir.appendingPathComponent("nope.yaml").path)?.message, "config file not found")
        expectEqual(loadError(dir.appendingPathComponent("nope/evroute.yaml").path)?.message, "config file not found")
    }

    @Test func aFileOverTheSizeLimitIsNotRead() throws {
        expectEqual(ConfigLoader.maximumFileSize, 4 * 1024 * 1024)
        let dir = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // Comment lines of 64 bytes: exactly the limit is read, one byte more is not.
        let line = "#" + String(repeating: "x", count: 62) + "\n"
        let atLimit = String(repeating: line, count: ConfigLoader.maximumFileSize / 64)
        let fine = dir.appendingPathComponent("fine.yaml")
        try Data(atLimit.utf8).write(to: fine)
        let spec = try ConfigLoader.load(path: fine.path)
        expect(spec.displays.isEmpty)
        let big = dir.appendingPathComponent("big.yaml")
        try Data((atLimit + "\n").utf8).write(to: big)
        let e = loadError(big.path)
        expectEqual(e?.message, "the config file is larger than 4 MiB (4194304 bytes), the most evroute reads")
        expectEqual(e?.kind, .io)
        expectEqual(e?.line, 0)
    }

    @Test func invalidUTF8AndAByteOrderMark() throws {
        let dir = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let bad = dir.appendingPathComponent("bad.yaml")
        try Data([0x61, 0x3A, 0x20, 0xFF, 0x0A]).write(to: bad)
        expectEqual(loadError(bad.path)?.message, "the config file is not valid UTF-8")
        // A byte order mark is not part of the text: columns on line 1 are as without it.
        let bom = dir.appendingPathComponent("bom.yaml")
        try Data([0xEF, 0xBB, 0xBF] + Array("displays: []\nscreen: []\n".utf8)).write(to: bom)
        let e = loadError(bom.path)
        expectEqual(e.map { "\($0.line):\($0.column ?? 0)" }, "2:1")
        try Data([0xEF, 0xBB, 0xBF] + Array("bogus: 1\n".utf8)).write(to: bom)
        expectEqual(loadError(bom.path).map { "\($0.line):\($0.column ?? 0)" }, "1:1")
    }

    @Test func emptyAndCommentOnlyFilesAreEmptySpecs() throws {
        let dir = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for (name, text) in [("empty.yaml", ""), ("comments.yaml", "# nothing yet\n\n# still nothing\n")] {
            let url = dir.appendingPathComponent(name)
            try Data(text.utf8).write(to: url)
            let spec = try ConfigLoader.load(path: url.path)
            expect(spec.displays.isEmpty && spec.screens.isEmpty && spec.source == url.path)
        }
    }
}
