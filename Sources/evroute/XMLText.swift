/// XML text for the SVG pictures evroute draws (`tree --format svg`).
enum XMLText {
    /// The one XML escaper, for text and attribute values alike (`&`, `<`, `>`, `"`, `'`).
    /// Characters XML 1.0 cannot hold (C0 controls but tab and newline) become U+FFFD.
    static func escape(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for scalar in s.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\t", "\n": out.unicodeScalars.append(scalar)
            default: if scalar.value < 0x20 { out += "\u{FFFD}" } else { out.unicodeScalars.append(scalar) }
            }
        }
        return out
    }
}
