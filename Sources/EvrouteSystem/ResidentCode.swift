#if canImport(Glibc)
import Glibc
#endif
import CLinux

/// Lets go of the resident pages of this program's own code once it has started.
///
/// Starting (parsing the command line, reading the YAML config, compiling the layout, setting
/// up plugins and devices) runs code the idle daemon does not run again until the next reload;
/// the kernel's fault-around maps whole 64 KiB blocks of it, so most of the binary's code ends
/// up in the process's resident set. `madvise(MADV_DONTNEED)` on the executable's read-only code
/// mapping drops those page mappings: the pages stay in the page cache (shared, reclaimable) and
/// are mapped again, from there, when code runs. Only the `r-xp` mapping of the executable is
/// touched: it is never written (no text relocations), so nothing is lost — writable or
/// relocated mappings (data, RELRO) are left alone.
public enum ResidentCode {
    /// Drops the mappings of the executable's code pages; returns how many bytes the mapping spans
    /// (0 when it could not be found, e.g. without /proc).
    @discardableResult
    public static func release() -> Int {
        var exe = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &exe, exe.count - 1)
        guard n > 0 else { return 0 }
        let path = String(decoding: exe[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let maps = try? String(decoding: SystemCall.readFile("/proc/self/maps"), as: UTF8.self) else { return 0 }
        var released = 0
        for line in maps.split(separator: "\n") {
            // start-end perms offset dev inode path
            let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
            guard fields.count == 6, fields[1] == "r-xp",
                  fields[5].trimmingLeadingSpaces == path[...] else { continue }
            let range = fields[0].split(separator: "-")
            guard range.count == 2, let start = UInt(range[0], radix: 16), let end = UInt(range[1], radix: 16), end > start,
                  let address = UnsafeMutableRawPointer(bitPattern: start) else { continue }
            if madvise(address, Int(end - start), MADV_DONTNEED) == 0 { released += Int(end - start) }
        }
        return released
    }
}

extension ResidentCode {
    /// Gives the free pages of every malloc arena back to the kernel (`malloc_trim(0)`), after a
    /// reload: its config was read and compiled on a thread of its own, in that thread's own
    /// malloc arena, and the pages its temporary data (the YAML node tree, the spec) used stay
    /// resident when freed unless trimmed (a 4 MiB config: tens of MB). Returns whether any memory
    /// was given back.
    @discardableResult
    public static func releaseFreeHeap() -> Bool { evroute_malloc_trim() == 1 }
}

extension Substring {
    fileprivate var trimmingLeadingSpaces: Substring { drop(while: { $0 == " " }) }
}
