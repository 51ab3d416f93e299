import EvrouteCore
import EvrouteSystem

extension DeviceKind {
    /// The kind a device rule's `kind` is compared with: udev's (`ID_INPUT_*`, via
    /// ``DeviceKind/from(udevProperties:)``) when udev has classified the device
    /// (`ID_INPUT=1` or any `ID_INPUT_*` set), else the same classification from the
    /// device's capabilities (``DeviceClassifier/kind(of:)``) — the case for recordings
    /// and for live devices when no udevd runs.
    public static func of(_ description: DeviceDescription) -> DeviceKind {
        let properties = description.udevProperties
        let classifiedByUdev = properties.contains { key, value in
            value == "1" && (key == "ID_INPUT" || key.hasPrefix("ID_INPUT_"))
        }
        return classifiedByUdev ? from(udevProperties: properties) : DeviceClassifier.kind(of: description)
    }
}
