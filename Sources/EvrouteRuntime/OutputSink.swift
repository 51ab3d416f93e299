#if canImport(Glibc)
import Glibc
#endif
import EvrouteSystem

/// Where trace lines go.
public protocol OutputSink: AnyObject {
    func write(_ bytes: [UInt8])
    func flush()
    /// Whether written bytes wait for ``flush()``.
    var hasPending: Bool { get }
}

extension OutputSink {
    public var hasPending: Bool { false }
}

/// Buffers output to a file descriptor and writes it in large chunks (one write(2) per 64 KiB,
/// or at `flush()`). Follow mode flushes every line, for a live trace.
public final class FileDescriptorSink: OutputSink {
    public let fd: Int32
    public var lineBuffered: Bool
    private var buffer: [UInt8] = []

    public init(fd: Int32, lineBuffered: Bool = false) {
        self.fd = fd
        self.lineBuffered = lineBuffered
        buffer.reserveCapacity(1 << 16)
    }

    public var hasPending: Bool { !buffer.isEmpty }

    public func write(_ bytes: [UInt8]) {
        buffer.append(contentsOf: bytes)
        if lineBuffered || buffer.count >= 1 << 16 { flush() }
    }

    public func flush() {
        // A descriptor left non-blocking by whoever opened it is waited for (poll), not spun on;
        // a reader that went away (EPIPE) drops the output and routing goes on.
        _ = buffer.withUnsafeBytes { p in try? SystemCall.writeAll(FileDescriptor(rawValue: fd), p) }
        buffer.removeAll(keepingCapacity: true)
    }

    deinit { flush() }
}

/// Collects output in memory (tests, benchmarks).
public final class MemorySink: OutputSink {
    public private(set) var bytes: [UInt8] = []
    public init() {}
    public func write(_ b: [UInt8]) { bytes.append(contentsOf: b) }
    public func flush() {}
    /// The output as text lines.
    public var lines: [String] { String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init) }
}
