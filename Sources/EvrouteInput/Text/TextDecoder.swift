import CXkbcommon
import EvrouteCore

/// What one key gave as text.
public enum TextOutput: Equatable, Sendable {
    /// Nothing: a modifier, a key that types nothing, a dead key waiting for the next one,
    /// a key going up.
    case none
    /// Printable text (a character, or a composed one).
    case text(String)
    /// Enter (Return or the keypad's Enter): the end of a line.
    case lineEnd
}

/// One keyboard's text, through libxkbcommon: its own key state (modifiers, Caps Lock, Num
/// Lock and the keymap's groups follow this device's keys only) on a shared ``Keymap``, and
/// its own compose state on the shared compose table (dead keys, compose sequences).
///
/// Text comes from a key going down and from its repeats (when the keymap repeats it); only
/// printable text counts: control characters (Enter, Tab, Backspace, Escape, Delete) and
/// keys pressed with Ctrl, Alt or Super held (chords) are left to the keys.
public final class TextDecoder {
    public let keymap: Keymap
    private let state: OpaquePointer
    private let compose: OpaquePointer?
    private var buffer = [CChar](repeating: 0, count: 64)

    /// nil when xkbcommon cannot make a state (out of memory).
    public init?(keymap: Keymap, composeTable: OpaquePointer?) {
        guard let state = xkb_state_new(keymap.pointer) else { return nil }
        self.keymap = keymap
        self.state = state
        compose = composeTable.flatMap { xkb_compose_state_new($0, XKB_COMPOSE_STATE_NO_FLAGS) }
    }

    deinit {
        if let compose { xkb_compose_state_unref(compose) }
        xkb_state_unref(state)
    }

    /// Updates the key state with `key` and says what it typed.
    public func feed(_ key: KeyInput) -> TextOutput {
        guard key.code >= 0, key.code < 0x300 else { return .none }
        let keycode = xkb_keycode_t(key.code + 8)   // evdev codes are XKB keycodes minus 8
        switch key.phase {
        case .down:
            // What the key types is read before its own press changes the modifiers.
            let out = typed(keycode)
            xkb_state_update_key(state, keycode, XKB_KEY_DOWN)
            return out
        case .repeat:
            return xkb_keymap_key_repeats(keymap.pointer, keycode) != 0 ? typed(keycode) : .none
        case .up, .cancelled:
            xkb_state_update_key(state, keycode, XKB_KEY_UP)
            return .none
        }
    }

    /// Ctrl, Alt (Mod1) or Super (Mod4) in effect.
    private var chordHeld: Bool {
        for name in ["Control", "Mod1", "Mod4"] where xkb_state_mod_name_is_active(state, name, XKB_STATE_MODS_EFFECTIVE) > 0 {
            return true
        }
        return false
    }

    private func typed(_ keycode: xkb_keycode_t) -> TextOutput {
        let sym = xkb_state_key_get_one_sym(state, keycode)
        if sym == 0xff0d || sym == 0xff8d {   // XKB_KEY_Return, XKB_KEY_KP_Enter
            if let compose { xkb_compose_state_reset(compose) }
            return .lineEnd
        }
        // A key pressed with Ctrl, Alt or Super held is a chord: a key, never text (Alt+C
        // would otherwise type "c"). AltGr is no Alt here: where the keymap makes Right Alt
        // AltGr (ISO_Level3_Shift) or Compose, it sets neither modifier.
        if chordHeld { return .none }
        if let compose, sym != 0, xkb_compose_state_feed(compose, sym) == XKB_COMPOSE_FEED_ACCEPTED {
            switch xkb_compose_state_get_status(compose) {
            case XKB_COMPOSE_COMPOSING:
                return .none
            case XKB_COMPOSE_COMPOSED:
                let n = buffer.withUnsafeMutableBufferPointer { xkb_compose_state_get_utf8(compose, $0.baseAddress, $0.count) }
                xkb_compose_state_reset(compose)
                return printable(count: n)
            case XKB_COMPOSE_CANCELLED:
                xkb_compose_state_reset(compose)
                return .none
            default:
                break   // XKB_COMPOSE_NOTHING: the key types what it types
            }
        }
        let n = buffer.withUnsafeMutableBufferPointer { xkb_state_key_get_utf8(state, keycode, $0.baseAddress, $0.count) }
        return printable(count: n)
    }

    /// The buffer's first `count` bytes as text, when they hold printable characters only.
    private func printable(count: Int32) -> TextOutput {
        guard count > 0, Int(count) < buffer.count else { return .none }
        let text = buffer.withUnsafeBufferPointer { p in
            String(decoding: UnsafeRawBufferPointer(start: p.baseAddress, count: Int(count)), as: UTF8.self)
        }
        for scalar in text.unicodeScalars where scalar.value < 0x20 || (scalar.value >= 0x7F && scalar.value < 0xA0) {
            return .none
        }
        return .text(text)
    }
}

/// A scanner's line (`text: line`): text collects until Enter, or until `timeout` passes
/// without a key; then it goes out as one text event. An empty line sends nothing.
public struct LineCollector: Sendable {
    /// Silence that ends a line without Enter; nil waits for Enter.
    public let timeout: Timestamp.Duration?
    public private(set) var line = ""
    /// When the line goes out without Enter (the last key's time plus the timeout).
    public private(set) var deadline: Timestamp?

    public init(timeout: Timestamp.Duration?) {
        self.timeout = timeout
    }

    /// Adds what a key typed at `time`; returns a finished line (on Enter).
    public mutating func feed(_ output: TextOutput, at time: Timestamp) -> String? {
        switch output {
        case .none:
            return nil
        case .text(let s):
            line += s
            if let timeout { deadline = time + timeout }
            return nil
        case .lineEnd:
            return take()
        }
    }

    /// The line so far (nil when empty), and the collector empty again.
    public mutating func take() -> String? {
        deadline = nil
        guard !line.isEmpty else { return nil }
        defer { line = "" }
        return line
    }
}
