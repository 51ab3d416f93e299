import EvrouteConfig
import EvrouteTestSupport
import EvrouteCore
import Testing
import EvrouteChecks

/// A config: one 1280×800 display, `plugins` (lines from 4), one screen whose root (line 9 when
/// `plugins` is one line) holds `regions` (indented under `regions:` at 8 spaces).
private func config(plugins: String = "  - { name: log2, type: log }", regions: String, root: String = "[0, 0, 1280, 800]") -> String {
    """
    displays:
      - { name: main, size: [1280, 800] }
    plugins:
    \(plugins)
    screens:
      - name: home
        root:
          name: root
          frame: \(root)
          regions:
    \(regions)
    """
}

/// Every diagnostic of compiling `yaml` as check does (`test.yaml`), as printed.
private func diagnostics(_ yaml: String) -> [String] {
    do {
        let (_, layout) = try ConfigLoader.compile(yaml: yaml, file: "test.yaml")
        return ConfigLoader.warnings(of: layout, file: "test.yaml").map(\.description)
    } catch {
        return error.errors.map(\.description)
    }
}

@Suite("One validator: plugin options, targets, warnings")
struct ValidatorTests {
    // MARK: Plugin options (the daemon's texts, now at the value)

    @Test func execCommandGivenAsAString() {
        expectEqual(diagnostics(config(plugins: "  - { name: shell, type: exec, command: \"echo hi\" }",
                                   regions: "        - { name: a, frame: [0, 0, 10, 10] }")), [
            "test.yaml:4:41: error: plugin shell: `command` must be a list (argv); to run a string through /bin/sh, add `shell: true`",
        ])
    }

    @Test func socketWithoutPathAndDeadlineWithAUnit() {
        expectEqual(diagnostics(config(plugins: "  - { name: ui, type: socket, deadline-ms: 40ms }",
                                   regions: "        - { name: a, frame: [0, 0, 10, 10] }")), [
            "test.yaml:4:13: error: plugin ui: `path` (the socket's file name) is required",
            "test.yaml:4:44: error: plugin ui: `deadline-ms` must be a whole number of milliseconds from 1 to 3600000, found '40ms'",
        ])
    }

    @Test func processOptionsOutOfRangeAndUnknown() {
        expectEqual(diagnostics(config(plugins: "  - { name: p, type: process, command: [x], max-buffer: 10, restart-mim-ms: 5 }",
                                   regions: "        - { name: a, frame: [0, 0, 10, 10] }")), [
            "test.yaml:4:57: error: plugin p: `max-buffer` must be a whole number from 1024 to 67108864",
            "test.yaml:4:77: error: unknown option 'restart-mim-ms' for plugin 'p' (expected one of: command, shell, deadline-ms, max-buffer, restart-min-ms, restart-max-ms, stable-after); did you mean 'restart-min-ms'?",
        ])
    }

    @Test func execHandlerWithoutAnyCommand() {
        expectEqual(diagnostics(config(plugins: "  - { name: shell, type: exec }",
                                   regions: "        - { name: a, frame: [0, 0, 10, 10], handlers: [{ plugin: shell, on: tap }] }")), [
            "test.yaml:11:66: error: plugin shell: no `command`: give one on the handler or on the plugin",
        ])
    }

    // MARK: Targets

    @Test func unknownGestureAndKeyNames() {
        expectEqual(diagnostics(config(regions: """
                    - name: a
                      frame: [0, 0, 10, 10]
                      gestures: [{ name: hold, type: long-press }]
                      handlers: [{ plugin: log, on: [gesture:hodl, key:KEY_ENTR, "key:BTN_A", key:KEY_F12, gesture:hold] }]
            """)), [
            "test.yaml:14:42: error: unknown gesture 'hodl' in 'on' (gestures: hold); did you mean 'gesture:hold'?",
            "test.yaml:14:56: error: unknown key 'KEY_ENTR' in 'on' (not a key name of libevdev's table, e.g. KEY_ENTER, KEY_F12, BTN_LEFT); did you mean 'key:KEY_ENTER'?",
            "test.yaml:14:70: error: key 'BTN_A' is named 'BTN_SOUTH' by libevdev (the name its events carry): write 'key:BTN_SOUTH'",
        ])
    }

    @Test func builtInTargets() {
        expectEqual(diagnostics(config(regions: """
                    - name: a
                      frame: [0, 0, 10, 10]
                      handlers:
                        - { plugin: focus, on: tap, region: b }
                        - { plugin: present, on: tap, screen: hom }
                        - { plugin: action, on: tap, action: go }
                        - { plugin: focus, on: touch-ended, resign: yes-please }
            """)), [
            "test.yaml:14:49: error: unknown region 'b' for 'focus' (regions of screen 'home': root, a); did you mean 'a'?",
            "test.yaml:15:51: error: unknown screen 'hom' for 'present' (screens: home); did you mean 'home'?",
            "test.yaml:16:50: error: no handler takes action 'go' (none has 'on: action:go' or 'any'; no handler takes actions)",
            "test.yaml:17:57: error: 'resign' of a 'focus' handler must be true or false",
        ])
    }

