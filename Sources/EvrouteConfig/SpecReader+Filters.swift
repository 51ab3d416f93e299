import EvrouteCore

extension SpecReader {
    /// The keys and ranges `filters:` accepts (display units, milliseconds, raw pressure units), from the schema.
    static var filterKeys: [String] { LayoutSchema.filters.keyNames }
    static var ghostTapRangeMs: ClosedRange<Int> { LayoutSchema.filters["ghost-taps"]!["max-duration-ms"]!.integerRange! }
    static var jitterRange: ClosedRange<Double> { LayoutSchema.filters["jitter"]!["hysteresis"]!.numberRange! }
    static var palmSizeRange: ClosedRange<Double> { LayoutSchema.filters["palm"]!["size"]!.numberRange! }
    static var pressureRange: ClosedRange<Double> { LayoutSchema.filters["pressure"]!["min"]!.numberRange! }
    static var stuckRange: ClosedRange<Double> { LayoutSchema.filters["stuck-after-s"]!.numberRange! }

    /// A device rule's `filters:`: `ghost-taps: { max-duration-ms }`,
    /// `ignore: [[x, y, w, h], …]`, `jitter: { hysteresis }`, `palm: { tool, size }`,
    /// `pressure: { min }`, `stuck-after-s: SECONDS`. `ghost-taps: {}` and `jitter: {}` take the
    /// measured defaults.
    func touchFilters(_ node: YAMLNode) -> TouchFilterSpec {
        var spec = TouchFilterSpec()
        guard let f = fields(node, "'filters'", known: Self.filterKeys) else { return spec }
        if let g = f["ghost-taps"], let gf = fields(g, "'ghost-taps'", known: LayoutSchema.filters["ghost-taps"]!.keyNames) {
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
        if let j = f["jitter"], let jf = fields(j, "'jitter'", known: LayoutSchema.filters["jitter"]!.keyNames) {
            spec.jitterHysteresis = TouchFilterSpec.defaultJitterHysteresis
            if let h = jf["hysteresis"] {
                spec.jitterHysteresis = bounded(h, "'hysteresis'", Self.jitterRange)
            }
        }
        if let p = f["palm"], let pf = fields(p, "'palm'", known: LayoutSchema.filters["palm"]!.keyNames) {
            let tool = pf["tool"].flatMap { bool($0, "'tool'") } ?? true
            var size: Double?
            if let s = pf["size"] { size = bounded(s, "'size'", Self.palmSizeRange) }
            if tool || size != nil { spec.palm = TouchFilterSpec.Palm(tool: tool, size: size) }
        }
        if let p = f["pressure"], let pf = fields(p, "'pressure'", known: LayoutSchema.filters["pressure"]!.keyNames) {
            if let m = required(pf, "min", hint: "the lightest contact taken, in the device's pressure units") {
                spec.pressureMin = bounded(m, "'min'", Self.pressureRange)
            }
        }
        if let s = f["stuck-after-s"] { spec.stuckAfterS = bounded(s, "'stuck-after-s'", Self.stuckRange) }
        return spec
    }
}
