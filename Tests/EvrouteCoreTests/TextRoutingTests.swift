import Testing
import EvrouteChecks
@testable import EvrouteCore

/// Text events (docs/config.md#text): from the first responder up the chain, like a key going down; taken
/// by `text` and `any` handlers only.
@Suite("Text routing")
struct TextRoutingTests {
    func layout() throws -> Layout {
        try makeLayout([screen("home", region("root", 0, 0, 1000, 1000, [
            region("search", 0, 0, 500, 100, [region("icon", 0, 0, 50, 50)],
                   handlers: [handler("q", .text)]) { $0.focusable = true },
            region("notes", 0, 100, 1000, 200, handlers: [handler("q", .key)]) { $0.focusable = true },
        ]), handlers: [handler("p", .keyNamed("KEY_ENTER"))])], fallback: [handler("log", .any)])
    }

    func text(_ r: Router, _ s: String, at ms: Int64, device: Int = 2) {
        r.handle(TextInput(device: DeviceID(device), time: Timestamp(microseconds: ms * 1000), text: s))
    }

    @Test func textStartsAtTheFirstResponder() throws {
        let (r, trace) = makeRouter(try layout())
        r.touch(0, .began, 10, 10, at: 0); r.touch(0, .ended, 10, 10, at: 50)   // focus the search field
        text(r, "4006381333931", at: 100)
        let last = try #require(trace.entries.last)
        expectEqual(last.kind, "text:4006381333931")
        expectEqual(last.region, "home/root/search")
        expectEqual(last.handledBy, "home/root/search")
        expectEqual(last.handler, "q")
        let e = try #require({ () -> RoutedEvent? in
            if case .routed(let e, _, _)? = trace.records.last { return e } else { return nil }
        }(), "not routed")
        expectEqual(e.kind, .text)
        expectEqual(e.text, "4006381333931")
        expectEqual(e.device?.ruleName, "keys")
    }

    @Test func textWalksUpTheChainPastKeyHandlers() throws {
        let (r, trace) = makeRouter(try layout())
        r.touch(0, .began, 10, 150, at: 0); r.touch(0, .ended, 10, 150, at: 50)   // focus the notes (keys only)
        text(r, "a", at: 100)
        expectEqual(trace.entries.last?.region, "home/root/notes")
        expectEqual(trace.entries.last?.handledBy, "fallback")   // `key` does not take text, `any` does
    }

    @Test func withoutFirstResponderTextStartsAtTheScreen() throws {
        let (r, trace) = makeRouter(try layout())
        text(r, "z", at: 0)
        expect(trace.entries.last?.region == nil)
        expectEqual(trace.entries.last?.handledBy, "fallback")
    }

    @Test func onlyTextAndAnyTakeText() throws {
        let l = try layout()
        let byFilter = l.handlers.map { ($0.filters, $0.takes(.text)) }
        for (filters, takes) in byFilter {
            expectEqual(takes, (filters.contains(.text) || filters.contains(.any)), "\(filters)")
        }
        expectEqual(EventFilter(parsing: "text"), .text)
        expectEqual(EventFilter.text.description, "text")
        expect(EventFilter.spellings.contains("text"))
    }
}
