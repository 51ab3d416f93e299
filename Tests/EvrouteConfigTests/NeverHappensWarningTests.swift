import EvrouteConfig
import EvrouteTestSupport
import EvrouteCore
import Testing
import EvrouteChecks

/// `check` warns about what can never happen: layouts that passed silently before.
/// Each case also has its fixed twin, which passes without a warning.
@Suite("Warnings: handlers and devices nothing reaches")
struct NeverHappensWarningTests {
    /// The warnings of a layout as `check` prints them (it compiles without errors).
    func warnings(_ yaml: String) throws -> [String] {
        let (_, layout) = try ConfigLoader.compile(yaml: yaml, file: "test.yaml")
        return ConfigLoader.warnings(of: layout, file: "test.yaml").map { "\($0.line):\($0.column ?? 0): \($0.severity): \($0.message)" }
    }

    static func layout(devices: String = "", corner: String, settings: String, root: String = "") -> String {
        """
        displays: [{ name: main, size: [1280, 800] }]
        devices:
          - { name: touch, match: { kind: touchscreen }\(devices) }
          - { name: keys, match: { kind: keyboard } }
        plugins: [{ name: ui, type: socket, path: /tmp/ui.sock }]
        screens:
          - name: home
            root:
              name: root
              frame: [0, 0, 1280, 800]
              handlers: [\(root)]
              regions:
                - name: corner
                  frame: [0, 0, 100, 100]
        \(corner)
                - name: settings
                  frame: [200, 0, 400, 100]
        \(settings)
        fallback: { handlers: [{ plugin: log, on: [any] }] }
        """
    }

    static let hold = """
                  gestures: [{ name: admin-hold, type: long-press, minimum-duration: 3, action: open-admin }]
        """

    @Test func anActionHandlerBesideTheGestureThatSendsIt() throws {
        let yaml = Self.layout(corner: Self.hold, settings: """
                  handlers: [{ plugin: ui, on: ["action:open-admin"] }]
        """)
        let w = try warnings(yaml)
        expectEqual(w, [
            "18:41: warning: the handler for 'action:open-admin' on region 'home/root/settings' is on no responder chain the action starts from (it is sent by gesture 'admin-hold' of home/root/corner, whose chain does not pass this region): it never gets the action",
        ], "\(w)")
        // On the gesture's chain (its region, an ancestor, the screen…) it is reached.
        let fixed = Self.layout(corner: Self.hold, settings: "", root: #"{ plugin: ui, on: ["action:open-admin"] }"#)
        try expectEqual(try warnings(fixed), [])
        // An action handler sends from the region of the event it took: `settings` taps send
        // it from `settings`, whose chain passes the handler there.
        let sentHere = Self.layout(corner: "", settings: """
                  handlers: [{ plugin: action, on: tap, action: open-admin }, { plugin: ui, on: ["action:open-admin"] }]
        """)
        try expectEqual(try warnings(sentHere), [])
    }

    @Test func aKeyHandlerOnARegionThatIsNeverFirstResponder() throws {
        let yaml = Self.layout(corner: "", settings: """
                  handlers: [{ plugin: ui, on: [text, "key:KEY_ENTER"] }]
        """)
        let w = try warnings(yaml)
        expectEqual(w, [
            "18:41: warning: the handler for text, key:KEY_ENTER on region 'home/root/settings' never gets one: keys and text start at the first responder, and no region whose chain passes this one can become first responder (none is focusable: true or focused by a focus handler)",
        ], "\(w)")
        // Focusable itself, a focusable child, or focused by a focus handler: reached.
        try expectEqual(try warnings(yaml.replacingOccurrences(of: "frame: [200, 0, 400, 100]", with: "frame: [200, 0, 400, 100]\n          focusable: true")), [])
        try expectEqual(try warnings(yaml.replacingOccurrences(of: "frame: [200, 0, 400, 100]", with: "frame: [200, 0, 400, 100]\n          regions: [{ name: field, frame: [0, 0, 10, 10], focusable: true }]")), [])
        try expectEqual(try warnings(Self.layout(corner: """
                  handlers: [{ plugin: focus, on: tap, region: settings }]
        """, settings: """
                  handlers: [{ plugin: ui, on: [text] }]
        """)), [])
    }

    @Test func aGrabbedDeviceWhoseTouchesNothingTakes() throws {
        let yaml = Self.layout(devices: ", grab: true", corner: "", settings: """
                  focusable: true
                  handlers: [{ plugin: ui, on: [key] }]
        """).replacingOccurrences(of: "fallback: { handlers: [{ plugin: log, on: [any] }] }", with: "")
        try expectEqual(try warnings(yaml), [
            "3:50: warning: device rule 'touch' grabs its devices (grab: true), but no handler on display 'main' takes their touches: nothing here gets them, and the grab keeps them from everything else",
        ])
        // A handler that takes touches (here one only for this rule's devices) is enough.
        try expectEqual(try warnings(yaml.replacingOccurrences(of: "on: [key]", with: "on: [key, tap], devices: [touch]")), [])
        // …but not one for other devices' touches.
        try expectEqual(try warnings(yaml.replacingOccurrences(of: "on: [key]", with: "on: [key, tap], devices: [keys]")).count, 1)
    }
}
