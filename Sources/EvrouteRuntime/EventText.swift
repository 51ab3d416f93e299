import EvrouteCore
import EvrouteJSON

/// The encoder's fields as members of a JSON object (the caller opens and closes it):
/// docs/events.md's event object, as the JSON trace and the plugins' wire format write it.
/// Numbers to 1/1000, times in seconds (``TimestampText/seconds(_:to:)``'s text).
extension JSONWriter: EventFieldWriter {
    @inlinable
    public mutating func field(_ field: EventField, _ value: String?) { self.field(field.name, value) }
    @inlinable
    public mutating func field(_ field: EventField, integer value: Int) { self.field(field.name, value) }
    @inlinable
    public mutating func field(_ field: EventField, number value: Double?) { self.field(field.name, value) }
    @inlinable
    public mutating func field(_ field: EventField, bool value: Bool) { self.field(field.name, value) }
    @inlinable
    public mutating func field(_ field: EventField, time value: Timestamp) { self.field(field.name, time: value.microseconds) }
    @inlinable
    public mutating func field(_ field: EventField, point value: Point) {
        key(field.name)
        beginArray()
        number(value.x)
        number(value.y)
        endArray()
    }
    @inlinable
    public mutating func field(_ field: EventField, x: Double, y: Double, z: Double) {
        key(field.name)
        beginArray()
        number(x)
        number(y)
        number(z)
        endArray()
    }
    @inlinable
    public mutating func options(of handler: HandlerBinding) { HandlerOptions.writeJSON(of: handler, to: &self) }
}

/// A time's text, the one formatter of it: seconds with the microseconds (`1508.125`, trailing
/// zeros of the fraction left out, `.0` when there are none: the JSON `time`, the log's `t=`),
/// or with a fixed number of decimals (`1508.125000`: `EVROUTE_TIME`, recordings; the traces'
/// and the monitor's times since the first line).
public enum TimestampText {
    /// The most bytes a time's text takes.
    public static let maximumLength = JSONText.maximumFixedLength

    /// `1508.125`, `100.0`, `-0.000001` at `p`; returns the length.
    @inlinable
    public static func seconds(_ t: Timestamp, to p: UnsafeMutablePointer<UInt8>) -> Int {
        JSONText.writeFixed(t.microseconds, decimals: 6, to: p)
    }

    /// `1508.125000` (`decimals` 6), `1508.125` (3: the microseconds truncated to milliseconds).
    /// A time before zero keeps its whole seconds' sign: `-1.500000`, but `0.500000` for
    /// -0.5 s (as `Timestamp.description` always wrote it).
    public static func fixed(_ t: Timestamp, decimals: Int = 6) -> String {
        var scale: Int64 = 1
        for _ in decimals..<6 { scale *= 10 }
        let units = t.microseconds / scale
        var unit: Int64 = 1
        for _ in 0..<decimals { unit *= 10 }
        let whole = String(units / unit), fraction = String(abs(units % unit))
        return whole + "." + String(repeating: "0", count: decimals - fraction.count) + fraction
    }
}
