import EvrouteCore

/// Turns an accelerometer's `ABS_X`/`ABS_Y`/`ABS_Z` into samples in g, one per `SYN_REPORT`
/// that changed an axis. The kernel gives an accelerometer axis's resolution in units per g;
/// an axis without one (resolution 0) is taken to span ±2 g over its range, the most common
/// full scale (``unitsPerG`` says which, and ``assumedScale`` whether it was assumed).
///
/// The evdev driver only sends an axis when its value changes (by more than its fuzz), so the
/// decoder keeps each axis's last value: a sample always has all three.
public struct MotionDecoder {
    public let device: DeviceID
    /// Units per g of x, y and z.
    public let unitsPerG: (x: Double, y: Double, z: Double)
    /// Whether an axis had no resolution and ±2 g was assumed.
    public let assumedScale: Bool
    private var raw: (x: Int32, y: Int32, z: Int32)
    private var changed = false

    /// nil when the device has none of `ABS_X`, `ABS_Y`, `ABS_Z`.
    public init?(device: DeviceID, description: DeviceDescription) {
        let axes = [AbsCode.x, AbsCode.y, AbsCode.z].map { description.absinfo[$0] }
        guard axes.contains(where: { $0 != nil }) else { return nil }
        var assumed = false
        func scale(_ info: AbsInfo?) -> Double {
            guard let info else { return 1 }
            if info.resolution > 0 { return Double(info.resolution) }
            assumed = true
            let span = max(abs(Double(info.minimum)), abs(Double(info.maximum)))
            return max(span / 2, 1)
        }
        self.device = device
        unitsPerG = (scale(axes[0]), scale(axes[1]), scale(axes[2]))
        assumedScale = assumed
        raw = (axes[0]?.value ?? 0, axes[1]?.value ?? 0, axes[2]?.value ?? 0)
    }

    /// Feeds one event; a sample at each `SYN_REPORT` after an axis changed.
    public mutating func feed(_ event: InputEvent) -> MotionSample? {
        switch event.type {
        case EventType.abs:
            switch event.code {
            case AbsCode.x: raw.x = event.value; changed = true
            case AbsCode.y: raw.y = event.value; changed = true
            case AbsCode.z: raw.z = event.value; changed = true
            default: break
            }
            return nil
        case EventType.syn where event.code == SynCode.report:
            guard changed else { return nil }
            changed = false
            return MotionSample(device: device, time: event.time, x: Double(raw.x) / unitsPerG.x,
                                y: Double(raw.y) / unitsPerG.y, z: Double(raw.z) / unitsPerG.z)
        default:
            return nil
        }
    }
}
