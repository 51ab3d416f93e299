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

extension PendingAnswers {
    /// Takes one answer line from a helper or client: blank lines are ignored, a line that is
    /// not an answer is counted (`garbage_lines`) and reported through `garbage` (its first 120
    /// bytes, escaped: ``Log/escaped(_:)-(some Collection<UInt8>)``), an answer to no pending event is counted late (`late_answers`). A valid answer
    /// settles its event: counted handled, or declined — then the event walks on. Returns
    /// whether an event was settled.
    @discardableResult
    func settle(_ line: ArraySlice<UInt8>, accepting: Bool = true, statistics: inout PluginStatistics,
                context: PluginContext, garbage: (String) -> Void) -> Bool {
        if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return false }
        guard let a = PluginAnswer.parse(line) else {
            statistics[counter: .garbageLines] += 1
            garbage(Log.escaped(line.prefix(120)))
            return false
        }
        guard accepting, let entry = resolve(a.id) else {
            statistics[counter: .lateAnswers] += 1
            return false
        }
        if a.handled {
            statistics.handled += 1
        } else {
            statistics.declined += 1
            context.continueRouting(entry.event, entry.handler)
        }
        return true
    }
}
