import EvrouteConfig
import EvrouteCore
import EvrouteJSON

/// docs/ui-control.md on a routing session: the commands a UI sends to drive the responder chain at run
/// time (`present`, `dismiss`, `focus`, `hide`, `show`, `disable`, `enable`, `frame`, `regions`,
/// `action`, `state`), from `evroute ctl`, the control socket, and `socket`/`process` plugin
/// peers alike. A request becomes a ``LayoutChange`` the router validates and applies
/// atomically between events; a bad one changes nothing and its answer says why.
///
/// Requests and answers are JSON objects: `{"command":"present","screen":"confirm"}` →
/// `{"ok":true}` or `{"ok":false,"error":"…"}` (a `regions` file with errors also lists them,
/// each `file:line:col: error: …`, under `"errors"`). A request's `"tag"`, when given, is echoed
/// in its answer, so a peer that also receives events can match answers to requests.
public final class RuntimeControl {
    /// The commands this answers.
    public static let commands: Set<String> = ["present", "dismiss", "focus", "hide", "show", "disable", "enable",
                                               "frame", "regions", "action", "state"]

    private let session: RoutingSession
    /// The time a change is made at (the router's "now" between events).
    private let now: () -> Timestamp

    public init(session: RoutingSession, now: @escaping () -> Timestamp) {
        self.session = session
        self.now = now
    }

    /// The answer to `request` when it is one of ``commands``; nil for any other request (the
    /// caller's own: `status`, `reload`, `replay`).
    public func answer(_ request: JSONValue) -> JSONValue? {
        guard let command = request["command"]?.stringValue, Self.commands.contains(command) else { return nil }
        var answer: JSONValue
        do {
            if command == "state" {
                answer = state()
            } else {
                try session.router.apply(try change(command, request), time: now())
                answer = .object([("ok", .bool(true))])
            }
        } catch let failure as RequestFailure {
            answer = failure.answer
        } catch {
            answer = .object([("ok", .bool(false)), ("error", .string("\(error)"))])
        }
        if let tag = request["tag"], case .object(var members) = answer {
            members.append(("tag", tag))
            answer = .object(members)
        }
        return answer
    }

    /// `{"ok":false,"error":message}`, with the request's `"tag"` when it has one.
    public static func refusal(_ message: String, to request: JSONValue) -> JSONValue {
        var members: [(String, JSONValue)] = [("ok", .bool(false)), ("error", .string(message))]
        if let tag = request["tag"] { members.append(("tag", tag)) }
        return .object(members)
    }

    /// A request that cannot be turned into a change.
    struct RequestFailure: Error {
        var message: String
        var errors: [String] = []
        var answer: JSONValue {
            var members: [(String, JSONValue)] = [("ok", .bool(false)), ("error", .string(message))]
            if !errors.isEmpty { members.append(("errors", .array(errors.map { .string($0) }))) }
            return .object(members)
        }
    }

    private func string(_ request: JSONValue, _ key: String, _ command: String) throws(RequestFailure) -> String {
        guard let value = request[key]?.stringValue, !value.isEmpty else {
            throw RequestFailure(message: "\(command): \"\(key)\" (a non-empty string) is required")
        }
        return value
    }

    private func optionalString(_ request: JSONValue, _ key: String, _ command: String) throws(RequestFailure) -> String? {
        guard let value = request[key], value != .null else { return nil }
        guard let text = value.stringValue else { throw RequestFailure(message: "\(command): \"\(key)\" must be a string") }
        return text
    }

    /// The change a request asks for.
    func change(_ command: String, _ request: JSONValue) throws(RequestFailure) -> LayoutChange {
        switch command {
        case "present": return .present(screen: try string(request, "screen", command))
        case "dismiss": return .dismiss(display: try optionalString(request, "display", command))
        case "focus":
            if request["resign"]?.boolValue == true { return .resign(display: try optionalString(request, "display", command)) }
            return .focus(region: try string(request, "region", command))
        case "hide": return .hide(region: try string(request, "region", command))
        case "show": return .show(region: try string(request, "region", command))
        case "disable": return .disable(region: try string(request, "region", command))
        case "enable": return .enable(region: try string(request, "region", command))
        case "frame":
            let region = try string(request, "region", command)
            guard let numbers = request["frame"]?.arrayValue?.compactMap(\.doubleValue), numbers.count == 4 else {
                throw RequestFailure(message: "frame: \"frame\" must be [x, y, width, height] (four numbers)")
            }
            return .frame(region: region, Rect(x: numbers[0], y: numbers[1], width: numbers[2], height: numbers[3]))
        case "regions":
            let region = try string(request, "region", command)
            let file = try optionalString(request, "file", command) ?? "<regions>"
            guard let text = request["yaml"]?.stringValue ?? request["regions"].map(\.serialized) else {
                throw RequestFailure(message: "regions: give the new children as \"yaml\" (YAML or JSON text) or \"regions\" (a JSON array)")
            }
            do {
                return .children(region: region, try ConfigLoader.parseRegions(yaml: text, file: file))
            } catch {
                throw RequestFailure(message: "regions: \(file) has errors; nothing changed", errors: error.errors.map(\.description))
            }
        case "action":
            return .action(name: try string(request, "name", command), from: try optionalString(request, "from", command))
        default:
            throw RequestFailure(message: "unknown command \"\(command)\"")
        }
    }

    /// `state`: each display's presentation stack and first responder, each screen's first
    /// responder, and the regions changed since the config was loaded.
    public func state() -> JSONValue {
        let state = session.router.state
        let displays: [JSONValue] = state.displays.map { d in
            .object([("name", .string(d.name)), ("stack", .array(d.stack.map { .string($0) })),
                     ("active_screen", .string(d.stack.last)), ("first_responder", .string(d.firstResponder))])
        }
        let screens: [JSONValue] = state.screens.map { s in
            .object([("name", .string(s.name)), ("display", .string(s.display)), ("first_responder", .string(s.firstResponder))])
        }
        return .object([("ok", .bool(true)), ("displays", .array(displays)), ("screens", .array(screens)),
                        ("changed_regions", .array(Self.changedRegions(state.changedRegions)))])
    }

    /// The changed regions as JSON (also part of `status`).
    public static func changedRegions(_ overrides: [RegionOverride]) -> [JSONValue] {
        overrides.map { o in
            var members: [(String, JSONValue)] = [("region", .string(o.path))]
            if let hidden = o.hidden { members.append(("hidden", .bool(hidden))) }
            if let interactive = o.interactive { members.append(("interactive", .bool(interactive))) }
            if let f = o.frame { members.append(("frame", .array([.number(f.minX), .number(f.minY), .number(f.width), .number(f.height)]))) }
            if o.childrenReplaced { members.append(("children", .bool(true))) }
            return .object(members)
        }
    }
}
