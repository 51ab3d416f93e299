import EvrouteConfig
import EvrouteCore
import Testing
import EvrouteChecks

@Suite struct ShapeTests {
    func shape(_ yaml: String) throws -> Shape {
        let spec = try parseValid(withRegions("""
                - name: a
                  frame: [0, 0, 100, 100]
                  shape: \(yaml)
        """))
        return spec.screens[0].root.regions[0].shape
    }

    @Test func rectangleAndEllipse() throws {
        try expectEqual(try shape("rectangle"), .rectangle)
        try expectEqual(try shape("ellipse"), .ellipse)
    }

    @Test func roundedRectangle() throws {
        try expectEqual(try shape("{ rounded-rectangle: 12 }"), .roundedRectangle(radius: 12))
        try expectEqual(try shape("{ rounded-rectangle: 0.5 }"), .roundedRectangle(radius: 0.5))
    }

    @Test func polygon() throws {
        try expectEqual(try shape("{ polygon: [[50, 0], [100, 100], [0, 100]] }"), .polygon([Point(x: 50, y: 0), Point(x: 100, y: 100), Point(x: 0, y: 100)]))
    }

    @Test func polygonInBlockStyle() throws {
        let spec = try parseValid(withRegions("""
                - name: a
                  frame: [0, 0, 100, 100]
                  shape:
                    polygon:
                      - [0, 0]
                      - [100, 0]
                      - [50, 80]
                      - [0, 80]
        """))
        expectEqual(spec.screens[0].root.regions[0].shape, .polygon([Point(x: 0, y: 0), Point(x: 100, y: 0), Point(x: 50, y: 80), Point(x: 0, y: 80)]))
    }

    @Test func shapeNeedingAParameter() {
        expectOne(parseErrors(withRegions("""
                - { name: a, frame: [0, 0, 10, 10], shape: rounded-rectangle }
        """)), line: 9, column: 52, "needs a parameter")
    }

    @Test func twoShapesAtOnce() {
        expectOne(parseErrors(withRegions("""
                - name: a
                  frame: [0, 0, 10, 10]
                  shape: { ellipse: 1, polygon: [] }
        """)), line: 11, column: 18, "'shape' must be rectangle, ellipse,")
    }
}