    @Test func unknownPluginAndDeviceKindSayDidYouMean() {
        expect(diagnostics(config(plugins: "  - { name: shell, type: exec, command: [\"true\"] }",
                                   regions: "        - { name: a, frame: [0, 0, 10, 10], handlers: [{ plugin: shel, on: tap }] }")).contains(
            "test.yaml:11:66: error: unknown plugin 'shel' (declared: shell, log, action, focus, present, dismiss); did you mean 'shell'?"))
        expectEqual(diagnostics("""
            displays: [{ name: main, size: [10, 10] }]
            devices: [{ name: t, match: { kind: tochscreen } }]
            """), [
            "test.yaml:2:37: error: unknown device kind 'tochscreen' (expected one of: touchscreen, keyboard, pointer, touchpad, tablet, joystick, accelerometer, key, switch, other); did you mean 'touchscreen'?",
        ])
    }

    /// A misspelt plugin name on the handler that takes an action is one error: the action it
    /// would take still counts as taken, so no second error says no handler takes it.
    @Test func anUnknownPluginIsOneErrorNotAnActionCascade() {
        expectEqual(diagnostics(config(regions: """
                    - name: a
                      frame: [0, 0, 10, 10]
                      handlers:
                        - { plugin: lgo, on: "action:go" }
                        - { plugin: action, on: tap, action: go }
            """)), [
            "test.yaml:14:25: error: unknown plugin 'lgo' (declared: log2, log, action, focus, present, dismiss); did you mean 'log'?",
        ])
    }

    @Test func duplicatesNameTheFirstOnesLine() {
        expectEqual(diagnostics("""
            displays:
              - { name: main, size: [10, 10] }
              - { name: main, size: [10, 10] }
            devices:
              - { name: t, match: {} , display: main}
              - { name: t, match: {} , display: main}
            plugins:
              - { name: ui, type: log }
              - { name: ui, type: log }
            """), [
            "test.yaml:3:13: error: duplicate display name 'main' (first defined at line 2)",
            "test.yaml:6:13: error: duplicate device rule name 't' (first defined at line 5)",
            "test.yaml:9:13: error: duplicate plugin name 'ui' (first defined at line 8)",
        ])
    }

    @Test func indentationErrorsSaySo() {
        expectEqual(diagnostics("displays:\n  - name: main\n     size: [1, 1]\n"), [
            "test.yaml:3:10: error: invalid YAML: mapping values are not allowed in this context (check the indentation of this line and the one before)",
        ])
    }

    // MARK: Warnings

    @Test func warningsDoNotFailTheConfig() {
        expectEqual(diagnostics(config(plugins: "  - { name: shell, type: exec, command: [\"true\"] }", regions: """
                    - name: a
                      frame: [1200, 0, 200, 50]
                      handlers:
                        - { plugin: shell, on: tap, timeout: 3, comand: [x], page: 2 }
                        - { plugin: ui, on: tap, anything: 1 }
            """, root: "[0, 0, 1280, 720]").replacingPlugin("ui", with: "  - { name: ui, type: socket, path: /tmp/x.sock }")), [
            "test.yaml:9:13: warning: root region 'root' of screen 'home' has frame [0, 0, 1280, 720], but display 'main' is 1280×800 (expected [0, 0, 1280, 800])",
            "test.yaml:12:17: warning: region 'a' sticks out of its parent 'root' (frame [1200, 0, 200, 50] in a parent of 1280×720): the part outside cannot be hit",
            "test.yaml:15:50: warning: 'timeout' is an option of the exec plugin, not of its handlers: the handler's 'timeout' is not read (declare it on the plugin)",
            "test.yaml:15:61: warning: handler option 'comand' is not read by the exec plugin (it reads: command, shell); did you mean 'command'?",
        ])
    }

    @Test func theShippedConfigsHaveNoErrorsOrWarnings() throws {
        for name in ["config/kiosk.yaml", "config/minimal.yaml", "config/demo.yaml", "examples/ui-two-pages.yaml"] {
            let check = ConfigLoader.check(path: repoRoot.appendingPathComponent(name).path)
            expect(check.ok, "\(name): \(check.errors)")
            expect(check.warnings.isEmpty, "\(name): \(check.warnings)")
        }
    }
}

private extension String {
    /// Inserts a plugin line after the `plugins:` line.
    func replacingPlugin(_ name: String, with line: String) -> String {
        var lines = split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if let i = lines.firstIndex(of: "plugins:") { lines.insert(line, at: i + 1) }
        return lines.joined(separator: "\n")
    }
}
