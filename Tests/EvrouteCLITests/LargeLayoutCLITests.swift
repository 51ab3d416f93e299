import Foundation
import Testing
import EvrouteChecks
import EvrouteTestSupport

/// `check` and `tree` on very large layouts stay linear (`tree` on 10,000 presented
/// screens took more than 10 s and printed 840 MB — every region's chain in full).
@Suite("Large layouts on the command line")
struct LargeLayoutCLITests {
    func write(_ text: String) throws -> String { temporaryConfig(text, name: "large.yaml") }

    @Test func longChainsArePrintedInPart() throws {
        let path = try write(GeneratedConfig.presentedScreens(100))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let text = try runEvroute(["tree", "--config", path])
        expectEqual(text.status, 0, "\(text.err)")
        // s99's root: → screen:s99 … screen:s36 (64 shown), then s35 … s0, display, application, fallback.
        let last = text.out.components(separatedBy: "\n").filter { $0.contains("chain:") }.last ?? ""
        expect(last.hasSuffix("→ screen:s36 → … (39 more)"), "\(last)")
        // Short chains are whole, as before.
        expect(text.out.contains("chain: → screen:s1 → screen:s0 → display:main → application → fallback\n"), "\(text.out.prefix(600))")
        let json = try runEvroute(["tree", "--format", "json", "--config", path])
        expectEqual(json.status, 0)
        expect(json.out.contains("\"chain_omitted\":39"))
    }

    @Test func checkAndTreeOf10000PresentedScreensStayLinear() throws {
        let path = try write(GeneratedConfig.presentedScreens(10_000))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let check = try runEvroute(["check", "--config", path])
        expectEqual(check.status, 0, "\(check.err)")
        let tree = try runEvroute(["tree", "--config", path])
        expectEqual(tree.status, 0)
        // Counted, not timed (the compile time is a benchmark: `make bench`, "Compile: 10,000
        // presented screens"): the tree is linear in the layout — each chain cut at its limit,
        // 840 MB before.
        expect(tree.out.utf8.count < 20_000_000, "the tree is linear in the layout")
        expect(tree.out.split(separator: "\n").filter { $0.hasSuffix("more)") }.count >= 9_900, "long chains are cut")
    }
}
