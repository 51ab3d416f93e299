import EvrouteCore
import EvrouteTime

/// A recording moved onto the clock of the earliest one (``EvemuRecording/alignClocks(_:)``).
public struct ClockAlignment: Sendable, Equatable, CustomStringConvertible {
    /// The recording's path (or its device's name when it has none).
    public let recording: String
    /// Its first event's time as recorded.
    public let recordedStart: Timestamp
    /// Where it now starts: the earliest recording's first event.
    public let alignedStart: Timestamp

    /// The sentence said of it: in the daemon's log, and in the dry-run trace's header.
    public var description: String {
        "replay: \(recording) is on another clock (starts \(recordedStart.text()) s, the earliest recording "
            + "\(alignedStart.text()) s): replayed on its own clock, aligned at the start"
    }
}

extension EvemuRecording {
    /// Recordings whose first events lie further apart than this were made on different clocks
    /// (another boot's monotonic clock, or a wall clock beside a monotonic one), not one session.
    public static let separateClockGap = Timestamp.Duration(microseconds: 3600 * 1_000_000)

    /// Recordings on different clocks, each put on its own clock aligned at the earliest start:
    /// when any two first events lie more than ``separateClockGap`` apart, every recording is
    /// shifted so that it starts where the earliest one starts (its own spacing kept); otherwise
    /// they are one session on one clock and are left as recorded. Returns one alignment per
    /// shifted recording (nothing when none was), to be said with the trace.
    public static func alignClocks(_ recordings: inout [EvemuRecording]) -> [ClockAlignment] {
        let starts = recordings.map { $0.events.first?.time }
        let known = starts.compactMap { $0 }
        guard let earliest = known.min(), let latest = known.max(),
              (latest - earliest).microseconds > separateClockGap.microseconds else { return [] }
        var shifted: [ClockAlignment] = []
        for i in recordings.indices {
            guard let start = starts[i], start != earliest else { continue }
            let shift = earliest - start
            for j in recordings[i].events.indices { recordings[i].events[j].time = recordings[i].events[j].time + shift }
            shifted.append(ClockAlignment(recording: recordings[i].path ?? recordings[i].description.name,
                                          recordedStart: start, alignedStart: earliest))
        }
        return shifted
    }
}
