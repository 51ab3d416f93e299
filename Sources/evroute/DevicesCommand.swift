import EvrouteCommandLine
import EvrouteInput
import EvrouteJSON

extension EvrouteCLI {
    /// `evroute devices`: the live input devices, their kind, and the device rule that takes each.
    static let devices = Command(
        "devices", abstract: "List live input devices, their kind and the device rule that matches each.",
        options: [
            configOption,
            .value("format", valueName: "format",
                   help: "text, or json: [{\"node\", \"name\", \"kind\", \"vendor\", \"product\", \"rule\", \"problem\"}] (null where unknown or none).",
                   choices: ["text", "json"], default: "text"),
        ],
        run: { p in
            let (_, layout) = try loadLayout(p.value("config"))
            let rows: [DeviceListingRow]
            do {
                rows = try DeviceListing.rows(rules: layout.deviceRules)
            } catch {
                throw failure("cannot list devices: \(error)")
            }
            if p.value("format") == "json" {
                writeOut(devicesJSON(rows).serialized + "\n")
                return
            }
            if rows.isEmpty {
                writeOut("no input devices found (udev lists none under /dev/input)\n")
                return
            }
            let header = ["NODE", "KIND", "ID", "RULE", "NAME"]
            let table = rows.map { [$0.node, $0.kindColumn, $0.vendorProduct, $0.ruleColumn, $0.name + ($0.problem.map { "  (\($0))" } ?? "")] }
            var widths = header.map(\.count)
            for r in table { for (i, c) in r.enumerated() { widths[i] = max(widths[i], c.count) } }
            for r in [header] + table {
                writeOut(r.enumerated().map { i, c in i == r.count - 1 ? c : c + String(repeating: " ", count: widths[i] - c.count) }.joined(separator: "  ") + "\n")
            }
        })

    /// `devices --format json`: one object per device; ids as lsusb writes them (4 hex digits).
    static func devicesJSON(_ rows: [DeviceListingRow]) -> JSONValue {
        func hex(_ v: UInt16?) -> JSONValue {
            guard let v else { return .null }
            let digits = String(v, radix: 16)
            return .string(String(repeating: "0", count: 4 - digits.count) + digits)
        }
        return .array(rows.map { row in
            .object([
                ("node", .string(row.node)), ("name", .string(row.name)), ("kind", .string(row.kind?.rawValue)),
                ("vendor", hex(row.vendor)), ("product", hex(row.product)), ("rule", .string(row.rule)), ("problem", .string(row.problem)),
            ])
        })
    }
}
