import Testing
import EvrouteChecks
import EvrouteTestSupport

/// Two recordings made on different clocks (another boot, a wall clock beside a monotonic one)
/// replay each on its own clock, aligned at their starts, and the alignment is said.
@Suite("Replay clocks")
struct ReplayClockTests {
    /// The demo keyboard recorded as if by a clock 1,330,000,000 s ahead: the trace is the demo's
    /// with the keyboard starting where the touchscreen starts, its own spacing kept: no offset of
    /// a billion seconds, no idle from the gap, and stderr says which recording was aligned.
    @Test func recordingsOnDifferentClocksAreAlignedAtTheirStarts() throws {
        let scratch = Scratch()
        defer { scratch.cleanUp() }
        var shifted = ""
        var aligned = ""   // the same keyboard, its first event put at the touchscreen's first (100.0 s)
        let original = try #require(readFile(packagePath("demo/keyboard.events")))
        let touchStart = 100_000_000 as Int64
        var keyboardStart: Int64?
        for line in original.split(separator: "\n", omittingEmptySubsequences: false) {
            guard line.hasPrefix("E: ") else { shifted += line + "\n"; aligned += line + "\n"; continue }
            let fields = line.split(separator: " ", maxSplits: 2)
            let parts = fields[1].split(separator: ".")
            let us = Int64(parts[0])! * 1_000_000 + Int64(parts[1])!
            keyboardStart = keyboardStart ?? us
            func text(_ t: Int64) -> String {
                let f = String(t % 1_000_000)
                return "E: \(t / 1_000_000).\(String(repeating: "0", count: 6 - f.count) + f) \(fields[2])\n"
            }
            shifted += text(us + 1_330_000_000_000_000)
            aligned += text(us - keyboardStart! + touchStart)
        }
        let args = ["--config", "config/demo.yaml", "--dry-run", "--replay", "demo/touchscreen.events", "--replay"]
        let far = try runEvroute(args + [scratch.write("keyboard.events", shifted)])
        let near = try runEvroute(args + [scratch.write("keyboard-aligned.events", aligned)])
        expect(far.status == 0 && near.status == 0, "\(far.err)\(near.err)")
        // The trace's header says which recording was aligned, and nothing else differs.
        let header = "# replay: \(scratch.path)/keyboard.events is on another clock (starts 1330000101.902817 s, the earliest recording 100.000000 s): replayed on its own clock, aligned at the start\n"
        expect(far.out.hasPrefix(header), "\(far.out.prefix(300))")
        expectEqual(far.out.dropFirst(header.count), near.out[...], "\(far.out.split(separator: "\n").suffix(4))")
        expect(!far.out.contains("+1330000"), "\(far.out.split(separator: "\n").suffix(4))")
        expect(!far.err.contains("another clock"), "\(far.err)")
        // In JSON, the header is the first object, before any device is added.
        let json = try runEvroute(args + [scratch.path + "/keyboard.events", "--format", "json"])
        let first = json.out.split(separator: "\n").first.map(String.init) ?? ""
        expectEqual(first, #"{"type":"replay-clock","recording":"\#(scratch.path)/keyboard.events","recorded-start":1330000101.902817,"aligned-start":100.0}"#, "\(first)")
        // The monitor says it first too.
        let monitor = try runEvroute(["monitor", "--config", "config/demo.yaml", "--replay", "demo/touchscreen.events", "--replay", scratch.path + "/keyboard.events"])
        expect(monitor.out.hasPrefix(header), "\(monitor.out.prefix(300))")
        // One clock (the demo's recordings, 1.9 s apart): left as recorded, nothing said.
        let demo = try runEvroute(args + ["demo/keyboard.events"])
        expect(!demo.err.contains("another clock") && !demo.out.contains("another clock"), "\(demo.err)")
    }
}
