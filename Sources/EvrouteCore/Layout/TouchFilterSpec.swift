/// A device rule's `filters:`: contact filters for noisy touch panels, in
/// display units and milliseconds. Each is off unless configured; they run in the order
/// ignore, pressure, palm, ghost-taps, jitter (``TouchFrameFilters``).
public struct TouchFilterSpec: Sendable, Equatable {
    /// `palm: { tool, size }`: a contact is a palm when it reports MT_TOOL_PALM (`tool: true`)
    /// or a touch major (display units) of at least `size`.
    public struct Palm: Sendable, Equatable {
        public var tool: Bool
        public var size: Double?
        public init(tool: Bool = true, size: Double? = nil) { self.tool = tool; self.size = size }
    }

    /// `ghost-taps: { max-duration-ms }`: a new contact is held at most this long; one that
    /// lifts before is dropped whole, one that outlives it is delivered with its held samples.
    public var ghostTapMaxMs: Int?
    /// `ignore: [[x, y, w, h], …]`: contacts beginning in these rectangles are dropped.
    public var ignore: [Rect] = []
    /// `jitter: { hysteresis }`: moves within this distance of the last reported point are not reported.
    public var jitterHysteresis: Double?
    /// `palm:`; nil: off.
    public var palm: Palm?
    /// `pressure: { min }`: contacts that begin lighter are dropped (raw device units).
    public var pressureMin: Double?
    /// `stuck-after-s`: a contact that has not moved past the jitter hysteresis for this many
    /// seconds is cancelled (a contact that never lifts: dirt on an IR frame).
    public var stuckAfterS: Double?

    /// The `ghost-taps` bound when `max-duration-ms` is not given (milliseconds): below the
    /// shortest real tap measured in the shared recordings (docs/config.md, "Noisy panels").
    public static let defaultGhostTapMaxMs = 20
    /// The `jitter` hysteresis when not given (display units).
    public static let defaultJitterHysteresis = 2.0

    public init() {}

    /// No filter configured.
    public var isEmpty: Bool {
        ghostTapMaxMs == nil && ignore.isEmpty && jitterHysteresis == nil && palm == nil && pressureMin == nil && stuckAfterS == nil
    }
}
