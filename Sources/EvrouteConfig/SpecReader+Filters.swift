import EvrouteCore

extension SpecReader {
    static let filterKeys = ["ghost-taps", "ignore", "jitter", "palm", "pressure", "stuck-after-s"]
    /// The ranges `filters:` accepts (display units, milliseconds, raw pressure units).
    static let ghostTapRangeMs = 1...1000
    static let jitterRange: ClosedRange<Double> = 0.1...100
    static let palmSizeRange: ClosedRange<Double> = 1...10_000
    static let pressureRange: ClosedRange<Double> = 0...1_000_000
    static let stuckRange: ClosedRange<Double> = 1...86_400

    /// A device rule's `filters:`: `ghost-taps: { max-duration-ms }`,
    /// `ignore: [[x, y, w, h], …]`, `jitter: { hysteresis }`, `palm: { tool, size }`,
    /// `pressure: { min }`, `stuck-after-s: SECONDS`. `ghost-taps: {}` and `jitter: {}` take the
    /// measured defaults.
    func touchFilters(_ node: YAMLNode) -> TouchFilterSpec {
        var spec = TouchFilterSpec()
        guard let f = fields(node, "'filters'", known: Self.filterKeys) else { return spec }
        if let g = f["ghost-taps"], let gf = fields(g, "'ghost-taps'", known: ["max-duration-ms"]) {
            spec.ghostTapMaxMs = TouchFilterSpec.defaultGhostTapMaxMs
            if let m = gf["max-duration-ms"], let ms = integer(m, "'max-duration-ms'") {
                if Self.ghostTapRangeMs.contains(ms) { spec.ghostTapMaxMs = ms }
                else {
                    spec.ghostTapMaxMs = nil
                    error(m, .invalidValue, "'max-duration-ms' must be a whole number of milliseconds from \(Self.ghostTapRangeMs.lowerBound) to \(Self.ghostTapRangeMs.upperBound), found \(ms)")
                }
            }
        }
        if let i = f["ignore"], let areas = list(i, "'ignore'") {
            for area in areas {
                guard let n = numbers(area, "each area of 'ignore'", count: 4,
                                      shape: "[x, y, width, height] in display units, width and height > 0",
                                      range: LayoutLimits.coordinates) else { continue }
                if n[2] > 0 && n[3] > 0 { spec.ignore.append(Rect(x: n[0], y: n[1], width: n[2], height: n[3])) }
                else { error(area, .invalidValue, "each area of 'ignore' must be [x, y, width, height] with width and height > 0, found \(render(area))") }
            }
        }
        if let j = f["jitter"], let jf = fields(j, "'jitter'", known: ["hysteresis"]) {
            spec.jitterHysteresis = TouchFilterSpec.defaultJitterHysteresis
            if let h = jf["hysteresis"] {
                spec.jitterHysteresis = bounded(h, "'hysteresis'", Self.jitterRange)
            }
        }
        if let p = f["palm"], let pf = fields(p, "'palm'", known: ["tool", "size"]) {
            let tool = pf["tool"].flatMap { bool($0, "'tool'") } ?? true
            var size: Double?
            if let s = pf["size"] { size = bounded(s, "'size'", Self.palmSizeRange) }
            if tool || size != nil { spec.palm = TouchFilterSpec.Palm(tool: tool, size: size) }
        }
        if let p = f["pressure"], let pf = fields(p, "'pressure'", known: ["min"]) {
            if let m = required(pf, "min", hint: "the lightest contact taken, in the device's pressure units") {
                spec.pressureMin = bounded(m, "'min'", Self.pressureRange)
            }
        }
        if let s = f["stuck-after-s"] { spec.stuckAfterS = bounded(s, "'stuck-after-s'", Self.stuckRange) }
        return spec
    }
}
