import EvrouteCore
import EvrouteJSON
import EvrouteRuntime

/// The plugins' wire format: what a `socket` client reads and a `process` helper's standard
/// input gets for each event handed to it (docs/plugins.md, docs/ui-control.md): one line, the
/// event's JSON object (docs/events.md: ``EventEncoder``'s ``EventEncoding/json`` fields, as the
/// JSON trace prints them) with `"id":N` last, the number the peer's answer names.
enum PluginEventJSON {
    private static let idKey = JSONWriter.commaQuoted("id")

    /// Appends the line for `event`, taken by `responder` through `handler`, numbered `id`, to
    /// `json` (after the lines already there: a plugin writes a frame's lines straight into the
    /// buffer they leave in).
    @inline(__always)
    static func appendLine(for event: borrowing RoutedEvent, handler: HandlerBinding, responder: ResponderID, id: UInt64,
                           to json: inout JSONWriter) {
        json.combiningWrites { json in
            json.beginObject()
            EventEncoder.encode(event, handledBy: responder, handler: handler, as: .json, into: &json)
            json.field(commaQuoted: idKey, integer: id)
            json.endObject()
            json.endLine()
        }
    }

    /// A plugin's lines of a frame (``json``), written with the layout's names and the device's
    /// encoded once (``EventFragments``), not per line: the same bytes as ``appendLine(for:handler:responder:id:to:)``.
    struct Lines {
        /// The lines written so far.
        var json: JSONWriter
        /// The names' text, for the layout of the last line (and the one before it).
        var fragments = EventFragments<JSONWriter>()

        init(capacity: Int) { json = JSONWriter(capacity: capacity) }

        /// Appends the line for `event`, taken by `responder` through `handler` (of the event's
        /// layout), numbered `id`.
        @inline(__always)
        mutating func append(_ event: borrowing RoutedEvent, handler: HandlerBinding, responder: ResponderID, id: UInt64) {
            json.combiningWrites(with: &fragments) { json, fragments in
                json.beginObject()
                EventEncoder.encode(event, handledBy: responder, handler: handler, into: &json, fragments: &fragments)
                json.member("id", integer: id)
                json.endObject()
                json.endLine()
            }
        }
    }
}
