import EvrouteJSON
import EvrouteSystem

/// A plugin's answer to an event: `{"id": N, "handled": true|false}` (other fields ignored).
struct PluginAnswer: Equatable {
    var id: UInt64
    var handled: Bool

    /// Parses one answer line; nil when it is not a JSON object with a whole, non-negative
    /// `id` (below 9e15; `7.0` counts) and a boolean `handled`. Never traps, whatever the bytes.
    static func parse(_ line: ArraySlice<UInt8>) -> PluginAnswer? {
        guard let answer = try? JSONValue.parse(utf8: line), case .object = answer,
              let id = answer["id"]?.intValue, id >= 0,
              let handled = answer["handled"]?.boolValue else { return nil }
        return PluginAnswer(id: UInt64(id), handled: handled)
    }
}

/// What one answer line from a helper or client came to (``PendingAnswers/settle(_:accepting:)``).
enum Settlement {
    /// A blank line: nothing to do.
    case blank
    /// Not an answer: its first 120 bytes, to be reported (`garbage_lines`).
    case garbage(String)
    /// An answer to no pending event (`late_answers`), or answers are not accepted.
    case late
    /// The event was taken.
    case handled
    /// The event was declined: it walks on from its handler.
    case declined(PendingAnswers.Entry)
}

extension PendingAnswers {
    /// Takes one answer line from a helper or client and says what it came to (a garbage
    /// line's first 120 bytes escaped for the log: ``Log/escaped(_:)-(some Collection<UInt8>)``). It counts
    /// nothing and calls nothing: the plugin counts the outcome, then — with no access to its
    /// own state held — walks a declined event on (`continueRouting` may deliver to the same
    /// plugin again: the walk can reach another of its handlers).
    func settle(_ line: ArraySlice<UInt8>, accepting: Bool = true) -> Settlement {
        if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return .blank }
        guard let a = PluginAnswer.parse(line) else {
            return .garbage(Log.escaped(line.prefix(120)))
        }
        guard accepting, let entry = resolve(a.id) else { return .late }
        return a.handled ? .handled : .declined(entry)
    }
}

extension PluginStatistics {
    /// Counts what an answer line came to and reports a garbage line through `garbage`.
    /// Returns whether an event was settled, and the entry to walk on when it was declined:
    /// the caller walks it on once this access to its statistics has ended.
    mutating func count(_ settlement: Settlement, garbage: (String) -> Void) -> (settled: Bool, declined: PendingAnswers.Entry?) {
        switch settlement {
        case .blank: return (false, nil)
        case .garbage(let text): self[counter: .garbageLines] += 1; garbage(text); return (false, nil)
        case .late: self[counter: .lateAnswers] += 1; return (false, nil)
        case .handled: handled += 1; return (true, nil)
        case .declined(let entry): declined += 1; return (true, entry)
        }
    }
}

extension PluginMetric {
    /// `socket` with answers, `process`: events waiting for an answer.
    static let pending = PluginMetric(gauge: "pending", help: "Events waiting for an answer.")
    /// `socket`, `process`: commands a peer sent on its connection (docs/ui-control.md), each answered.
    static let commands = PluginMetric(counter: "commands", help: "Commands a peer sent on its connection, each answered.")
    /// `socket`, `process`: lines that are not an answer (or are too long).
    static let garbageLines = PluginMetric(counter: "garbage_lines", help: "Lines that are not an answer (or are too long).")
    /// `socket`, `process`: answers to no pending event (late, repeated or unknown).
    static let lateAnswers = PluginMetric(counter: "late_answers", help: "Answers to no pending event (late, repeated or unknown).")

    /// What every type whose peers answer events reports.
    static let answers: [PluginMetric] = [.pending, .commands, .garbageLines, .lateAnswers]
}
