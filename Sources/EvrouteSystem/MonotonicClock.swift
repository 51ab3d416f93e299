#if canImport(Glibc)
import Glibc
#endif
import EvrouteTime
import CLinux

/// CLOCK_MONOTONIC, the clock evdev timestamps use once the daemon sets EVIOCSCLOCKID.
public enum MonotonicClock {
    /// Now, in microseconds.
    public static func now() -> Timestamp {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Timestamp(microseconds: Int64(ts.tv_sec) * 1_000_000 + Int64(ts.tv_nsec) / 1000)
    }

    /// Blocks the calling thread until `deadline` (at once when it has passed); for the stop
    /// and for clients' retries, never on the event loop while it runs.
    public static func sleep(until deadline: Timestamp) {
        guard deadline.microseconds > 0 else { return }
        var ts = timespec(tv_sec: Int(deadline.microseconds / 1_000_000), tv_nsec: Int(deadline.microseconds % 1_000_000) * 1000)
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nil) == EINTR {}
    }
}

extension MonotonicClock {
    /// The wall clock (CLOCK_REALTIME) now, in seconds since the epoch: only to turn a monotonic
    /// time into the Unix time Prometheus's `*_timestamp_seconds` want (``unixSeconds(of:)``).
    public static func unixSecondsNow() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// A monotonic time as Unix seconds (the wall clock now, less how long ago it was).
    public static func unixSeconds(of time: Timestamp) -> Double {
        unixSecondsNow() - Double((now() - time).microseconds) / 1e6
    }
}
