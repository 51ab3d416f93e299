/// A point in event time, in microseconds: the kernel's `input_event` time (or a recording's), on
/// CLOCK_MONOTONIC once the input source sets EVIOCSCLOCKID — the clock the system layer's loop
/// and `MonotonicClock` keep too. The routing core never reads a clock; all of its time comes
/// from these.
public struct Timestamp: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var microseconds: Int64

    public init(microseconds: Int64) { self.microseconds = microseconds }

    public init(seconds: Int64, microseconds: Int64) {
        self.microseconds = seconds &* 1_000_000 &+ microseconds
    }

    public static let zero = Timestamp(microseconds: 0)

    /// Seconds as a floating-point number.
    public var seconds: Double { Double(microseconds) / 1_000_000 }

    public static func < (a: Timestamp, b: Timestamp) -> Bool { a.microseconds < b.microseconds }

    public static func + (t: Timestamp, d: Duration) -> Timestamp {
        Timestamp(microseconds: t.microseconds &+ d.microseconds)
    }

    public static func - (a: Timestamp, b: Timestamp) -> Duration {
        Duration(microseconds: a.microseconds &- b.microseconds)
    }

    /// `sec.usec`, as evemu prints it: ``text(decimals:)`` with 6.
    public var description: String { text() }

    /// Seconds with a fixed number of decimals (0...6; the microseconds beyond them truncated):
    /// `1508.125000` (6: evemu, `EVROUTE_TIME`, the text trace's times since its first line),
    /// `1508.125` (3: the monitor's). A time before zero keeps its whole seconds' sign
    /// (`-1.500000`; `0.500000` for -0.5 s). The fixed form of a time's text; the trimmed form
    /// (`1508.125`, `100.0`: JSON, the log) is the runtime's `TimestampText`.
    public func text(decimals: Int = 6) -> String {
        var scale: Int64 = 1
        for _ in decimals..<6 { scale *= 10 }
        var unit: Int64 = 1
        for _ in 0..<decimals { unit *= 10 }
        let units = microseconds / scale
        let whole = String(units / unit), fraction = String(abs(units % unit))
        return decimals == 0 ? whole : whole + "." + String(repeating: "0", count: decimals - fraction.count) + fraction
    }

    /// A span of event time.
    public struct Duration: Hashable, Comparable, Sendable {
        public var microseconds: Int64
        public init(microseconds: Int64) { self.microseconds = microseconds }
        /// `s` seconds to the microsecond; never traps: NaN is 0 and a value beyond ±2^62 µs
        /// (146,000 years) is that (configs bound durations far below, docs/config.md "Limits").
        public static func seconds(_ s: Double) -> Duration {
            let us = (s * 1_000_000).rounded()
            let bound = Double(Int64(1) << 62)
            guard us == us else { return Duration(microseconds: 0) }
            return Duration(microseconds: Int64(max(-bound, min(bound, us))))
        }
        public static func milliseconds(_ ms: Int64) -> Duration { Duration(microseconds: ms * 1000) }
        public var seconds: Double { Double(microseconds) / 1_000_000 }
        public static func < (a: Duration, b: Duration) -> Bool { a.microseconds < b.microseconds }
    }
}
