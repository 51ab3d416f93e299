import EvrouteConfig
import EvrouteCore
import EvrouteDaemon
import Foundation

/// Paths and layouts the benchmarks share.
enum Fixtures {
    /// The repository root (this file is `Benchmarks/Benchmarks/EvrouteBenchmarks/Fixtures.swift`).
    static let repo: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// `config/kiosk.yaml`, with its touchscreen rule widened to any touchscreen (so the real
    /// recordings, which are not ILITEK panels, route through it).
    static let kioskYAML: String = {
        let path = repo.appendingPathComponent("config/kiosk.yaml").path
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            fatalError("cannot read \(path)")
        }
        return text.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.contains("\"ILITEK*\"") && !$0.contains("vendor: \"0x222a\"") }
            .joined(separator: "\n")
    }()

    static let kiosk: Layout = {
        do { return try ConfigLoader.compile(yaml: kioskYAML, file: "kiosk.yaml", pluginTypes: PluginTypes.all).layout } catch {
            fatalError("kiosk.yaml: \(error)")
        }
    }()

    /// The 16,593-event recording of the test fixtures (`Tests/Fixtures/recordings`); the
    /// benchmarks stop with a message when it is missing.
    static let wacomRecording: String = {
        let path = repo.appendingPathComponent("Tests/Fixtures/recordings/touchscreens/Wacom DTH2242 Finger.events").path
        guard FileManager.default.fileExists(atPath: path) else { fatalError("\(path) is missing") }
        return path
    }()

    // MARK: Generated layouts for hit-testing

    static let display = Size(width: 1920, height: 1080)

    /// `count` regions: the root and `count - 1` rectangles tiling it as its direct children.
    static func flatLayout(regions count: Int) -> Layout {
        let n = max(count - 1, 1)
        let columns = Int(Double(n).squareRoot().rounded(.up))
        let rows = (n + columns - 1) / columns
        let w = display.width / Double(columns), h = display.height / Double(rows)
        var children: [RegionSpec] = []
        children.reserveCapacity(n)
        for i in 0..<n {
            let x = Double(i % columns) * w, y = Double(i / columns) * h
            // A little inset so some points fall between regions, onto the root.
            children.append(RegionSpec(name: "r\(i)", frame: Rect(x: x + 1, y: y + 1, width: w - 2, height: h - 2),
                                       handlers: [HandlerSpec(plugin: "log", on: [.touch])]))
        }
        return compile(root: RegionSpec(name: "root", frame: Rect(origin: .zero, size: display), regions: children))
    }

    /// `count` regions in a bushy tree: every region is split into a 2×2 grid of children,
    /// breadth first, until there are `count` regions (depth ≈ log4(count)).
    static func nestedLayout(regions count: Int) -> Layout {
        // Build breadth first on an index tree, then turn it into specs bottom up.
        var frames: [Rect] = [Rect(origin: .zero, size: display)]
        var parents: [Int] = [-1]
        var next = 0
        while frames.count < count {
            let p = frames[next]
            for q in 0..<4 where frames.count < count {
                let w = p.width / 2, h = p.height / 2
                let local = Rect(x: Double(q % 2) * w + 1, y: Double(q / 2) * h + 1, width: w - 2, height: h - 2)
                frames.append(local)
                parents.append(next)
            }
            next += 1
        }
        var childrenOf = [[Int]](repeating: [], count: frames.count)
        for i in 1..<frames.count { childrenOf[parents[i]].append(i) }
        func spec(_ i: Int) -> RegionSpec {
            RegionSpec(name: "n\(i)", frame: frames[i], regions: childrenOf[i].map(spec),
                       handlers: [HandlerSpec(plugin: "log", on: [.touch])])
        }
        return compile(root: spec(0))
    }

    static func compile(root: RegionSpec) -> Layout {
        let spec = LayoutSpec(displays: [DisplaySpec(name: "main", size: display)],
                              screens: [ScreenSpec(name: "s", display: "main", root: root)],
                              fallbackHandlers: [HandlerSpec(plugin: "log", on: [.any])])
        do { return try Layout.compile(spec, pluginTypes: PluginTypes.all) } catch { fatalError("generated layout: \(error)") }
    }

    /// Deterministic pseudo-random points over the display.
    static func randomPoints(_ count: Int, seed: UInt64 = 0x9E37_79B9_7F4A_7C15) -> [Point] {
        var s = seed
        func next() -> Double {
            s = s &* 6364136223846793005 &+ 1442695040888963407
            return Double(s >> 11) / Double(1 << 53)
        }
        return (0..<count).map { _ in Point(x: next() * display.width, y: next() * display.height) }
    }

    // MARK: Config and layout limits

    /// Nine levels of ten aliases each in one plugin's options: 10^9 strings in under 1 KB.
    static let billionLaughs: String = {
        var yaml = "plugins:\n  - name: lol\n    type: log\n"
        yaml += "    a: &a [" + Array(repeating: "\"lol\"", count: 10).joined(separator: ", ") + "]\n"
        for (name, previous) in zip("bcdefghi", "abcdefgh") {
            yaml += "    \(name): &\(name) [" + Array(repeating: "*\(previous)", count: 10).joined(separator: ", ") + "]\n"
        }
        return yaml
    }()

    /// `count` sibling regions, each `next` to the one after it.
    static func nextChain(regions count: Int) -> LayoutSpec {
        let kids = (0..<count).map { i -> RegionSpec in
            var r = RegionSpec(name: "r\(i)", frame: Rect(x: Double(i % 100), y: Double(i / 100), width: 1, height: 1))
            r.next = i + 1 < count ? "r\(i + 1)" : nil
            return r
        }
        return LayoutSpec(displays: [DisplaySpec(name: "main", size: display)],
                          screens: [ScreenSpec(name: "s", display: "main",
                                               root: RegionSpec(name: "root", frame: Rect(x: 0, y: 0, width: 1000, height: 1000), regions: kids))])
    }

    /// A config of `count` screens, each presented over the one before.
    static func presentedScreensYAML(_ count: Int) -> String {
        var lines = ["displays: [{name: main, size: [1280, 800]}]", "screens:"]
        for i in 0..<count {
            let over = i > 0 ? ", presented-over: s\(i - 1)" : ""
            lines.append("  - {name: s\(i), display: main, root: {name: root, frame: [0, 0, 1280, 800]}\(over)}")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// Sees every decision (routed events lent, as the router hands them out) and does nothing with it.
final class NullObserver: RouteObserver {
    var count = 0
    func record(_ record: RouteRecord) { count &+= 1 }
    func routed(_ event: RoutedEvent, handledBy responder: ResponderID?, handler: HandlerIndex?) { count &+= 1 }

}
