/// Prometheus's text exposition format 0.0.4: metric families (`# HELP`, `# TYPE`, samples),
/// label values escaped by its one escaper (``escapeLabel(_:)``). The daemon's metrics page
/// (``Daemon/metricsText()``), the same for the text file and `evroute status --format prometheus`.
struct PrometheusText {
    private(set) var text = ""

    enum FamilyType: String {
        case counter, gauge, histogram
    }

    /// Starts a family: its help line and type.
    mutating func family(_ name: String, _ type: FamilyType, help: String) {
        text += "# HELP \(name) "
        for c in help.unicodeScalars {
            switch c {
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            default: text.unicodeScalars.append(c)
            }
        }
        text += "\n# TYPE \(name) \(type.rawValue)\n"
    }

    /// One sample: `name{label="value",…} value`.
    mutating func sample(_ name: String, _ labels: [(String, String)] = [], _ value: Int) {
        sample(name, labels, text: String(value))
    }

    mutating func sample(_ name: String, _ labels: [(String, String)] = [], _ value: Double) {
        sample(name, labels, text: PrometheusText.number(value))
    }

    private mutating func sample(_ name: String, _ labels: [(String, String)], text value: String) {
        text += name
        if !labels.isEmpty {
            text += "{"
            for (i, (label, v)) in labels.enumerated() {
                if i > 0 { text += "," }
                text += label
                text += "=\""
                text += PrometheusText.escapeLabel(v)
                text += "\""
            }
            text += "}"
        }
        text += " "
        text += value
        text += "\n"
    }

    /// A label value as the format wants it: `\` → `\\`, `"` → `\"`, a line feed → `\n`.
    static func escapeLabel(_ value: String) -> String {
        guard value.utf8.contains(where: { $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\n") }) else { return value }
        var out = ""
        for c in value.unicodeScalars {
            switch c {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    /// A float as Go's parser takes it (`+Inf`, `-Inf`, `NaN`; else Swift's shortest form).
    static func number(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }
}
