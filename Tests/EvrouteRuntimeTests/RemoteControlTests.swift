import Foundation
import Testing
import EvrouteChecks
import EvrouteConfig
import EvrouteCore
import EvrouteInput
@testable import EvrouteRuntime
import EvrouteTestSupport

/// Remote-control events (docs/config.md#remote-controls-and-media-keys): consumer-control interfaces and IR receivers are keyboards
/// whose media keys go to the first responder, up the chain, like any key (`key:NAME`).
@Suite("Remote-control events")
struct RemoteControlTests {
    static let consumerControl = deviceFixtures + "/consumer-control.desc"
    static let irReceiver = deviceFixtures + "/ir-receiver.desc"
    static let razerMultimedia = Typist.keyboards + "/Razer Razer BlackWidow 2013.keyboard-multimedia.desc"

    static let yaml = """
        displays: [{ name: main, size: [800, 480] }]
        devices:
          - { name: keys, match: { kind: keyboard } }
          - { name: media, match: { kind: key } }
          - { name: remote, match: { name: "*CIR*" } }
        screens:
          - name: home
            root:
              name: root
              frame: [0, 0, 800, 480]
              regions:
                - name: player
                  frame: [0, 0, 800, 400]
                  focusable: true
                  handlers: [{ plugin: log, on: ["key:KEY_PLAYPAUSE", "key:KEY_OK", text] }]
        application:
          handlers: [{ plugin: log, on: ["key:KEY_VOLUMEUP", "key:KEY_VOLUMEDOWN", "key:KEY_MUTE"] }]
        fallback: { handlers: [{ plugin: log, on: [any] }] }
        """

    /// A recording of `description` pressing `keys` from `start`.
    static func recording(_ description: String, _ keys: [String], start: Double, name: String, in dir: URL) throws -> String {
        try Typist.write(keys, start: start, name: name, in: dir, description: description)
    }

    @Test func classification() throws {
        let consumer = try EvemuRecording.loadDescription(path: Self.consumerControl)
        expectEqual(DeviceClassifier.kind(of: consumer), .key)
        let flags = DeviceClassifier.classify(consumer)
        expect(flags.hasKeys && !flags.isKeyboard && !flags.isMouse)
        // rc-core receivers carry REL_X/REL_Y and INPUT_PROP_POINTING_STICK (IR mouse protocols):
        // udev says ID_INPUT_POINTINGSTICK and ID_INPUT_KEY, so their kind is `pointer`.
        let ir = try EvemuRecording.loadDescription(path: Self.irReceiver)
        let irFlags = DeviceClassifier.classify(ir)
        expect(irFlags.hasKeys && irFlags.isPointingStick && !irFlags.isMouse && !irFlags.isKeyboard)
        expectEqual(DeviceClassifier.kind(of: ir), .pointer)
        expectEqual(DeviceKind.from(udevProperties: ["ID_INPUT": "1", "ID_INPUT_KEY": "1", "ID_INPUT_POINTINGSTICK": "1"]), .pointer)
        // A keyboard's multimedia interface that also has the letters is a keyboard.
        if FileManager.default.fileExists(atPath: Self.razerMultimedia) {
            try expectEqual(DeviceClassifier.kind(of: try EvemuRecording.loadDescription(path: Self.razerMultimedia)), .keyboard)
        }
    }

    @Test("Media keys go to the first responder and up the chain; they type no text")
    func mediaKeysFollowTheChain() throws {
        let dir = try Typist.scratch()
        let consumer = try Self.recording(Self.consumerControl, ["KEY_PLAYPAUSE", "KEY_VOLUMEUP", "KEY_NEXTSONG"], start: 10, name: "cc.events", in: dir)
        let ir = try Self.recording(Self.irReceiver, ["KEY_OK", "KEY_MUTE", "KEY_NUMERIC_1", "KEY_UP"], start: 20, name: "ir.events", in: dir)
        let (_, layout) = try ConfigLoader.compile(yaml: Self.yaml, file: "remote.yaml")
        let sink = MemorySink()
        let dry = DryRun(layout: layout, format: .json, sink: sink, errors: MemorySink())
        var warnings: [String] = []
        dry.warn = { warnings.append($0) }
        dry.session.router.setFirstResponder(layout.region(path: "home/root/player"))
        try dry.runReplays(paths: [consumer, ir], descriptionPath: nil)
        expect(warnings.isEmpty)
        let objects = try sink.lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        let added = objects.filter { $0["type"] as? String == "device-added" }
        expectEqual(added.map { "\($0["device"]!) \($0["kind"]!)" }, ["media key", "remote pointer"])
        let downs = objects.filter { $0["type"] as? String == "key" && $0["phase"] as? String == "down" }
        func taker(_ key: String) -> String? { downs.first { $0["key"] as? String == key }?["handled_by"] as? String }
        expect(downs.allSatisfy { $0["region"] as? String == "home/root/player" }, "from the first responder")
        expectEqual(taker("KEY_PLAYPAUSE"), "home/root/player")
        expectEqual(taker("KEY_OK"), "home/root/player")
        expectEqual(taker("KEY_VOLUMEUP"), "application")
        expectEqual(taker("KEY_MUTE"), "application")
        expectEqual(taker("KEY_NEXTSONG"), "fallback")
        expectEqual(taker("KEY_NUMERIC_1"), "fallback")
        expectEqual(downs.first { $0["key"] as? String == "KEY_PLAYPAUSE" }?["device"] as? String, "media")
        expectEqual(downs.first { $0["key"] as? String == "KEY_OK" }?["device"] as? String, "remote")
        expect(!objects.contains { $0["type"] as? String == "text" }, "media and numeric remote keys type no text")
    }

    @Test("The log names media keys (they are not typing keys); a remote's digits are")
    func mediaKeysAreNamedInTheLog() {
        for name in ["KEY_PLAYPAUSE", "KEY_VOLUMEUP", "KEY_MUTE", "KEY_NEXTSONG", "KEY_OK", "KEY_CHANNELUP", "KEY_RED"] {
            expect(!KeyNames.isTyping(name), "\(name)")
        }
        for name in ["KEY_NUMERIC_0", "KEY_NUMERIC_9", "KEY_NUMERIC_STAR", "KEY_NUMERIC_POUND"] {
            expect(KeyNames.isTyping(name), "\(name)")
        }
    }
}
