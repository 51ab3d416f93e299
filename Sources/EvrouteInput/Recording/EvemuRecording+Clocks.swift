import EvrouteCore
import EvrouteTime

extension EvemuRecording {
    /// Recordings whose first events lie further apart than this were made on different clocks
    /// (another boot's monotonic clock, or a wall clock beside a monotonic one), not one session.
    public static let separateClockGap = Timestamp.Duration(microseconds: 3600 * 1_000_000)

    /// Recordings on different clocks, each put on its own clock aligned at the earliest start:
    /// when any two first events lie more than ``separateClockGap`` apart, every recording is
    /// shifted so that it starts where the earliest one starts (its own spacing kept); otherwise
    /// they are one session on one clock and are left as recorded. Returns one note per shifted
    /// recording (nothing when none was), to be said beside the trace.
    public static func alignClocks(_ recordings: inout [EvemuRecording]) -> [String] {
        let starts = recordings.map { $0.events.first?.time }
        let known = starts.compactMap { $0 }
        guard let earliest = known.min(), let latest = known.max(),
              (latest - earliest).microseconds > separateClockGap.microseconds else { return [] }
        var notes: [String] = []
        for i in recordings.indices {
            guard let start = starts[i], start != earliest else { continue }
            let shift = earliest - start
            for j in recordings[i].events.indices { recordings[i].events[j].time = recordings[i].events[j].time + shift }
            notes.append("replay: \(recordings[i].path ?? recordings[i].description.name) is on another clock "
                         + "(starts \(start.text()) s, the earliest recording \(earliest.text()) s): "
                         + "replayed on its own clock, aligned at the start")
        }
        return notes
    }
}
