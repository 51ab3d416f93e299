import EvrouteCore
#if canImport(Glibc)
import Glibc
#endif

/// `evroute record DEVICE [-o FILE]`: opens an evdev node and streams it in evemu format
/// (``EvemuWriter``: `# EVEMU 1.3` header with `N: I: P: B: A:` lines, then one
/// `E: sec.usec type code value` line per event), as `evemu-record` does.
///
/// Timestamps are `CLOCK_MONOTONIC`, made relative to the first recorded event (the first
/// line reads `E: 0.000000 …`) unless ``relativeTimestamps`` is off. Each batch is written
/// with `write(2)` as it arrives (no buffering), so a recording cut short by Ctrl-C is
/// complete up to its last line. A kernel overflow shows up as a `SYN_DROPPED` line followed
/// by libevdev's sync events (see ``EvdevDevice/readAvailable(into:)``).
public final class Recorder {
    /// Why ``run(until:)`` returned.
    public enum Ending: Sendable {
        /// `shouldStop` returned true.
        case stopped
        /// The device went away (`ENODEV`) or could no longer be read.
        case deviceGone(InputSystemError)
    }

    /// The device being recorded.
    public let device: EvdevDevice
    /// Write times relative to the first event (as evemu-record does); default true.
    public var relativeTimestamps = true

    private let output: Int32
    private let outputPath: String?
    private let ownsOutput: Bool
    private var firstEventTime: Timestamp?

    /// Opens `devicePath` (optionally grabbing it, so nothing else sees its events while
    /// recording) and the output: `outputPath` created/truncated with mode 0644, or
    /// standard output when nil.
    /// - Throws: ``InputSystemError`` naming the device or the output path.
    public init(devicePath: String, outputPath: String? = nil, grab: Bool = false) throws(InputSystemError) {
        device = try EvdevDevice(path: devicePath, grab: grab)
        if let outputPath {
            do throws(InputSystemError) {
                output = try SystemCall.open(outputPath, flags: O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode: 0o644)
            } catch {
                device.close()
                throw error
            }
            ownsOutput = true
        } else {
            output = STDOUT_FILENO
            ownsOutput = false
        }
        self.outputPath = outputPath
    }

    deinit {
        device.close()
        if ownsOutput { try? SystemCall.close(output, path: outputPath) }
    }

    /// Writes the description header.
    public func writeHeader() throws(InputSystemError) {
        try SystemCall.writeAll(output, EvemuWriter.header(for: device.description), path: outputPath)
    }

    /// Writes every pending event. Returns the read failure when the device is gone
    /// (events read before it are written first), nil otherwise.
    public func writeAvailableEvents() throws(InputSystemError) -> InputSystemError? {
        var events: [InputEvent] = []
        let result = device.readAvailable(into: &events)
        if !events.isEmpty {
            var text = ""
            for var event in events {
                if relativeTimestamps {
                    let start = firstEventTime ?? event.time
                    firstEventTime = start
                    event.time = Timestamp(microseconds: event.time.microseconds - start.microseconds)
                }
                text += EvemuWriter.eventLine(event)
            }
            try SystemCall.writeAll(output, text, path: outputPath)
        }
        return result.failure
    }

    /// Writes the header, then events as they arrive until the device goes away or
    /// `shouldStop` returns true. Waits with `poll(2)`, waking at least every `checkInterval`
    /// milliseconds to ask `shouldStop` (e.g. a flag set by a SIGINT handler).
    public func run(checkInterval: Int32 = 250, until shouldStop: () -> Bool = { false }) throws(InputSystemError) -> Ending {
        try writeHeader()
        while !shouldStop() {
            let readable = try SystemCall.waitReadable(device.fileDescriptor, timeout: checkInterval, path: device.path)
            guard readable else { continue }
            if let failure = try writeAvailableEvents() { return .deviceGone(failure) }
        }
        return .stopped
    }
}
