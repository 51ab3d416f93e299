import EvrouteCore
import EvrouteJSON
import EvrouteRuntime
import EvrouteSystem

/// `log`: one info line per event in the daemon's log (journald), with the fields of the
/// dry-run trace (the handler's options too, as the text trace shows them). Always handles.
/// Typing keys (``KeyNames/isTyping(_:)``: what a PIN or a scanned code is typed with) are
/// written `KEY_***` unless the run (`--show-keycodes`), the device's rule or the handler
/// (`log-keys: true`) lets them be named.
final class LogPlugin: Plugin {
    let spec: PluginSpec
    private let context: PluginContext
    private(set) var statistics: PluginStatistics

    init(spec: PluginSpec, context: PluginContext) {
        self.spec = spec
        self.context = context
        statistics = PluginStatistics(name: spec.name, type: spec.type)
    }

    func start() {}
    func stop(_ reason: PluginStopReason) {}
    var liveChildren: [ChildProcess] { [] }

    func deliver(_ d: PluginDelivery) -> HandlerVerdict {
        statistics.handled += 1
        context.log.info(LogPlugin.describe(d.event, responder: d.responder, handler: d.handler,
                                            showKeys: context.showKeycodes || LogPlugin.mayName(d.event, handler: d.handler)))
        return .handled
    }

    /// `touch 3 began (412.5, 96) home/root/header/back → home/root/header/back [shell] device touch`.
    static func describe(_ e: RoutedEvent, responder: ResponderID, handler: HandlerBinding, showKeys: Bool = false) -> String {
        var line: String
        switch e.kind {
        case .touch(let phase, let isTap):
            let t = e.touch
            line = "touch \(t?.id ?? 0) \(phase.rawValue) (\(number(t?.location.x ?? 0)), \(number(t?.location.y ?? 0)))"
            if isTap { line += " tap ×\(t?.tapCount ?? 1)" }
        case .key(let name, let phase):
            line = "key \(showKeys || !KeyNames.isTyping(name) ? name : KeyNames.obfuscatedName) \(phase.rawValue)"
        case .action(let name): line = "action \(name)"
        case .gesture(let name, let state): line = "gesture \(name) \(state)"
        }
        line += " \(e.regionPath ?? "(no region)") → \(e.layout.describe(responder)) [\(handler.plugin)]"
        if let options = HandlerOptions.text(of: handler) { line += " \(options)" }
        if let device = e.device { line += " device \(device.ruleName)" }
        line += " t=\(e.time)"
        return line
    }

    /// Whether the handler or the event's device rule says `log-keys: true`.
    static func mayName(_ e: RoutedEvent, handler: HandlerBinding) -> Bool {
        guard case .key = e.kind else { return false }
        if handler.options["log-keys"]?.bool == true { return true }
        guard let rule = e.device?.ruleName else { return false }
        return e.layout.deviceRules.first { $0.name == rule }?.logKeys == true
    }

    /// `412.5`, `96` (no trailing `.0`): as the control protocol writes numbers.
    static func number(_ v: Double) -> String { JSONText.number(v, style: .shortest) }
}
