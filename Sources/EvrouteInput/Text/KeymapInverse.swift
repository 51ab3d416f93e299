import CXkbcommon

/// A keymap read backwards: for each character, the key (evdev code) and the modifier keys that
/// type it on the keymap's first layout — what a virtual keyboard presses to type a line. A
/// character is found on a key of the main block (codes below 128) with the fewest modifiers
/// (no modifier, then Shift, then AltGr, then both), else on a key past it; Caps Lock and Num Lock are never used. Characters no key types there (a
/// dead key's composition, another script) are not in it: ``strokes(for:)`` counts them.
public struct KeymapInverse: Sendable {
    /// One character's key and modifier keys (evdev codes: Left Shift, Right Alt for AltGr).
    public struct Stroke: Equatable, Sendable {
        public var modifiers: [UInt16]
        public var key: UInt16

        public init(modifiers: [UInt16], key: UInt16) {
            self.modifiers = modifiers
            self.key = key
        }
    }

    private var strokes: [Character: Stroke] = [:]

    public static let leftShift: UInt16 = 42
    public static let rightAlt: UInt16 = 100

    public init(_ keymap: Keymap) {
        let map = keymap.pointer
        let shift = xkb_keymap_mod_get_index(map, "Shift")
        // AltGr: the LevelThree virtual modifier's real one (Mod5 on xkeyboard-config's maps).
        let level3 = xkb_keymap_mod_get_index(map, "Mod5")
        let lock = xkb_keymap_mod_get_index(map, "Lock")
        let numLock = xkb_keymap_mod_get_index(map, "Mod2")
        let minKey = xkb_keymap_min_keycode(map), maxKey = xkb_keymap_max_keycode(map)
        var found: [Character: (stroke: Stroke, cost: Int)] = [:]
        guard minKey <= maxKey else { return }
        for code in minKey...maxKey where code >= 8 {
            let levels = xkb_keymap_num_levels_for_key(map, code, 0)
            guard levels > 0 else { continue }
            for level in 0..<levels {
                var syms: UnsafePointer<xkb_keysym_t>?
                let n = xkb_keymap_key_get_syms_by_level(map, code, 0, level, &syms)
                guard n == 1, let syms else { continue }
                let u = xkb_keysym_to_utf32(syms[0])
                guard u >= 0x20, u != 0x7f, let scalar = Unicode.Scalar(u) else { continue }
                var masks = [xkb_mod_mask_t](repeating: 0, count: 16)
                let m = xkb_keymap_key_get_mods_for_level(map, code, 0, level, &masks, masks.count)
                for i in 0..<Int(m) {
                    let mask = masks[i]
                    func has(_ index: xkb_mod_index_t) -> Bool {
                        index != XKB_MOD_INVALID && index < 32 && mask & (1 << index) != 0
                    }
                    if has(lock) || has(numLock) { continue }
                    var rest = mask
                    var mods: [UInt16] = []
                    if has(shift) { mods.append(Self.leftShift); rest &= ~(1 << shift) }
                    if has(level3) { mods.append(Self.rightAlt); rest &= ~(1 << level3) }
                    guard rest == 0 else { continue }
                    // The main block first: a dedicated key past it (KEY_EURO) only where no
                    // modifier combination of the main block types the character.
                    let cost = (code - 8 >= 128 ? 100_000 : 0) + mods.count * 1000 + Int(code)
                    let c = Character(scalar)
                    if let old = found[c], old.cost <= cost { continue }
                    found[c] = (Stroke(modifiers: mods, key: UInt16(code - 8)), cost)
                }
            }
        }
        strokes = found.mapValues(\.stroke)
    }

    /// The stroke that types `c`, if a key does.
    public func stroke(for c: Character) -> Stroke? { strokes[c] }

    /// The strokes for `text`, and how many of its characters no key types (left out).
    public func strokes(for text: String) -> (strokes: [Stroke], untyped: Int) {
        var out: [Stroke] = []
        var untyped = 0
        for c in text {
            if let s = strokes[c] { out.append(s) } else { untyped += 1 }
        }
        return (out, untyped)
    }
}
