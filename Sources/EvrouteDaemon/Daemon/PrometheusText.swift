/// Prometheus's text exposition format 0.0.4: metric families (`# HELP`, `# TYPE`, samples),
/// label values escaped by its one escaper (``escapeLabel(_:)``). The daemon's metrics page
/// (``Daemon/metricsText()``), the same for the text file and `evroute status --format prometheus`.
struct PrometheusText {
    /// The page's bytes, appended in place (the page is written every interval: one buffer
    /// grown once, no intermediate strings per line).
    private var bytes: [UInt8] = []

    init() { bytes.reserveCapacity(8192) }

    /// The page.
    var text: String { String(decoding: bytes, as: UTF8.self) }

    enum FamilyType: String {
        case counter, gauge, histogram
    }

    private mutating func append(_ s: String) {
        var s = s
        s.withUTF8 { bytes.append(contentsOf: $0) }
    }

    private mutating func append(_ s: StaticString) {
        s.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// `value`'s bytes with `\` and a line feed escaped, and `"` too when `quotes` (label values).
    private mutating func appendEscaped(_ value: String, quotes: Bool) {
        var value = value
        value.withUTF8 { text in
            // Most texts need no escape: then they go in one copy.
            guard text.contains(where: { $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "\n") || (quotes && $0 == UInt8(ascii: "\"")) }) else {
                bytes.append(contentsOf: text)
                return
            }
            for c in text {
                switch c {
                case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
                case UInt8(ascii: "\n"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
                case UInt8(ascii: "\"") where quotes: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
                default: bytes.append(c)
                }
            }
        }
    }

    /// Starts a family: its help line and type.
    mutating func family(_ name: String, _ type: FamilyType, help: String) {
        append("# HELP ")
        append(name)
        bytes.append(UInt8(ascii: " "))
        appendEscaped(help, quotes: false)
        append("\n# TYPE ")
        append(name)
        bytes.append(UInt8(ascii: " "))
        append(type.rawValue)
        bytes.append(UInt8(ascii: "\n"))
    }

    /// One sample: `name{label="value",…} value`.
    mutating func sample(_ name: String, _ labels: [(String, String)] = [], _ value: Int) {
        sampleStart(name, labels)
        append(String(value))
        bytes.append(UInt8(ascii: "\n"))
    }

    mutating func sample(_ name: String, _ labels: [(String, String)] = [], _ value: Double) {
        sampleStart(name, labels)
        append(PrometheusText.number(value))
        bytes.append(UInt8(ascii: "\n"))
    }

    /// `name{label="value",…} `: the sample up to its value.
    private mutating func sampleStart(_ name: String, _ labels: [(String, String)]) {
        append(name)
        if !labels.isEmpty {
            bytes.append(UInt8(ascii: "{"))
            var first = true
            for (label, v) in labels {
                if !first { bytes.append(UInt8(ascii: ",")) }
                first = false
                append(label)
                append("=\"")
                appendEscaped(v, quotes: true)
                bytes.append(UInt8(ascii: "\""))
            }
            bytes.append(UInt8(ascii: "}"))
        }
        bytes.append(UInt8(ascii: " "))
    }

    /// A label value as the format wants it: `\` → `\\`, `"` → `\"`, a line feed → `\n`.
    static func escapeLabel(_ value: String) -> String {
        var p = PrometheusText()
        p.appendEscaped(value, quotes: true)
        return p.text
    }

    /// A float as Go's parser takes it (`+Inf`, `-Inf`, `NaN`; else Swift's shortest form).
    static func number(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }
}
