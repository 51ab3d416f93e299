import Glibc

/// Small file helpers over libc, so the recording layer needs no Foundation.
enum FileBytes {
    /// The whole file, or the reason it could not be read.
    static func read(_ path: String) -> Result<[UInt8], EvemuError> {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return .failure(failure(path, "cannot open")) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return .failure(failure(path, "cannot stat")) }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            return .failure(EvemuError(path: path, line: 0, message: "is a directory"))
        }
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
