import EvrouteConfig
import EvrouteTestSupport
import EvrouteCore
import Foundation

enum FileManagerShim { static func exists(_ p: String) -> Bool { FileManager.default.fileExists(atPath: p) } }
import Testing

/// The directory of this file, to find fixtures and the repo's config/ without SwiftPM resources.
let testsDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
let repoRoot = testsDirectory.deletingLastPathComponent().deletingLastPathComponent()

func fixturePath(_ name: String) -> String { testsDirectory.appendingPathComponent("Fixtures/\(name)").path }

/// Parses YAML that must be valid.
func parseValid(_ yaml: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws -> LayoutSpec {
    do {
        return try ConfigLoader.parse(yaml: yaml, file: "test.yaml")
    } catch {
        Issue.record("unexpected errors:\n\(error)", sourceLocation: sourceLocation)
        throw error
    }
}

/// The errors of YAML that must be invalid (none when it parses, which the caller's checks then flag).
func parseErrors(_ yaml: String) -> [Diagnostic] {
    do {
        _ = try ConfigLoader.parse(yaml: yaml, file: "test.yaml")
        return []
    } catch {
        return error.errors
    }
}

/// The errors of parsing and compiling YAML.
func compileErrors(_ yaml: String) -> [Diagnostic] {
    do {
        _ = try ConfigLoader.compile(yaml: yaml, file: "test.yaml")
        return []
    } catch {
        return error.errors
    }
}

/// Checks that exactly one error was reported, at `line:column`, with `fragment` in its message.
func expectOne(_ errors: [Diagnostic], line: Int, column: Int, _ fragment: String,
               kind: Diagnostic.Kind? = nil, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
    #expect(errors.count == 1, "expected one error, got:\n\(errors.map(\.description).joined(separator: "\n"))",
            sourceLocation: sourceLocation)
    guard let e = errors.first else { return }
    #expect(e.line == line && e.column == column, "at \(e.line):\(e.column ?? 0), expected \(line):\(column): \(e)",
            sourceLocation: sourceLocation)
    #expect(e.message.contains(fragment), "message: \(e.message)", sourceLocation: sourceLocation)
    if let kind { #expect(e.kind == kind, "kind \(e.kind), expected \(kind)", sourceLocation: sourceLocation) }
}

/// A one-display, one-screen config whose root region's children are `regions` (indented
/// to sit under `regions:` at 8 spaces). The first child starts on line 9.
func withRegions(_ regions: String) -> String {
    """
    displays:
      - { name: main, size: [1280, 800] }
    screens:
      - name: home
        root:
          name: root
          frame: [0, 0, 1280, 800]
          regions:
    \(regions)
    """
}
