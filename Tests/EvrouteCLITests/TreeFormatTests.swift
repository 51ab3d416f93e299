import EvrouteConfig
import EvrouteCore
import EvrouteInput
import EvrouteJSON
import EvrouteRuntime
import Foundation
import Testing
import EvrouteChecks
import EvrouteTestSupport

/// `evroute tree --format svg|json` and `evroute devices --format json` through the binary: the
/// SVG is well-formed XML (xmllint), renders (rsvg-convert), names every region and shows the
/// styles the layout has; the JSON has every region with its frames and flags.
@Suite("tree: svg and json")
struct TreeFormatTests {
    static let layouts = ["config/kiosk.yaml", "config/demo.yaml", "config/minimal.yaml", "examples/ui-two-pages.yaml"]

    /// Every region of a layout: (path, name, display frame), from the JSON tree.
    func regions(_ config: String) throws -> [[String: Any]] {
        let r = try runEvroute(["tree", "--config", config, "--format", "json"])
        expectEqual(r.status, 0, "\(r.err)")
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any])
        var out: [[String: Any]] = []
        func walk(_ region: [String: Any]) {
            out.append(region)
            for child in region["children"] as? [[String: Any]] ?? [] { walk(child) }
        }
        for display in doc["displays"] as? [[String: Any]] ?? [] {
            for screen in display["screens"] as? [[String: Any]] ?? [] {
                if let root = screen["root"] as? [String: Any] { walk(root) }
            }
        }
        return out
    }

    @Test(arguments: layouts)
    func jsonHasEveryRegionWithItsFrames(config: String) throws {
        let all = try regions(config)
        let check = try runEvroute(["check", config])
        // "…: ok — 1 display(s), 2 screen(s), 21 region(s), …"
        let count = check.out.split(separator: ",").first { $0.contains("region(s)") }?.split(separator: " ").first.flatMap { Int($0) }
        expectEqual(all.count, count, "\(all.count) regions in the JSON, check says \(check.out)")
        for region in all {
            let path = try #require(region["path"] as? String)
            let frame = try #require(region["display_frame"] as? [Double])
            expectEqual(frame.count, 4)
            // The hit test agrees: the centre of a hittable leaf region without children is in it.
            if region["hittable"] as? Bool == true, (region["children"] as? [Any])?.isEmpty == true, region["shape"] as? String == "rectangle" {
                let hit = try runEvroute(["hit", "--config", config, "--format", "json", "--screen", String(path.split(separator: "/")[0]),
                                          "\(frame[0] + frame[2] / 2)", "\(frame[1] + frame[3] / 2)"])
                expect(hit.out.contains("\"region\":\"\(path)\""), "\(path): \(hit.out)")
            }
        }
    }

    /// The JSON, read with EvrouteJSON's parser, against the config as written (the spec, not
    /// the compiled layout the JSON is made from): every region of every screen, by path, with
    /// its frame as written, its display frame (the frames' origins summed down the tree), its
    /// flags, its handlers' plugins and its children's names in order.
    @Test(arguments: layouts)
    func jsonMatchesTheConfigAsWritten(config: String) throws {
        let spec = try ConfigLoader.load(path: packageRoot + "/" + config)
        let r = try runEvroute(["tree", "--config", config, "--format", "json"])
        let doc = try JSONValue.parse(r.out)
        var byPath: [String: JSONValue] = [:]
        var screenNames: [String] = []
        func walk(_ region: JSONValue) {
            if let path = region["path"]?.stringValue { byPath[path] = region }
            for child in region["children"]?.arrayValue ?? [] { walk(child) }
        }
        for display in doc["displays"]?.arrayValue ?? [] {
            for screen in display["screens"]?.arrayValue ?? [] {
                screenNames.append(screen["name"]?.stringValue ?? "?")
                if let root = screen["root"] { walk(root) }
            }
        }
        expectEqual(screenNames.sorted(), spec.screens.map(\.name).sorted())
        func numbers(_ v: JSONValue?) -> [Double] { v?.arrayValue?.compactMap(\.doubleValue) ?? [] }
        var count = 0
        func check(_ region: RegionSpec, path: String, origin: Point) {
            count += 1
            guard let json = byPath[path] else { Issue.record("\(config): \(path) is not in the JSON"); return }
            let f = region.frame
            expectEqual(numbers(json["frame"]), [f.minX, f.minY, f.width, f.height], "\(path)")
            expectEqual(numbers(json["display_frame"]), [origin.x + f.minX, origin.y + f.minY, f.width, f.height], "\(path)")
            expectEqual(json["name"]?.stringValue, region.name)
            expect(json["hidden"]?.boolValue == region.hidden && json["interactive"]?.boolValue == region.interactive
                    && json["exclusive"]?.boolValue == region.exclusive && json["focusable"]?.boolValue == region.focusable
                    && json["multitouch"]?.boolValue == region.multitouch, "\(path)")
            expectEqual((json["handlers"]?.arrayValue ?? []).map { $0["plugin"]?.stringValue ?? "" }, region.handlers.map(\.plugin), "\(path)")
            expectEqual((json["children"]?.arrayValue ?? []).map { $0["name"]?.stringValue ?? "" }, region.regions.map(\.name), "\(path)")
            expectEqual((json["chain"]?.arrayValue ?? []).last?.stringValue, "fallback", "\(path)")
            for child in region.regions {
                check(child, path: path + "/" + child.name, origin: Point(x: origin.x + f.minX, y: origin.y + f.minY))
            }
        }
        for screen in spec.screens { check(screen.root, path: screen.name + "/" + screen.root.name, origin: Point(x: 0, y: 0)) }
        expectEqual(byPath.count, count, "\(config): \(byPath.count) regions in the JSON, \(count) in the config")
    }

    @Test(arguments: layouts)
    func svgIsWellFormedRendersAndNamesEveryRegion(config: String) throws {
        let xmllint = try requireProgram("xmllint", package: "libxml2-utils")
        let rsvg = try requireProgram("rsvg-convert", package: "librsvg2-bin")
        let r = try runEvroute(["tree", "--config", config, "--format", "svg"])
        expectEqual(r.status, 0, "\(r.err)")
        let path = NSTemporaryDirectory() + "evroute-tree-\(UUID().uuidString).svg"
        try r.out.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path); try? FileManager.default.removeItem(atPath: path + ".png") }
        let lint = try TestProcess.run(xmllint, ["--noout", path])
        expect(lint.status == 0 && lint.err.isEmpty, "\(lint.err)")
        let png = try TestProcess.run(rsvg, ["-o", path + ".png", path])
        expectEqual(png.status, 0, "\(png.err)")
        let size = (try? FileManager.default.attributesOfItem(atPath: path + ".png")[.size] as? Int) ?? 0
        expect(size > 5_000, "the rendered picture is \(size) bytes")
        // Every region has its path (then its whole label) as a tooltip and its name in a text
        // element (drawn in it, or listed under the panel when it has no room for it).
        for region in try regions(config) {
            let name = try #require(region["name"] as? String)
            let path = try #require(region["path"] as? String)
            expect(r.out.contains("<title>\(path)</title>") || r.out.contains("<title>\(path)\n"), "\(name)")
            expect(r.out.contains(">\(name)<") || r.out.contains(">\(name) ◆<")
                    || r.out.range(of: "class=\"unlabelled\"[^>]*>[^<]*\\b\(name)\\b", options: .regularExpression) != nil,
                    "\(config): region \(name) is not named")
        }
    }

    @Test func svgShowsEachStyleTheLayoutHas() throws {
        let svg = try runEvroute(["tree", "--config", "config/kiosk.yaml", "--format", "svg"]).out
        let all = try regions("config/kiosk.yaml")
        expect(all.contains { $0["hidden"] as? Bool == true } && svg.contains("stroke-dasharray=\"5 3\""))
        expect(all.contains { $0["interactive"] as? Bool == false } && svg.contains("fill=\"url(#hatch)\" fill-opacity"))
        expect(all.contains { $0["exclusive"] as? Bool == true } && svg.contains("stroke=\"#c00\" stroke-width=\"3\""))
        expect(all.contains { $0["focusable"] as? Bool == true } && svg.contains(" ◆</text>"))
        // admin is presented by a region of home: it stands beside it with an arrow from it.
        expect(svg.contains("presented by home/root/header"))
        expect(svg.contains("marker-end=\"url(#arrow)\""))
        let home = try #require(svg.range(of: ">screen home<")), admin = try #require(svg.range(of: ">screen admin<"))
        expect(home.lowerBound < admin.lowerBound)
    }

    /// The boxes of an SVG element's numeric attributes, e.g. `x y width height`.
    static func numbers(_ element: Substring, _ names: [String]) -> [Double]? {
        var values: [Double] = []
        for name in names {
            guard let r = element.range(of: " \(name)=\"([-0-9.]+)\"", options: .regularExpression) else { return nil }
            let attribute = element[r].dropFirst(name.count + 3).dropLast()
            guard let value = Double(attribute) else { return nil }
            values.append(value)
        }
        return values
    }

    /// Labels stay readable: in every shipped layout, each line of a region's label lies within
    /// the region's rectangle and clear of every (visible, rectangular) region drawn after it,
    /// which would paint over it.
    @Test(arguments: layouts)
    func svgLabelsStayInTheirRegionAndClearOfRegionsDrawnOverThem(config: String) throws {
        let svg = try runEvroute(["tree", "--config", config, "--format", "svg"]).out
        var checked = 0
        for panel in svg.components(separatedBy: "<svg class=\"panel\"").dropFirst() {
            // One group per region, in drawing order: its tooltip, its shape, its label's lines.
            struct Group { var path: String; var hidden: Bool; var box: [Double]?; var labels: [[Double]] }
            var groups: [Group] = []
            for chunk in panel.components(separatedBy: "<g").dropFirst() {
                guard let titleEnd = chunk.range(of: "</title>"), let titleStart = chunk.range(of: "<title>") else { continue }
                let path = String(chunk[titleStart.upperBound..<titleEnd.lowerBound].prefix { $0 != "\n" })
                let shape = chunk[titleEnd.upperBound...].drop { $0 == "\n" }.prefix { $0 != "\n" }
                let box = shape.hasPrefix("<rect") ? Self.numbers(shape, ["x", "y", "width", "height"]) : nil
                let labels = chunk.components(separatedBy: "<svg class=\"label\"").dropFirst().compactMap {
                    Self.numbers($0.prefix { $0 != ">" }, ["x", "y", "width", "height"])
                }
                groups.append(Group(path: path, hidden: chunk.hasPrefix(" opacity=\"0.6\""), box: box, labels: labels))
            }
            expect(!groups.isEmpty, "\(config): no regions in a panel")
            func intersects(_ a: [Double], _ b: [Double], slack: Double) -> Bool {
                a[0] < b[0] + b[2] - slack && b[0] < a[0] + a[2] - slack && a[1] < b[1] + b[3] - slack && b[1] < a[1] + a[3] - slack
            }
            for (i, group) in groups.enumerated() {
                for label in group.labels {
                    if let box = group.box {
                        let slack = group.hidden ? 2.0 : 0.5   // a hidden region's outline is drawn inside its frame
                        expect(label[0] >= box[0] - slack && label[1] >= box[1] - slack
                                && label[0] + label[2] <= box[0] + box[2] + slack && label[1] + label[3] <= box[1] + box[3] + slack,
                                "\(config): a label line of \(group.path) \(label) leaves its region \(box)")
                    }
                    for later in groups[(i + 1)...] where !later.hidden {
                        guard let box = later.box else { continue }
                        expect(!intersects(label, box, slack: 0.5), "\(config): \(later.path) \(box) is drawn over the label of \(group.path) \(label)")
                    }
                    checked += 1
                }
            }
        }
        expect(checked > 0, "\(config): no label lines found")
    }

    @Test func svgPlacesLabelsWhereThereIsRoomAndSaysHowScreensAreShown() throws {
        // home's root has a title over its top-left corner but room below it: it is labelled
        // there, not listed under the panel. settings and confirm are shown by the UI only.
        let svg = try runEvroute(["tree", "--config", "examples/ui-two-pages.yaml", "--format", "svg"]).out
        let home = try #require(svg.range(of: "<title>home/root</title>"))
        let group = svg[home.upperBound...].components(separatedBy: "</g>")[0]
        expect(group.contains("class=\"label\"") && group.contains(">root</text>"), "\(group)")
        expect(!svg.contains("not labelled above"))
        expectEqual(svg.components(separatedBy: "shown when presented at run time").count, 3)
        // kiosk: the hidden debug overlay is labelled (with its flag), and the screens' own handlers are shown.
        let kiosk = try runEvroute(["tree", "--config", "config/kiosk.yaml", "--format", "svg"]).out
        let overlay = try #require(kiosk.range(of: "<title>home/root/content/debug-overlay\n"))
        let overlayGroup = kiosk[overlay.upperBound...].components(separatedBy: "</g>")[0]
        expect(overlayGroup.contains(">debug-overlay</text>") && overlayGroup.contains(">hidden</text>"), "\(overlayGroup)")
        expect(kiosk.contains("handlers: ui: key") && kiosk.contains("handlers: close: key:KEY_ESC; log: any"))
    }

    @Test func svgEscapesWhatItPrints() throws {
        let xmllint = try requireProgram("xmllint", package: "libxml2-utils")
        let dir = NSTemporaryDirectory() + "evroute-tree-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let config = dir + "/a&b<\"c\">.yaml"
        try String(contentsOfFile: packageRoot + "/config/minimal.yaml", encoding: .utf8).write(toFile: config, atomically: true, encoding: .utf8)
        let r = try runEvroute(["tree", "--config", config, "--format", "svg"])
        expectEqual(r.status, 0, "\(r.err)")
        expect(r.out.contains("a&amp;b&lt;&quot;c&quot;&gt;.yaml"))
        try r.out.write(toFile: dir + "/out.svg", atomically: true, encoding: .utf8)
        try expectEqual(try TestProcess.run(xmllint, ["--noout", dir + "/out.svg"]).status, 0)
    }

    /// `--dry-run --replay … --heatmap FILE`: the layout's picture with one dot per touch-down
    /// (as many as the summary counts), each at its display point scaled into its screen's
    /// panel, coloured by what took the touch, and the drag's path.
    @Test func heatmapDrawsEveryTouchOfTheReplay() throws {
        let xmllint = try requireProgram("xmllint", package: "libxml2-utils")
        let path = NSTemporaryDirectory() + "evroute-heatmap-\(UUID().uuidString).svg"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let r = try runEvroute(["--config", "config/demo.yaml", "--dry-run", "--replay", "demo/touchscreen.events",
                                "--replay", "demo/keyboard.events", "--heatmap", path])
        expectEqual(r.status, 0, "\(r.err)")
        let svg = try String(contentsOfFile: path, encoding: .utf8)
        try expectEqual(try TestProcess.run(xmllint, ["--noout", path]).status, 0)
        // The layout is all there, as in `tree --format svg`.
        let tree = try runEvroute(["tree", "--config", "config/demo.yaml", "--format", "svg"]).out
        for line in tree.split(separator: "\n") where line.hasPrefix("<g><title>") { expect(svg.contains(line), "\(line)") }
        // "summary: … 10 touch(es)" — one dot each, with its tooltip.
        let summary = try #require(r.out.split(separator: "\n").last { $0.hasPrefix("summary:") })
        let touches = try #require(summary.split(separator: ";")[1].split(separator: " ").first.flatMap { Int($0) })
        let dots = svg.components(separatedBy: "<circle").filter { $0.contains("<title>touch ") }
        expect(touches == 10 && dots.count == touches, "\(dots.count) dots, \(summary)")
        expect(svg.contains("10 touch(es) from demo/touchscreen.events, demo/keyboard.events"))
        // The back tap at display (78.44, 51.56), drawn at 50 %: taken by back's handler (blue).
        expect(svg.contains("cx=\"39.22\" cy=\"25.78\" r=\"5\" fill=\"#1a5fb4\""), "\(dots.first ?? "")")
        // title has no handler: the tap fell through to the fallback (orange).
        expect(dots.contains { $0.contains("in home/root/header/title, fell through") && $0.contains("fill=\"#e66100\"") })
        // The drag from volume down into content is a path of many points, ending below volume.
        let drag = try #require(svg.components(separatedBy: "<polyline").dropFirst().map { $0.prefix { $0 != ">" } }.max { $0.count < $1.count })
        expect(drag.split(separator: " ").count > 10, "\(drag)")
        // Without a replay there is nothing to draw: a usage error.
        let usage = try runEvroute(["--config", "config/demo.yaml", "--dry-run", "--heatmap", path + ".x"])
        expect(usage.status == 2 && usage.err.contains("--heatmap needs --dry-run and --replay"), "\(usage.err)")
    }

    /// In a heatmap the regions' names are drawn over the touches (a dot never hides a name),
    /// and the legend says what the fills mean: how deep a region lies in its screen's tree.
    @Test func heatmapLabelsAreOverTheTouchesAndTheLegendNamesTheDepthFills() throws {
        let path = temporaryPath("heatmap.svg")
        defer { unlink(path) }
        let r = try runEvroute(["--config", "config/demo.yaml", "--dry-run", "--replay", "demo/touchscreen.events", "--heatmap", path])
        expectEqual(r.status, 0, "\(r.err)")
        let svg = try #require(readFile(path))
        let touches = try #require(svg.range(of: "<g class=\"touches\">"))
        let panelEnd = try #require(svg.range(of: ">legend</text>", range: touches.upperBound..<svg.endIndex))
        let before = svg[..<touches.lowerBound], after = svg[touches.upperBound..<panelEnd.lowerBound]
        expect(!before.contains("class=\"label\""), "a label drawn under the touches")
        for name in ["back", "title", "volume", "content", "nav-home"] {
            expect(after.contains(">\(name)</text>"), "\(name) is not labelled over the touches")
        }
        expect(svg.contains(">fill = depth:</text>"))
        for (depth, colour) in ["#eef2f7", "#dde8f5", "#d3ecd9"].enumerated() {
            expect(svg.contains("fill=\"\(colour)\" stroke=\"#444\"/>\n<text x="), "depth \(depth)")
        }
        // Without touches (tree), each region's label still follows its own shape.
        let tree = try runEvroute(["tree", "--config", "config/demo.yaml", "--format", "svg"]).out
        expect(tree.contains(">fill = depth:</text>"))
    }

    /// A region too small for its name (the demo's 100×100 admin-corner, drawn 50×50) is named
    /// beside it, in the panel, with a leader line from its edge, not only under the panel.
    @Test func aSmallRegionIsNamedBesideItWithALeaderLine() throws {
        let svg = try runEvroute(["tree", "--config", "config/demo.yaml", "--format", "svg"]).out
        let leader = try #require(svg.split(separator: "\n").first { $0.hasPrefix("<g class=\"leader\">") && $0.contains(">admin-corner</text>") },
                                  "admin-corner has no leader label")
        // From admin-corner's bottom edge (590…640 × 0…50 in the panel) down to its name.
        expect(leader.contains("y1=\"50\" x2=") && leader.contains("y2=\"56\""), "\(leader)")
        let footnote = svg.split(separator: "\n").filter { $0.contains("class=\"unlabelled\"") }.joined()
        expect(!footnote.contains("admin-corner"), "\(footnote)")
    }

    @Test func devicesJSONHasEachRowsFields() throws {
        let rows = [
            DeviceListingRow(node: "/dev/input/event3", name: "ILITEK \"Multi\" Touch", kind: .touchscreen, vendor: 0x222a, product: 0x1,
                             rule: "touch"),
            DeviceListingRow(node: "/dev/input/event9", name: "", kind: nil, vendor: nil, product: nil, rule: nil, problem: "EACCES"),
        ]
        let parsed = try JSONValue.parse(DeviceListingRow.json(rows).serialized)
        let array = try #require(parsed.arrayValue)
        expectEqual(array.count, 2)
        expectEqual(array[0]["node"]?.stringValue, "/dev/input/event3")
        expectEqual(array[0]["name"]?.stringValue, "ILITEK \"Multi\" Touch")
        expectEqual(array[0]["kind"]?.stringValue, "touchscreen")
        expect(array[0]["vendor"]?.stringValue == "222a" && array[0]["product"]?.stringValue == "0001")
        expect(array[0]["rule"]?.stringValue == "touch" && array[0]["problem"] == .null)
        for key in ["kind", "vendor", "product", "rule"] { expectEqual(array[1][key], .null, "\(key)") }
        expectEqual(array[1]["problem"]?.stringValue, "EACCES")
    }

    @Test func devicesJSONIsAnArray() throws {
        // No /dev/input here: an empty array (the real-kernel scenario 10 lists a real device).
        let r = try runEvroute(["devices", "--format", "json"])
        expectEqual(r.status, 0, "\(r.err)")
        try expect(try JSONSerialization.jsonObject(with: Data(r.out.utf8)) is [Any])
    }

    /// `tree` shows the whole layout — the device rules and each gesture's parameters
    /// — in text, JSON and SVG alike.
    @Test func treeShowsDeviceRulesAndGestureParameters() throws {
        let text = try runEvroute(["tree", "--config", "config/kiosk.yaml"]).out
        expect(text.contains("device rule touch: match {kind touchscreen, name ILITEK*, vendor 0x222a}, display panel, calibration 1|0|0|0|1|0, grab true\n"), "\(text.prefix(300))")
        expect(text.contains("device rule keys: match {kind keyboard, udev {ID_BUS usb}}, display panel\n"))
        expect(text.contains("gesture admin-hold: type long-press, touches 1, minimum-duration 3, allowable-movement 20, action open-admin\n"))
        expect(text.contains("gesture content-double-tap: type tap, taps 2, touches 1, allowable-movement 10, cancels-touches false, require-to-fail content-swipe\n"))

        let json = try runEvroute(["tree", "--config", "config/kiosk.yaml", "--format", "json"]).out
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let rules = try #require(doc["devices"] as? [[String: Any]])
        expectEqual(rules.map { $0["name"] as? String }, ["touch", "keys"])
        expect(rules[0]["grab"] as? Bool == true && rules[0]["display"] as? String == "panel" && rules[0]["text"] as? Bool == true)
        expectEqual((rules[0]["match"] as? [String: Any])?["vendor"] as? String, "0x222a")
        expectEqual((rules[1]["keymap"] as? [String: Any])?["layout"] as? String, "us")
        expect(json.contains(#""gestures":[{"name":"admin-hold","type":"long-press","touches":1,"minimum_duration":3,"allowable_movement":20,"cancels_touches":true,"delays_touches_began":false,"delays_touches_ended":true,"require_to_fail":[],"simultaneous_with":[],"action":"open-admin"}]"#))

        let svg = try runEvroute(["tree", "--config", "config/kiosk.yaml", "--format", "svg"]).out
        expect(svg.contains(">device rule touch: match {kind touchscreen, name ILITEK*, vendor 0x222a}, display panel, calibration 1|0|0|0|1|0, grab true</text>"))
        expect(svg.contains(">gesture admin-hold on home/root/header/admin-corner: type long-press, touches 1, minimum-duration 3, allowable-movement 20, action open-admin</text>"))
        // The region's tooltip has its gestures' parameters too.
        expect(svg.contains("<title>home/root/header/admin-corner\ngestures: admin-hold\ngesture admin-hold: type long-press"))
    }

    /// A device rule's `filters:` and a display's `idle:` are part of the layout `tree` shows: in
    /// text and the SVG's info lines as configured (with the bounds a filter runs with), in JSON
    /// under every rule and display (`{}` and `null` where none is configured).
    @Test func treeShowsDeviceFiltersAndDisplayIdle() throws {
        let config = temporaryConfig("""
            displays:
              - { name: main, size: [1280, 800], idle: { after-s: 120, swallow-wake-touch: true } }
              - { name: side, size: [800, 480] }
            devices:
              - name: touch
                match: { kind: touchscreen }
                display: main
                filters:
                  ignore: [[1260, 0, 20, 20], [0, 780, 20, 20]]
                  pressure: { min: 12 }
                  palm: { tool: true, size: 40 }
                  ghost-taps: {}
                  jitter: { hysteresis: 3 }
                  stuck-after-s: 600
              - { name: plain, match: { kind: touchscreen }, display: side }
            screens:
              - { name: home, display: main, root: { name: root, frame: [0, 0, 1280, 800], handlers: [{ plugin: log, on: [tap, idle] }] } }
              - { name: other, display: side, root: { name: root, frame: [0, 0, 800, 480], handlers: [{ plugin: log, on: tap }] } }
            """, name: "filters-idle.yaml")
        let filters = "filters {ignore [1260, 0, 20, 20] [0, 780, 20, 20], pressure {min 12}, palm {tool true, size 40}, ghost-taps {max-duration-ms 20}, jitter {hysteresis 3}, stuck-after-s 600}"
        let idle = "idle {after-s 120, swallow-wake-touch true}"

        let text = try runEvroute(["tree", "--config", config])
        expectEqual(text.status, 0, "\(text.err)")
        expect(text.out.contains("device rule touch: match {kind touchscreen}, display main, \(filters)\n"), "\(text.out)")
        expect(text.out.contains("device rule plain: match {kind touchscreen}, display side\n"), "\(text.out)")
        expect(text.out.contains("display main 1280×800: \(idle)\n"), "\(text.out)")
        expect(text.out.contains("display side 800×480\n"), "\(text.out)")

        let json = try runEvroute(["tree", "--config", config, "--format", "json"]).out
        expect(json.contains(#""log_keys":false,"filters":{"ignore":[[1260,0,20,20],[0,780,20,20]],"pressure":{"min":12},"palm":{"tool":true,"size":40},"ghost_taps":{"max_duration_ms":20},"jitter":{"hysteresis":3},"stuck_after_s":600}}"#), "\(json)")
        expect(json.contains(#""name":"plain""#) && json.contains(#""log_keys":false,"filters":{}}"#), "\(json)")
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let displays = try #require(doc["displays"] as? [[String: Any]])
        let mainIdle = try #require(displays[0]["idle"] as? [String: Any])
        expect(mainIdle["after_s"] as? Double == 120 && mainIdle["swallow_wake_touch"] as? Bool == true)
        expect(displays[1].keys.contains("idle") && displays[1]["idle"] is NSNull)

        let svg = try runEvroute(["tree", "--config", config, "--format", "svg"]).out
        expect(svg.contains(">device rule touch: match {kind touchscreen}, display main, \(filters)</text>"), "\(svg)")
        expect(svg.contains(">display main: \(idle)</text>"), "\(svg)")
        expect(!svg.contains(">display side: "))
    }

    /// A 100×100 corner on a 1280×800 display (50×50 in the picture) has no room for its name:
    /// it is named beside it with a leader line, not drawn clipped ("admin-cc"); no line of any
    /// label is wider than its box, and the picture stays valid XML.
    @Test func aRegionTooSmallForItsNameIsNamedUnderThePanelNeverClipped() throws {
        let xmllint = try requireProgram("xmllint", package: "libxml2-utils")
        let dir = NSTemporaryDirectory() + "evroute-corner-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try """
            displays: [{ name: main, size: [1280, 800] }]
            screens:
              - name: home
                root:
                  name: root
                  frame: [0, 0, 1280, 800]
                  handlers: [{ plugin: log, on: tap }]
                  regions:
                    - name: admin-corner
                      frame: [1180, 0, 100, 100]
                      gestures: [{ name: admin-hold, type: long-press, minimum-duration: 3, action: open-admin }]
                      handlers: [{ plugin: log, on: ["action:open-admin"] }]
            """.write(toFile: dir + "/corner.yaml", atomically: true, encoding: .utf8)
        let r = try runEvroute(["tree", "--config", dir + "/corner.yaml", "--format", "svg"])
        expectEqual(r.status, 0, "\(r.err)")
        try r.out.write(toFile: dir + "/out.svg", atomically: true, encoding: .utf8)
        try expectEqual(try TestProcess.run(xmllint, ["--noout", dir + "/out.svg"]).status, 0)
        let corner = try #require(r.out.range(of: "<title>home/root/admin-corner\n"))
        let group = r.out[corner.upperBound...].components(separatedBy: "</g>")[0]
        expect(!group.contains("class=\"label\""), "the corner's name is drawn in it: \(group)")
        // Named beside it, with a leader line, in the panel (under the panel only when no side has room).
        expect(r.out.contains("<g class=\"leader\">") && r.out.contains(">admin-corner</text></g>") && !r.out.contains("not labelled above"),
                "\(r.out.components(separatedBy: "\n").filter { $0.contains("unlabelled") || $0.contains("leader") })")
        // Every label line fits its box whole at its font size (the estimate the placer uses).
        for chunk in r.out.components(separatedBy: "<svg class=\"label\"").dropFirst() {
            let width = try #require(Self.numbers(chunk.prefix { $0 != ">" }, ["width"])?.first)
            let textElement = chunk.drop { $0 != ">" }.dropFirst()
            let tag = textElement.prefix { $0 != ">" }
            let size = try #require(Self.numbers(tag, ["font-size"])?.first)
            let content = textElement.drop { $0 != ">" }.dropFirst().prefix { $0 != "<" }
            let bold = tag.contains("font-weight=\"bold\"")
            expect(Double(content.count) * size * (bold ? 0.64 : 0.58) <= width + 0.5, "\(content) at \(size) in \(width)")
        }
    }
}
