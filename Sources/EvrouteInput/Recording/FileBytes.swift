import Glibc

/// Small file helpers over libc, so the recording layer needs no Foundation.
enum FileBytes {
    /// The most a recording may hold (some 3.5 million events; the shared recordings are at
    /// most 1.2 MB).
    static let recordingLimit = 256 << 20
    /// The most a description (`.desc`) may hold.
    static let descriptionLimit = 1 << 20

    /// The whole file, or the reason it could not be read: only a regular file (not a device
    /// such as `/dev/zero`, a FIFO or a directory) of at most `limit` bytes.
    static func read(_ path: String, limit: Int = recordingLimit) -> Result<[UInt8], EvemuError> {
        // O_NONBLOCK: opening a FIFO must not wait for a writer (it is refused below).
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return .failure(failure(path, "cannot open")) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return .failure(failure(path, "cannot stat")) }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            return .failure(EvemuError(path: path, line: 0, message: "is a directory"))
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            return .failure(EvemuError(path: path, line: 0, message: "is not a regular file (a device, FIFO or socket): give a recording file"))
        }
        func tooLarge() -> EvemuError {
            EvemuError(path: path, line: 0, message: "is larger than \(limit >> 20) MiB: not read (split the recording)")
        }
        if Int(info.st_size) > limit { return .failure(tooLarge()) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(max(Int(info.st_size), 0))
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                return .failure(failure(path, "cannot read"))
            }
            if count == 0 { break }
            if bytes.count + count > limit { return .failure(tooLarge()) }   // it grew while read
            bytes.append(contentsOf: chunk[0..<count])
        }
        return .success(bytes)
    }

    /// Whether a regular file exists at `path`.
    static func isFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    private static func failure(_ path: String, _ what: String) -> EvemuError {
        let reason = String(cString: strerror(errno))
        return EvemuError(path: path, line: 0, message: "\(what): \(reason)")
    }
}
