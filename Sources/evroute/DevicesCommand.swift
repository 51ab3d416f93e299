import EvrouteCommandLine
import EvrouteInput
import EvrouteRuntime

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
                writeOut(DeviceListingRow.json(rows).serialized + "\n")
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
}
