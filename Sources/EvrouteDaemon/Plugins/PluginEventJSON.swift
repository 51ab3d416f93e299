import EvrouteCore
import EvrouteJSON
import EvrouteRuntime

/// The plugins' wire format: what a `socket` client reads and a `process` helper's standard
/// input gets for each event handed to it (docs/plugins.md, docs/ui-control.md): one line, the
/// event's JSON object (docs/events.md: ``EventEncoder``'s ``EventEncoding/json`` fields, as the
/// JSON trace prints them) with `"id":N` last, the number the peer's answer names.
struct PluginEventJSON {
    /// Reused for every event (one line at a time).
    private var json = JSONWriter()

    /// The line for `event`, taken by `responder` through `handler`, numbered `id`. Lent: valid
    /// until the next call.
    mutating func line(for event: borrowing RoutedEvent, handler: HandlerBinding, responder: ResponderID, id: UInt64) -> [UInt8] {
        json.reset()
        json.beginObject()
        EventEncoder.encode(event, handledBy: responder, handler: handler, as: .json, into: &json)
        json.field("id", id)
        json.endObject()
        json.bytes.append(UInt8(ascii: "\n"))
        return json.bytes
    }
}
