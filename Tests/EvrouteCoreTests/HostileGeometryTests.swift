@testable import EvrouteCore
import Testing
import EvrouteChecks

/// Hit-testing geometry at the edges: the child grid never traps, whatever the
/// frames and insets, and always agrees with the plain front-to-back scan.
@Suite("Hostile geometry")
struct HostileGeometryTests {
    /// The hit-test without child grids: every child, front to back.
    func linearHit(_ l: Layout, _ p: Point, _ r: Int) -> Int? {
        let node = l.regions[r]
        guard node.isHittable, node.containsPoint(p) else { return nil }
        for c in node.children.reversed() { if let hit = linearHit(l, p, c) { return hit } }
        return r
    }

    func children(_ count: Int, insets: Double, size: Double = 10) -> [RegionSpec] {
        (0..<count).map { i in region("c\(i)", Double(i % 6) * size, Double(i / 6) * size, size, size) { $0.hitInsets = EdgeInsets(all: insets) } }
    }

    @Test func zeroSizeParentWithNegativeInsetsAndManyChildren() throws {
        // A 0×0 region whose hit insets grow it, with ≥ 24 children (a child grid): the grid
        // over a zero-size frame made Int(inf) and trapped.
        let parent = region("box", 500, 500, 0, 0, children(30, insets: -20)) { $0.hitInsets = EdgeInsets(all: -100) }
        let l = try makeLayout([screen("s", region("root", 0, 0, 1000, 1000, [parent]))])
        expect(l.childGrids[1] != nil)
        for x in stride(from: 380.0, through: 620, by: 7) {
            for y in stride(from: 380.0, through: 620, by: 7) {
                let p = Point(x: x, y: y)
                expectEqual(l.hitTest(p, inScreen: 0), linearHit(l, p, 0), "at \(p)")
            }
        }
    }

    @Test func extremeAndNonFiniteGeometryNeverTraps() {
        // Core takes any spec (the config reader bounds numbers; programmatic specs need not).
        let values: [Double] = [0, -0.0, .leastNonzeroMagnitude, 1e308, -1e308, .infinity, -.infinity, .nan, .greatestFiniteMagnitude]
        var rng = SplitMix(seed: 7)
        func pick() -> Double { values[Int(rng.next() % UInt64(values.count))] }
        func size() -> Double { let v = abs(pick()); return v.isNaN ? 0 : v }   // a NaN size is a compile error
        var compiled = 0
        for round in 0..<60 {
            var kids: [RegionSpec] = []
            for i in 0..<26 {
                kids.append(region("c\(i)", pick(), pick(), size(), size()) {
                    $0.hitInsets = EdgeInsets(top: pick(), left: pick(), bottom: pick(), right: pick())
                })
            }
            let parent = region("box", pick(), pick(), size(), size(), kids) {
                $0.hitInsets = EdgeInsets(top: pick(), left: pick(), bottom: pick(), right: pick())
            }
            guard let l = try? makeLayout([screen("s", region("root", 0, 0, 1000, 1000, [parent]) { $0.hitInsets = EdgeInsets(all: -.infinity) })])
            else { continue }
            compiled += 1
            for _ in 0..<40 {
                let p = Point(x: pick(), y: pick())
                expectEqual(l.hitTest(p, inScreen: 0), linearHit(l, p, 0), "round \(round) at \(p)")
            }
        }
        expect(compiled > 50)
    }

    @Test func gridCoversTheParentsGrownHitArea() throws {
        // A parent grown by negative insets reaches children outside its frame there: with a
        // grid (≥ 24 children) as without one.
        let kids = (0..<30).map { i in region("k\(i)", Double(i) * 10 - 50, -40, 10, 10) }
        let parent = region("strip", 100, 100, 200, 20, kids) { $0.hitInsets = EdgeInsets(all: -60) }
        let l = try makeLayout([screen("s", region("root", 0, 0, 1000, 1000, [parent]))])
        let p = Point(x: 55, y: 65)   // k0 at absolute [50, 60, 10, 10], outside the strip's frame
        expectEqual(l.regions[l.hitTest(p, inScreen: 0)!].name, "k0")
        expectEqual(l.hitTest(p, inScreen: 0), linearHit(l, p, 0))
    }

    @Test func nonFinitePointsNeitherBeginNorMoveATouchAndAnEndKeepsTheLastPoint() throws {
        let l = try makeLayout([screen("s", region("root", 0, 0, 1000, 1000, [region("a", 0, 0, 100, 100)]),
                                       handlers: [handler("p", .any)])])
        let (r, t) = makeRouter(l)
        r.touch(1, .began, .nan, 5, at: 1)            // not begun
        r.touch(2, .began, 10, 10, at: 2)
        r.touch(2, .moved, .infinity, 10, at: 3)      // not moved
        r.touch(2, .ended, -.infinity, .nan, at: 4)   // ends where it was
        r.touch(1, .ended, .nan, .nan, at: 5)         // never began: nothing
        expectEqual(t.touchEntries.map { "\($0.touch ?? -1) \($0.phase ?? "") \($0.region ?? "-")" }, ["1 began s/root/a", "1 ended s/root/a"])
        let ended = t.records.compactMap { rec -> Touch? in
            if case .routed(let e, _, _) = rec, e.touch?.phase == .ended { return e.touch } else { return nil }
        }
        expectEqual(ended.map(\.location), [Point(x: 10, y: 10)])
        expect(r.activeTouches.isEmpty)
    }
}
