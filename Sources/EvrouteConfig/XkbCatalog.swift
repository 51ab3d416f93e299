import EvrouteCore
import Glibc

/// What xkeyboard-config (Debian's xkb-data) offers, for checking a device rule's `keymap` when
/// the config is read: layouts (a file under `symbols/`), their variants (the `xkb_symbols
/// "NAME"` sections of that file, and the `evdev.lst` list) and options (`evdev.lst`). The
/// names for did-you-mean come from `rules/evdev.lst`. Absent (no xkb-data where the config is
/// read), keymaps are checked when a keyboard is added instead, by compiling them.
struct XkbCatalog {
    /// `$XKB_CONFIG_ROOT`, else `/usr/share/X11/xkb` (where xkbcommon looks).
    let root: String
    let listedLayouts: [String]
    let listedVariants: [String: [String]]
    let options: Set<String>
    private var symbolSections: [String: [String]?] = [:]

    /// The catalog of the xkb-data installed here; nil when there is none.
    static func installed() -> XkbCatalog? {
        var root = "/usr/share/X11/xkb"
        if let env = getenv("XKB_CONFIG_ROOT"), env.pointee != 0 { root = String(cString: env) }
        guard let list = readSmallFile(root + "/rules/evdev.lst", limit: 1 << 20) else { return nil }
        return XkbCatalog(root: root, evdevList: list)
    }

    init(root: String, evdevList: String) {
        self.root = root
        var section = ""
        var layouts: [String] = [], variants: [String: [String]] = [:], options: Set<String> = []
        for line in evdevList.split(separator: "\n", omittingEmptySubsequences: true) {
            if line.hasPrefix("!") { section = String(line.dropFirst().drop { $0 == " " }); continue }
            let words = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
            guard let name = words.first.map(String.init) else { continue }
            switch section {
            case "layout": layouts.append(name)
            case "variant":
                // `  nodeadkeys      de: German (no dead keys)`
                if words.count > 1, words[1].hasSuffix(":") { variants[String(words[1].dropLast()), default: []].append(name) }
            case "option": if name.contains(":") { options.insert(name) }
            default: break
            }
        }
        listedLayouts = layouts
        listedVariants = variants
        self.options = options
    }

    /// Whether xkbcommon can find `layout`: a plain name with a file under `symbols/`.
    mutating func hasLayout(_ layout: String) -> Bool {
        listedLayouts.contains(layout) || sections(of: layout) != nil
    }

    /// The variants of `layout`: its file's sections and the listed ones.
    mutating func variants(of layout: String) -> [String] {
        var out = sections(of: layout) ?? []
        for v in listedVariants[layout] ?? [] where !out.contains(v) { out.append(v) }
        return out
    }

    /// The `xkb_symbols "NAME"` sections of `symbols/LAYOUT`, nil when there is no such file.
    private mutating func sections(of layout: String) -> [String]? {
        if let known = symbolSections[layout] { return known }
        var found: [String]?
        let plain = !layout.isEmpty && layout.utf8.allSatisfy { c in
            (c >= 0x61 && c <= 0x7A) || (c >= 0x41 && c <= 0x5A) || (c >= 0x30 && c <= 0x39) || c == 0x5F || c == 0x2D
        }
        if plain, let text = Self.readSmallFile(root + "/symbols/" + layout, limit: 4 << 20) {
            var names: [String] = []
            var rest = Substring(text)
            while let r = rest.firstRange(of: "xkb_symbols") {
                rest = rest[r.upperBound...]
                let afterSpaces = rest.drop { $0 == " " || $0 == "\t" }
                guard afterSpaces.first == "\"" else { continue }
                let name = afterSpaces.dropFirst().prefix { $0 != "\"" && $0 != "\n" }
                if !name.isEmpty { names.append(String(name)) }
            }
            found = names
        }
        symbolSections[layout] = .some(found)
        return found
    }

    /// A regular file's text, up to `limit` bytes; nil when it cannot be read.
    static func readSmallFile(_ path: String, limit: Int) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG, Int(status.st_size) <= limit else { return nil }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 { if errno == EINTR { continue }; return nil }
            if n == 0 { break }
            bytes.append(contentsOf: chunk[0..<n])
            if bytes.count > limit { return nil }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
