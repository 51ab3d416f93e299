import Testing
import EvrouteChecks
@testable import EvrouteCore

@Suite("Hit-testing")
struct HitTestingTests {
    /// Figure 2-1: A holds B and C; C holds D and E. A touch in E (inside A and C, outside B and D).
    func figure21() throws -> Layout {
        let a = region("A", 0, 0, 400, 600, [
            region("B", 0, 0, 400, 200),
            region("C", 0, 200, 400, 400, [
                region("D", 0, 0, 400, 200),
                region("E", 0, 200, 400, 200),
            ]),
        ])
        return try makeLayout([screen("s", a)])
    }

    @Test func figure21TouchInEHitsE() throws {
        let l = try figure21()
        let hit = try #require(l.hitTest(Point(x: 100, y: 500), inScreen: 0))
        expectEqual(l.regions[hit].path, "s/A/C/E")
        expectEqual(l.responderChain(from: .region(hit)).map(l.describe), ["s/A/C/E", "s/A/C", "s/A", "screen:s", "display:main", "application", "fallback"])
        expectEqual(l.hitTest(Point(x: 100, y: 300), inScreen: 0).map { l.regions[$0].path }, "s/A/C/D")
        expectEqual(l.hitTest(Point(x: 100, y: 100), inScreen: 0).map { l.regions[$0].path }, "s/A/B")
        expect(l.hitTest(Point(x: 500, y: 100), inScreen: 0) == nil)
    }

    @Test func deepestWinsAndLastDeclaredIsOnTop() throws {
        let l = try makeLayout([screen("s", region("root", 0, 0, 1000, 1000, [
            region("under", 0, 0, 500, 500, [region("deep", 10, 10, 50, 50)]),
            region("over", 100, 100, 500, 500),
        ]))])
        expectEqual(l.regions[l.hitTest(Point(x: 150, y: 150), inScreen: 0)!].name, "over")
        expectEqual(l.regions[l.hitTest(Point(x: 20, y: 20), inScreen: 0)!].name, "deep")
        expectEqual(l.regions[l.hitTest(Point(x: 700, y: 700), inScreen: 0)!].name, "root")
    }

    @Test(arguments: ["hidden", "interactive", "opacity"])
    func skippedRegionsSkipTheirSubtree(flag: String) throws {
        let l = try makeLayout([screen("s", region("root", 0, 0, 1000, 1000, [
            region("panel", 0, 0, 500, 500, [region("child", 0, 0, 100, 100)]) { r in
                switch flag {
                case "hidden": r.hidden = true
                case "interactive": r.interactive = false
                default: r.opacity = 0.005
                }
            },
        ]))])
        expectEqual(l.regions[l.hitTest(Point(x: 50, y: 50), inScreen: 0)!].name, "root")
    }

    @Test func opacityAtThresholdIsHittable() throws {
        let l = try makeLayout([screen("s", region("root", 0, 0, 1000, 1000, [
            region("faint", 0, 0, 100, 100) { $0.opacity = 0.01 },
        ]))])
        expectEqual(l.regions[l.hitTest(Point(x: 50, y: 50), inScreen: 0)!].name, "faint")
    }

    @Test func childOutsideItsParentCannotBeHitThere() throws {
        let l = try makeLayout([screen("s", region("root", 0, 0, 1000, 1000, [
            region("parent", 0, 0, 100, 100, [region("sticksOut", 50, 50, 200, 200)]),
        ]))])
        expectEqual(l.regions[l.hitTest(Point(x: 75, y: 75), inScreen: 0)!].name, "sticksOut")
        expectEqual(l.regions[l.hitTest(Point(x: 150, y: 150), inScreen: 0)!].name, "root")
    }

    @Test func edgesAreHalfOpen() throws {
        let l = try makeLayout([screen("s", region("root", 0, 0, 1000, 1000, [
            region("left", 0, 0, 100, 100), region("right", 100, 0, 100, 100),
        ]))])
        expectEqual(l.regions[l.hitTest(Point(x: 100, y: 0), inScreen: 0)!].name, "right")
        expectEqual(l.regions[l.hitTest(Point(x: 99.999, y: 99.999), inScreen: 0)!].name, "left")
    }

    @Test func shapes() throws {
        let l = try makeLayout([screen("s", region("root", 0, 0, 1000, 1000, [
            region("ellipse", 0, 0, 200, 100) { $0.shape = .ellipse },
            region("rounded", 300, 0, 200, 100) { $0.shape = .roundedRectangle(radius: 40) },
            region("triangle", 0, 300, 200, 200) { $0.shape = .polygon([Point(x: 0, y: 0), Point(x: 200, y: 0), Point(x: 0, y: 200)]) },
        ]))])
        func name(_ x: Double, _ y: Double) -> String { l.regions[l.hitTest(Point(x: x, y: y), inScreen: 0)!].name }
        expectEqual(name(100, 50), "ellipse")
        expectEqual(name(5, 5), "root")            // ellipse corner
        expectEqual(name(195, 50), "ellipse")      // near the right vertex
        expectEqual(name(305, 5), "root")          // rounded corner
        expectEqual(name(320, 50), "rounded")      // left edge, middle
        expectEqual(name(400, 2), "rounded")       // top edge, middle
        expectEqual(name(50, 350), "triangle")
        expectEqual(name(150, 450), "root")        // beyond the hypotenuse
    }

    @Test func hitInsets() throws {
        let l = try makeLayout([screen("s", region("root", 0, 0, 1000, 1000, [
            region("grown", 100, 100, 20, 20) { $0.hitInsets = EdgeInsets(all: -10) },
            region("shrunk", 500, 500, 100, 100) { $0.hitInsets = EdgeInsets(top: 0, left: 50, bottom: 0, right: 0) },
        ]))])
        func name(_ x: Double, _ y: Double) -> String { l.regions[l.hitTest(Point(x: x, y: y), inScreen: 0)!].name }
        expectEqual(name(92, 92), "grown")
        expectEqual(name(89, 92), "root")
        expectEqual(name(510, 550), "root")
        expectEqual(name(560, 550), "shrunk")
    }

    @Test func gridIndexAgreesWithLinearScan() throws {
        // 10,000 children, overlapping, some hidden: the grid must give the linear scan's answer.
        var children: [RegionSpec] = []
        var rng = SplitMix(seed: 42)
        for i in 0..<10_000 {
            let x = Double(rng.next() % 990), y = Double(rng.next() % 990)
            let w = Double(rng.next() % 40 + 1), h = Double(rng.next() % 40 + 1)
            children.append(region("r\(i)", x, y, w, h) { $0.hidden = i % 17 == 0 })
        }
        let l = try makeLayout([screen("s", region("root", 0, 0, 1000, 1000, children))])
        expect(l.childGrids[0] != nil)
        for _ in 0..<2000 {
            let p = Point(x: Double(rng.next() % 100_000) / 100, y: Double(rng.next() % 100_000) / 100)
            var expected = 0
            for c in l.regions[0].children.reversed() where l.regions[c].isHittable && l.regions[c].containsPoint(p) {
                expected = c; break
            }
            expectEqual(l.hitTest(p, inScreen: 0), expected)
        }
    }
}

struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
