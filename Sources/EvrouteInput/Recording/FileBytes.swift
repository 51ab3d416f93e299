import EvrouteCore
import Glibc

/// Small file helpers over libc, so the recording layer needs no Foundation.
enum FileBytes {
    /// The whole file, or the reason it could not be read. Only a regular file (or a symlink
    /// to one) of at most `limit` bytes is read: a FIFO, a device (`/dev/zero`), a socket or a
    /// directory is refused before it is opened (a FIFO would wait for a writer, a device may
    /// never end), and a file larger than `limit` — or one that grows past it while being
    /// read — is refused without reading more. `what` names the file in messages
    /// ("a recording", "a device description").
    static func read(_ path: String, limit: Int = EvemuRecording.maximumRecordingSize,
                     what: String = "a recording") -> Result<[UInt8], Diagnostic> {
        var info = stat()
        guard stat(path, &info) == 0 else { return .failure(failure(path, "cannot open")) }
        if let problem = kindProblem(info.st_mode, what: what) { return .failure(Diagnostic(recording: path, line: 0, message: problem)) }
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
        guard fd >= 0 else { return .failure(failure(path, "cannot open")) }
        defer { close(fd) }
        // What was opened may not be what was looked at (the path may have been replaced).
        guard fstat(fd, &info) == 0 else { return .failure(failure(path, "cannot stat")) }
        if let problem = kindProblem(info.st_mode, what: what) { return .failure(Diagnostic(recording: path, line: 0, message: problem)) }
        let tooLarge = Diagnostic(recording: path, line: 0, message: "is larger than \(sizeText(limit)), the most evroute reads for \(what)")
        if Int(info.st_size) > limit { return .failure(tooLarge) }
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
            if bytes.count + count > limit { return .failure(tooLarge) }
            bytes.append(contentsOf: chunk[0..<count])
        }
        return .success(bytes)
    }

    /// Why a file of `mode` is not read, nil for a regular file.
    static func kindProblem(_ mode: mode_t, what: String) -> String? {
        switch mode & S_IFMT {
        case S_IFREG: return nil
        case S_IFDIR: return "is a directory; expected \(what) (an evemu file)"
        case S_IFIFO: return "is a FIFO (named pipe), not a regular file; expected \(what) (an evemu file)"
        case S_IFCHR: return "is a character device, not a regular file; expected \(what) (an evemu file)"
        case S_IFBLK: return "is a block device, not a regular file; expected \(what) (an evemu file)"
        case S_IFSOCK: return "is a socket, not a regular file; expected \(what) (an evemu file)"
        default: return "is not a regular file; expected \(what) (an evemu file)"
        }
    }

    /// `256 MiB (268435456 bytes)`.
    static func sizeText(_ bytes: Int) -> String {
        bytes >= 1 << 20 && bytes % (1 << 20) == 0 ? "\(bytes >> 20) MiB (\(bytes) bytes)" : "\(bytes) bytes"
    }

    /// Whether a regular file exists at `path`.
    static func isFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    private static func failure(_ path: String, _ what: String) -> Diagnostic {
        let reason = String(cString: strerror(errno))
        return Diagnostic(recording: path, line: 0, message: "\(what): \(reason)")
    }
}
