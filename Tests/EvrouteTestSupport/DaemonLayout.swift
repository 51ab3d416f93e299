/// A layout for a test that runs the daemon (or a dry-run) on one display, as YAML text made
/// from parts: the one place the common head of those layouts is spelt. Plain strings in, YAML
/// text out (no YAML library); write it where the test wants it (`scratch.write("evroute.yaml", …)`).
///
/// ```swift
/// DaemonLayout.yaml(keyboard: "", plugins: ["{ name: ui, type: socket, path: \(socket) }"], screens: """
///     - name: home
///       root: { name: root, frame: [0, 0, 1280, 800], handlers: [{ plugin: ui, on: [touch] }] }
///     """, blocks: [DaemonLayout.logFallback])
/// ```
/// gives
/// ```yaml
/// displays:
///   - { name: main, size: [1280, 800] }
/// devices:
///   - { name: touch, match: { kind: touchscreen }, display: main }
///   - { name: keys, match: { kind: keyboard }, display: main }
/// plugins:
///   - { name: ui, type: socket, path: /tmp/…/ui.sock }
/// screens:
///   - name: home
///     root: { name: root, frame: [0, 0, 1280, 800], handlers: [{ plugin: ui, on: [touch] }] }
/// fallback:
///   handlers: [{ plugin: log, on: [any] }]
/// ```
/// A test whose point is the exact YAML (a diagnostic's `file:line:col`) spells its own text.
public enum DaemonLayout {
    /// The top-level block that logs every event no region takes.
    public static let logFallback = "fallback:\n  handlers: [{ plugin: log, on: [any] }]"

    /// The layout's YAML text, ending in a newline.
    /// - Parameters:
    ///   - display: the one display's name.
    ///   - size: its size in pixels (the demo touchscreen's 1280×800 unless told).
    ///   - displayOptions: more of the display's fields, in flow style (`idle: { after-s: 60 }`).
    ///   - touchscreen: whether there is the device rule `touch` (every touchscreen to the display).
    ///   - keyboard: nil for no keyboard rule; else the rule `keys` (every keyboard to the display)
    ///     with these more fields in flow style (`""` for none, `"log-keys: true"`).
    ///   - plugins: the `plugins:` entries, one flow mapping each (no block when empty).
    ///   - screens: the `screens:` list, its items (`- name: home …`) written from column 0: each
    ///     line is indented under `screens:`, empty lines (an interpolation that gave "") dropped.
    ///   - blocks: more top-level blocks (`metrics:`, ``logFallback``, `application: …`), each
    ///     verbatim after the screens.
    public static func yaml(display: String = "main", size: (width: Int, height: Int) = (1280, 800),
                            displayOptions: String? = nil, touchscreen: Bool = true, keyboard: String? = nil,
                            plugins: [String] = [], screens: String, blocks: [String] = []) -> String {
        var lines = ["displays:", "  - { name: \(display), size: [\(size.width), \(size.height)]\(displayOptions.map { ", " + $0 } ?? "") }"]
        var rules: [String] = []
        if touchscreen { rules.append("{ name: touch, match: { kind: touchscreen }, display: \(display) }") }
        if let keyboard {
            rules.append("{ name: keys, match: { kind: keyboard }, display: \(display)\(keyboard.isEmpty ? "" : ", " + keyboard) }")
        }
        if !rules.isEmpty { lines += ["devices:"] + rules.map { "  - " + $0 } }
        if !plugins.isEmpty { lines += ["plugins:"] + plugins.map { "  - " + $0 } }
        lines.append("screens:")
        for line in screens.split(separator: "\n", omittingEmptySubsequences: false) where !line.isEmpty {
            lines.append("  " + line)
        }
        lines += blocks
        return lines.joined(separator: "\n") + "\n"
    }
}
