#if canImport(Glibc)
import Glibc
#endif

/// Reads a non-blocking descriptor and splits what it reads into lines. A line longer than
/// `maximumLineLength` is refused whole: none of it goes to `onLine`; its first
/// `maximumLineLength` bytes go to `onOverlong` (to log it, or to read a request's tag from it),
/// and the rest, up to the next newline, is discarded. Each `readAvailable()` reads at most `budget` bytes, so a
/// flooding writer cannot starve the rest of the loop (the loop is level-triggered and calls
/// again).
public final class LineReader {
    public enum Outcome { case more, endOfFile }

    public let fd: FileDescriptor
    public let maximumLineLength: Int
    private var buffer: [UInt8] = []
    private var discarding = false
    /// Set by ``stop()``: nothing more is read or delivered.
    private var stopped = false
    /// Bytes read so far.
    public private(set) var totalBytes = 0
    /// A complete line, without its newline (nor a trailing `\r`).
    public var onLine: (ArraySlice<UInt8>) -> Void = { _ in }
    /// A line was longer than `maximumLineLength`: its first `maximumLineLength` bytes (it never
    /// goes to `onLine`). Called once per such line, as soon as it is known to be too long.
    public var onOverlong: (ArraySlice<UInt8>) -> Void = { _ in }

    public init(fd: FileDescriptor, maximumLineLength: Int = 64 * 1024) {
        self.fd = fd
        self.maximumLineLength = maximumLineLength
    }

    /// Reads nothing more and delivers nothing more, from now on — also in a ``readAvailable(budget:)``
    /// under way, whose line handler called it. Call it before closing the descriptor: a handler
    /// may close it (a peer dropped while it answers) and a descriptor opened meanwhile may get
    /// its number; a reader that went on would read that one.
    public func stop() {
        stopped = true
        buffer.removeAll()
    }

    /// Reads what is there (up to `budget` bytes). At end of file, a last unterminated line is
    /// delivered too. After ``stop()``: `.endOfFile`, with nothing read.
    public func readAvailable(budget: Int = 256 * 1024) -> Outcome {
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        var used = 0
        while used < budget {
            if stopped { return .endOfFile }
            let n = chunk.withUnsafeMutableBytes { read(fd.rawValue, $0.baseAddress, $0.count) }
            if n > 0 {
                used += n
                totalBytes += n
                split(chunk[0..<n])
                continue
            }
            if n == 0 {
                if !buffer.isEmpty && !discarding { deliver(buffer[...]) }
                buffer.removeAll()
                return .endOfFile
            }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { return .more }
            return .endOfFile
        }
        return .more
    }

    private func split(_ bytes: ArraySlice<UInt8>) {
        var start = bytes.startIndex
        while !stopped, let nl = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) {
            if discarding {
                discarding = false
            } else if buffer.isEmpty {
                deliver(bytes[start..<nl])
            } else {
                buffer.append(contentsOf: bytes[start..<nl])
                deliver(buffer[...])
                buffer.removeAll(keepingCapacity: true)
            }
            start = nl + 1
        }
        guard start < bytes.endIndex, !discarding, !stopped else { return }
        buffer.append(contentsOf: bytes[start...])
        if buffer.count > maximumLineLength {
            let prefix = buffer[0..<maximumLineLength]
            discarding = true
            onOverlong(prefix)
            buffer.removeAll(keepingCapacity: false)
        }
    }

    private func deliver(_ line: ArraySlice<UInt8>) {
        var line = line
        if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
        if line.count > maximumLineLength {
            onOverlong(line.prefix(maximumLineLength))
            return
        }
        onLine(line)
    }
}
