import EvrouteCore
import EvrouteInput
import EvrouteJSON

extension DeviceListingRow {
    /// `evroute devices --format json`: `{"node", "name", "kind", "vendor", "product", "rule",
    /// "problem"}`, ids as lsusb writes them (4 hex digits), null where unknown or none; evroute's
    /// own virtual devices (forwarding) also have `"evroute": true`.
    public var json: JSONValue {
        func hex(_ v: UInt16?) -> JSONValue { v.map { .string(DeviceListingRow.hex4(Int($0))) } ?? .null }
        var fields: [(String, JSONValue)] = [
            ("node", .string(node)), ("name", .string(name)), ("kind", .string(kind?.rawValue)),
            ("vendor", hex(vendor)), ("product", hex(product)), ("rule", .string(rule)), ("problem", .string(problem)),
        ]
        if isEvroutes { fields.append(("evroute", .bool(true))) }
        return .object(fields)
    }

    /// The whole listing as one JSON array, one object per device (``json``).
    public static func json(_ rows: [DeviceListingRow]) -> JSONValue { .array(rows.map(\.json)) }
}
