import EvrouteCore
import EvrouteSystem
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
    /// Why ``run(in:)`` returned.
    public enum Ending: Sendable {
        /// A stop signal arrived.
        case stopped
        /// The device went away (`ENODEV`) or could no longer be read.
        case deviceGone(SystemError)
    }

    /// The device being recorded.
    public let device: EvdevDevice
    /// Write times relative to the first event (as evemu-record does); default true.
    public var relativeTimestamps = true

    private let output: FileDescriptor
    private let outputPath: String?
    private let ownsOutput: Bool
    private var firstEventTime: Timestamp?

    /// Opens `devicePath` (optionally grabbing it, so nothing else sees its events while
    /// recording) and the output: `outputPath` created/truncated with mode 0644, or
    /// standard output when nil.
    /// - Throws: ``SystemError`` naming the device or the output path.
    public init(devicePath: String, outputPath: String? = nil, grab: Bool = false) throws(SystemError) {
        device = try EvdevDevice(path: devicePath, grab: grab)
        if let outputPath {
            do throws(SystemError) {
                output = try SystemCall.open(outputPath, flags: O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode: 0o644)
            } catch {
                device.close()
                throw error
            }
            ownsOutput = true
        } else {
            output = FileDescriptor(rawValue: STDOUT_FILENO)
            ownsOutput = false
        }
        self.outputPath = outputPath
    }

    deinit {
        device.close()
        if ownsOutput { try? SystemCall.close(output, path: outputPath) }
    }

    /// Writes the description header.
    public func writeHeader() throws(SystemError) {
        try SystemCall.writeAll(output, EvemuWriter.header(for: device.description), path: outputPath)
    }

    /// Writes every pending event. Returns the read failure when the device is gone
    /// (events read before it are written first), nil otherwise.
    public func writeAvailableEvents() throws(SystemError) -> SystemError? {
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

    /// Writes the header, then events as they arrive, until the device goes away or `SIGINT` /
    /// `SIGTERM` arrives (taken through the loop's signalfd): the event loop sleeps until the
    /// device is readable, with no periodic wakeup.
    public func run(in loop: EventLoop) throws(SystemError) -> Ending {
        try writeHeader()
        var ending = Ending.stopped
        var failure: SystemError?
        try loop.handleSignals([SIGINT, SIGTERM]) { _ in loop.stop() }
        try loop.watch(device.fileDescriptor) { [unowned self] _ in
            do throws(SystemError) {
                if let gone = try writeAvailableEvents() {
                    ending = .deviceGone(gone)
                    loop.stop()
                }
            } catch {
                failure = error   // the output cannot be written
                loop.stop()
            }
        }
        loop.run()
        loop.unwatch(device.fileDescriptor)
        if let failure { throw failure }
        return ending
    }
}
