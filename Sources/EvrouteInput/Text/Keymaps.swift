import CXkbcommon
import EvrouteCore
import Glibc

/// A keymap that did not compile (an unknown layout or variant, xkb-data missing).
public struct KeymapError: Error, Sendable, CustomStringConvertible {
    public var keymap: KeymapSpec
    /// xkbcommon's last message about it, if it said anything.
    public var reason: String?

    public var description: String {
        "keymap \(keymap) could not be compiled" + (reason.map { ": \($0)" } ?? "")
            + " (xkeyboard-config's layouts, Debian's xkb-data, under \(KeymapLibrary.dataRoot))"
    }
}

/// One xkbcommon context and the keymaps compiled in it, shared by every keyboard: a keymap
/// is compiled once per distinct `keymap:` (a few milliseconds) and each device gets its own
/// key state on it. The compose table (the locale's, see ``composeLocales(environment:)``) is
/// loaded once, when the first keyboard needs it. One event loop owns it.
public final class KeymapLibrary {
    /// Where xkbcommon finds layouts: `$XKB_CONFIG_ROOT`, else xkb-data's directory.
    public static var dataRoot: String {
        if let root = getenv("XKB_CONFIG_ROOT"), root.pointee != 0 { return String(cString: root) }
        return "/usr/share/X11/xkb"
    }

    private let context: OpaquePointer?
    private let log: UnsafeMutablePointer<evroute_xkb_log>
    private var keymaps: [KeymapSpec: Result<Keymap, KeymapError>] = [:]
    private var composeLoaded = false
    private var composeTable: OpaquePointer?
    private let environment: (String) -> String?
    /// The locale whose compose table was loaded (after the first keyboard), nil when none.
    public private(set) var composeLocale: String?
    /// Why no compose table could be loaded, if none could.
    public private(set) var composeProblem: String?

    /// `environment` reads the locale variables (the process's environment by default).
    public init(environment: @escaping (String) -> String? = KeymapLibrary.processEnvironment) {
        self.environment = environment
        log = .allocate(capacity: 1)
        log.initialize(to: evroute_xkb_log())
        // No environment names: a rule's keymap is what the config says, not XKB_DEFAULT_LAYOUT.
        context = xkb_context_new(XKB_CONTEXT_NO_ENVIRONMENT_NAMES)
        if let context { evroute_xkb_capture_log(context, log) }
    }

    deinit {
        keymaps.removeAll()
        if let composeTable { xkb_compose_table_unref(composeTable) }
        if let context { xkb_context_unref(context) }
        log.deinitialize(count: 1)
        log.deallocate()
    }

    public static func processEnvironment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// The keymap for `spec`, compiled the first time (with the `evdev` rules, model `pc105`).
    public func keymap(_ spec: KeymapSpec) throws(KeymapError) -> Keymap {
        if let known = keymaps[spec] { return try known.get() }
        let result = compile(spec)
        keymaps[spec] = result
        return try result.get()
    }

    private func compile(_ spec: KeymapSpec) -> Result<Keymap, KeymapError> {
        guard let context else { return .failure(KeymapError(keymap: spec, reason: "xkbcommon could not create a context")) }
        resetLog()
        let options = spec.options.joined(separator: ",")
        let map: OpaquePointer? = "evdev".withCString { rules in
            "pc105".withCString { model in
                spec.layout.withCString { layout in
                    spec.variant.withCString { variant in
                        options.withCString { opts in
                            var names = xkb_rule_names(rules: rules, model: model, layout: layout,
                                                       variant: variant, options: opts)
                            return xkb_keymap_new_from_names(context, &names, XKB_KEYMAP_COMPILE_NO_FLAGS)
                        }
                    }
                }
            }
        }
        guard let map else { return .failure(KeymapError(keymap: spec, reason: lastMessage())) }
        return .success(Keymap(map, spec: spec))
    }

    /// The compose table, loaded the first time: the locale's (LC_ALL, LC_CTYPE, LANG), with
    /// C.UTF-8's (en_US.UTF-8's table) when the locale is C, POSIX, unset, or has none.
    public func compose() -> OpaquePointer? {
        if composeLoaded { return composeTable }
        composeLoaded = true
        guard let context else { return nil }
        var tried: [String] = []
        for locale in Self.composeLocales(environment: environment) {
            resetLog()
            if let table = locale.withCString({ xkb_compose_table_new_from_locale(context, $0, XKB_COMPOSE_COMPILE_NO_FLAGS) }) {
                composeTable = table
                composeLocale = locale
                return table
            }
            tried.append(locale + (lastMessage().map { " (\($0))" } ?? ""))
        }
        composeProblem = "no compose table for " + tried.joined(separator: ", ")
            + " (libX11's, Debian's libx11-data, under /usr/share/X11/locale): dead keys and compose sequences type nothing"
        return nil
    }

    /// The locales whose compose table is tried, in order: the first of LC_ALL, LC_CTYPE and
    /// LANG that is set (as the C library picks LC_CTYPE), then C.UTF-8; only C.UTF-8 when
    /// that locale is C or POSIX (their table is Latin-1's, not UTF-8's).
    public static func composeLocales(environment: (String) -> String?) -> [String] {
        var chosen: String?
        for name in ["LC_ALL", "LC_CTYPE", "LANG"] {
            if let value = environment(name), !value.isEmpty { chosen = value; break }
        }
        guard let chosen, chosen != "C", chosen != "POSIX", chosen != "C.UTF-8", chosen != "C.utf8" else { return ["C.UTF-8"] }
        return [chosen, "C.UTF-8"]
    }

    private func resetLog() {
        log.pointee.count = 0
        log.pointee.last.0 = 0
    }

    private func lastMessage() -> String? {
        guard log.pointee.count > 0 else { return nil }
        return withUnsafeBytes(of: log.pointee.last) { raw in
            String(cString: raw.baseAddress!.assumingMemoryBound(to: CChar.self))
        }
    }
}

/// A compiled keymap (immutable; shared by the devices that use it).
public final class Keymap {
    let pointer: OpaquePointer
    public let spec: KeymapSpec

    init(_ pointer: OpaquePointer, spec: KeymapSpec) {
        self.pointer = pointer
        self.spec = spec
    }

    deinit { xkb_keymap_unref(pointer) }

    /// Whether Right Alt (KEY_RIGHTALT) is an Alt on this keymap (`us`), not AltGr or a
    /// compose key (`de`, `compose:ralt`): its first level's keysym is Alt_R or Alt_L.
    public var rightAltIsAlt: Bool {
        var syms: UnsafePointer<xkb_keysym_t>?
        let n = xkb_keymap_key_get_syms_by_level(pointer, 100 + 8, 0, 0, &syms)
        guard n > 0, let syms else { return true }
        return syms[0] == 0xffea || syms[0] == 0xffe9
    }
}
