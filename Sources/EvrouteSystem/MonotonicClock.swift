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
}
