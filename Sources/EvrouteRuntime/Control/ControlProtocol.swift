import EvrouteJSON

/// The control protocol's names, spelled once (docs/ui-control.md, docs/daemon.md "Control
/// socket"): its commands and the members of its requests and answers. The server side (the
/// control server, ``RuntimeControl``, the daemon's and the dry-run's answers, plugin peers'
/// commands), the command line's client (`evroute status`, `reload`, `ctl …`) and the renderers
/// of `status` and `ctl state` all use these, so a name cannot differ between them.
///
/// A request is `{"command": NAME, …members}`; every answer carries `"ok"`, a refusal also
/// `"error"` (and `"errors"`, one message each, for a config or `regions` document with errors);
/// a request's `"tag"`, when given, is echoed in its answer.
public enum ControlProtocol {
    /// What a request asks for: its `"command"`.
    public enum Command: String, Sendable, CaseIterable {
        /// The daemon's own.
        case status, reload, replay
        /// The layout commands (``RuntimeControl``), served on the control socket and on plugin
        /// connections alike.
        case present, dismiss, focus, hide, show, disable, enable, frame, regions, action, state

        /// The commands ``RuntimeControl`` answers.
        public static let layoutCommands: [Command] = [.present, .dismiss, .focus, .hide, .show, .disable, .enable,
                                                       .frame, .regions, .action, .state]
    }

    /// Members every request or answer may have.
    public static let command = "command", tag = "tag", ok = "ok", error = "error", errors = "errors"
    /// An answer's mark that the daemon could not take the client just then (try again).
    public static let busy = "busy"

    /// The members of the layout commands' requests.
    public enum Request {
        public static let screen = "screen", display = "display", resign = "resign", region = "region", frame = "frame",
                          file = "file", yaml = "yaml", regions = "regions", name = "name", from = "from"
    }

    /// The members of the `state` answer (`ctl state`); `changed_regions` is part of `status` too.
    public enum State {
        public static let displays = "displays", screens = "screens", changedRegions = "changed_regions"
        /// A display's and a screen's.
        public static let name = "name", stack = "stack", activeScreen = "active_screen",
                          firstResponder = "first_responder", display = "display"
        /// A changed region's.
        public static let region = "region", hidden = "hidden", interactive = "interactive", frame = "frame",
                          children = "children"
    }

    /// The members of the `status` answer (`evroute status`).
    public enum Status {
        public static let version = "version", pid = "pid", uptime = "uptime", startupSeconds = "startup_seconds",
                          config = "config", layout = "layout", reloads = "reloads", reloading = "reloading",
                          failedReloads = "failed_reloads", lastReloadErrors = "last_reload_errors", input = "input",
                          devices = "devices", touches = "touches", displays = "displays", plugins = "plugins",
                          events = "events", loop = "loop", rssKilobytes = "rss_kb", metrics = "metrics"
        /// A status request's `"format": "prometheus"` asks for the metrics page instead
        /// (the same text as the metrics: file), answered as `{"ok":true,"prometheus":"…text…"}`.
        public static let format = "format", prometheus = "prometheus"

        /// `layout`: the running layout's size.
        public enum Layout {
            public static let displays = "displays", screens = "screens", regions = "regions", handlers = "handlers",
                              deviceRules = "device_rules"
        }
        /// One of `devices`.
        public enum Device {
            public static let id = "id", name = "name", rule = "rule", kind = "kind", display = "display", node = "node",
                              grabbed = "grabbed", source = "source"
        }
        /// One of `touches`.
        public enum Touch {
            public static let id = "id", device = "device", deviceID = "device_id", region = "region", phase = "phase",
                              x = "x", y = "y", currentLayout = "current_layout"
        }
        /// One of `displays`.
        public enum Display {
            public static let name = "name", width = "width", height = "height", activeScreen = "active_screen",
                              presentationStack = "presentation_stack", firstResponder = "first_responder"
            /// A display with `idle:`: `idle` or `active`, and since when (event time, seconds).
            public static let activity = "activity", activitySince = "activity_since"
        }
        /// One of `plugins`.
        public enum Plugin {
            public static let name = "name", type = "type", delivered = "delivered", handled = "handled",
                              declined = "declined", timedOut = "timed_out", dropped = "dropped", failures = "failures",
                              restarts = "restarts", lastError = "last_error", details = "details"
        }
        /// `events`: the counters.
        public enum Events {
            public static let input = "input", touch = "touch", key = "key", text = "text", motion = "motion",
                              action = "action", gesture = "gesture", handled = "handled", unhandled = "unhandled",
                              devicesAdded = "devices_added", devicesRemoved = "devices_removed",
                              touchesCancelledByReload = "touches_cancelled_by_reload", regionChanges = "region_changes",
                              touchesCancelledByChanges = "touches_cancelled_by_changes",
                              contactsDropped = "contacts_dropped"
        }
        /// One of `filtered`: what a device rule's filters dropped or cancelled.
        public enum Filtered {
            public static let device = "device", filter = "filter", count = "count"
        }
        /// `metrics`: the `metrics:` block's text file (null without the block) and its last
        /// write: `pending` (none yet), `ok` or `failed` (`last_error` says why).
        public enum Metrics {
            public static let textfile = "textfile", intervalSeconds = "interval_s", lastWrite = "last_write",
                              lastError = "last_error", failures = "failures"
        }
        /// `loop`.
        public enum Loop {
            public static let wakeups = "wakeups", controlRequests = "control_requests"
        }
        /// `filtered`: one object per device rule and filter (``Filtered``).
        public static let filtered = "filtered"
    }

    // MARK: Requests and answers

    /// `{"command": command, …members}`.
    public static func request(_ command: Command, _ members: [(String, JSONValue)] = []) -> JSONValue {
        .object([(Self.command, .string(command.rawValue))] + members)
    }

    /// A request's command name, when it has one.
    public static func commandName(of request: JSONValue) -> String? { request[command]?.stringValue }

    /// `{"ok":true, …members}`.
    public static func success(_ members: [(String, JSONValue)] = []) -> JSONValue {
        .object([(ok, .bool(true))] + members)
    }

    /// `{"ok":false,"error":message}`, and `"errors"` when there are any.
    public static func failure(_ message: String, errors: [String] = []) -> JSONValue {
        var members: [(String, JSONValue)] = [(ok, .bool(false)), (error, .string(message))]
        if !errors.isEmpty { members.append((Self.errors, .array(errors.map { .string($0) }))) }
        return .object(members)
    }

    /// `answer` with `request`'s `"tag"` appended, when the request has one.
    public static func tagged(_ answer: JSONValue, from request: JSONValue) -> JSONValue {
        tagged(answer, tag: request[tag])
    }

    /// `answer` with `"tag": tag` appended, when there is one.
    public static func tagged(_ answer: JSONValue, tag: JSONValue?) -> JSONValue {
        guard let tag, case .object(var members) = answer else { return answer }
        members.append((Self.tag, tag))
        return .object(members)
    }

    /// Whether an answer says the request was done.
    public static func succeeded(_ answer: JSONValue) -> Bool { answer[ok]?.boolValue == true }
}
