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
    /// The commands this answers (``ControlProtocol/Command/layoutCommands``).
    public static let commands: Set<String> = Set(ControlProtocol.Command.layoutCommands.map(\.rawValue))

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
        guard let name = ControlProtocol.commandName(of: request), Self.commands.contains(name),
              let command = ControlProtocol.Command(rawValue: name) else { return nil }
        let answer: JSONValue
        do {
            if command == .state {
                answer = state()
            } else {
                try session.router.apply(try change(command, request), time: now())
                answer = ControlProtocol.success()
            }
        } catch let failure as RequestFailure {
            answer = failure.answer
        } catch {
            answer = ControlProtocol.failure("\(error)")
        }
        return ControlProtocol.tagged(answer, from: request)
    }

    /// `{"ok":false,"error":message}`, with the request's `"tag"` when it has one.
    public static func refusal(_ message: String, to request: JSONValue) -> JSONValue {
        ControlProtocol.tagged(ControlProtocol.failure(message), from: request)
    }

    /// A request that cannot be turned into a change.
    struct RequestFailure: Error {
        var message: String
        var errors: [String] = []
        var answer: JSONValue { ControlProtocol.failure(message, errors: errors) }
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
    func change(_ command: ControlProtocol.Command, _ request: JSONValue) throws(RequestFailure) -> LayoutChange {
        typealias Key = ControlProtocol.Request
        let name = command.rawValue
        switch command {
        case .present: return .present(screen: try string(request, Key.screen, name))
        case .dismiss: return .dismiss(display: try optionalString(request, Key.display, name))
        case .focus:
            if request[Key.resign]?.boolValue == true { return .resign(display: try optionalString(request, Key.display, name)) }
            return .focus(region: try string(request, Key.region, name))
        case .hide: return .hide(region: try string(request, Key.region, name))
        case .show: return .show(region: try string(request, Key.region, name))
        case .disable: return .disable(region: try string(request, Key.region, name))
        case .enable: return .enable(region: try string(request, Key.region, name))
        case .frame:
            let region = try string(request, Key.region, name)
            guard let numbers = request[Key.frame]?.arrayValue?.compactMap(\.doubleValue), numbers.count == 4 else {
                throw RequestFailure(message: "\(name): \"\(Key.frame)\" must be [x, y, width, height] (four numbers)")
            }
            return .frame(region: region, Rect(x: numbers[0], y: numbers[1], width: numbers[2], height: numbers[3]))
        case .regions:
            let region = try string(request, Key.region, name)
            let file = try optionalString(request, Key.file, name) ?? "<regions>"
            guard let text = request[Key.yaml]?.stringValue ?? request[Key.regions].map(\.serialized) else {
                throw RequestFailure(message: "\(name): give the new children as \"\(Key.yaml)\" (YAML or JSON text) or \"\(Key.regions)\" (a JSON array)")
            }
            do {
                return .children(region: region, try ConfigLoader.parseRegions(yaml: text, file: file))
            } catch {
                throw RequestFailure(message: "\(name): \(file) has errors; nothing changed", errors: error.errors.map(\.description))
            }
        case .action:
            return .action(name: try string(request, Key.name, name), from: try optionalString(request, Key.from, name))
        case .status, .reload, .replay, .state:
            throw RequestFailure(message: "unknown command \"\(name)\"")
        }
    }

    /// `state`: each display's presentation stack and first responder, each screen's first
    /// responder, and the regions changed since the config was loaded.
    public func state() -> JSONValue {
        let state = session.router.state
        typealias Key = ControlProtocol.State
        let displays: [JSONValue] = state.displays.map { d in
            .object([(Key.name, .string(d.name)), (Key.stack, .array(d.stack.map { .string($0) })),
                     (Key.activeScreen, .string(d.stack.last)), (Key.firstResponder, .string(d.firstResponder))])
        }
        let screens: [JSONValue] = state.screens.map { s in
            .object([(Key.name, .string(s.name)), (Key.display, .string(s.display)), (Key.firstResponder, .string(s.firstResponder))])
        }
        return ControlProtocol.success([(Key.displays, .array(displays)), (Key.screens, .array(screens)),
                                        (Key.changedRegions, .array(Self.changedRegions(state.changedRegions)))])
    }

    /// The changed regions as JSON (also part of `status`).
    public static func changedRegions(_ overrides: [RegionOverride]) -> [JSONValue] {
        typealias Key = ControlProtocol.State
        return overrides.map { o in
            var members: [(String, JSONValue)] = [(Key.region, .string(o.path))]
            if let hidden = o.hidden { members.append((Key.hidden, .bool(hidden))) }
            if let interactive = o.interactive { members.append((Key.interactive, .bool(interactive))) }
            if let f = o.frame { members.append((Key.frame, .array([.number(f.minX), .number(f.minY), .number(f.width), .number(f.height)]))) }
            if o.childrenReplaced { members.append((Key.children, .bool(true))) }
            return .object(members)
        }
    }
}
