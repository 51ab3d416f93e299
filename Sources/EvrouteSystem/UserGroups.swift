#if canImport(Glibc)
import Glibc
#endif

/// Group membership from the user database (`/etc/passwd`, `/etc/group`, or whatever NSS is
/// configured): what `id -G NAME` prints for a user.
public enum UserGroups {
    /// The groups of the user `uid`: `primaryGroup` first, then every group the database lists
    /// the user in (`getpwuid_r` for the name, `getgrouplist`). nil when `uid` has no entry.
    ///
    /// This is the database's view, not a running process's: a process that dropped or was
    /// given other groups is not seen here (``LineConnection/peerGroups`` is).
    public static func of(uid: uid_t, primaryGroup: gid_t) -> [gid_t]? {
        guard let name = userName(uid) else { return nil }
        var count: Int32 = 32
        while true {
            var groups = [gid_t](repeating: 0, count: Int(count))
            var n = count
            if getgrouplist(name, primaryGroup, &groups, &n) >= 0 {
                return Array(groups.prefix(Int(n)))
            }
            // -1: too small; `n` is how many there are (glibc), or grow when it did not say.
            guard count < 65536 else { return nil }
            count = n > count ? n : count * 2
        }
    }

    /// The login name of `uid` (`getpwuid_r`), or nil.
    public static func userName(_ uid: uid_t) -> String? {
        var size = 1024
        while size <= 1 << 20 {
            var buffer = [CChar](repeating: 0, count: size)
            let (code, name) = buffer.withUnsafeMutableBufferPointer { storage -> (Int32, String?) in
                var entry = passwd()
                var result: UnsafeMutablePointer<passwd>?
                let r = getpwuid_r(uid, &entry, storage.baseAddress!, storage.count, &result)
                guard r == 0, result != nil, let name = entry.pw_name else { return (r, nil) }
                return (0, String(cString: name))
            }
            if code == ERANGE { size *= 4; continue }
            return name
        }
        return nil
    }
}
