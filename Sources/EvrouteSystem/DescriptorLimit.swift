#if canImport(Glibc)
import Glibc
#endif

/// The process's limit on open descriptors (`RLIMIT_NOFILE`).
public enum DescriptorLimit {
    /// The soft and hard limits now (`RLIM_INFINITY` reads as `UInt64.max`).
    public static var current: (soft: UInt64, hard: UInt64) {
        var limit = rlimit()
        guard getrlimit(RLIMIT_NOFILE_VALUE, &limit) == 0 else { return (0, 0) }
        return (UInt64(limit.rlim_cur), UInt64(limit.rlim_max))
    }

    /// Raises the soft limit to the hard one (the daemon, at start: each control or plugin client
    /// is a descriptor). Returns the soft limit before and after (unchanged when it could not).
    @discardableResult
    public static func raiseSoftToHard() -> (before: UInt64, after: UInt64) {
        var limit = rlimit()
        guard getrlimit(RLIMIT_NOFILE_VALUE, &limit) == 0 else { return (0, 0) }
        let before = UInt64(limit.rlim_cur)
        guard limit.rlim_cur < limit.rlim_max else { return (before, before) }
        limit.rlim_cur = limit.rlim_max
        guard setrlimit(RLIMIT_NOFILE_VALUE, &limit) == 0 else { return (before, before) }
        return (before, UInt64(limit.rlim_max))
    }

    private static var RLIMIT_NOFILE_VALUE: __rlimit_resource_t { __rlimit_resource_t(RLIMIT_NOFILE.rawValue) }
}
