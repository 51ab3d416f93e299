import EvrouteCore

/// An evemu recording (`evemu-record` / `evemu-describe`, EVEMU 1.0–1.3): a device
/// description and, possibly, the events it produced.
///
/// A file may hold only a description (`.desc`), only events (the description then comes from
/// a sibling file named like it up to a dot — `NAME.what.events` → `NAME.desc` for the longest
/// such `NAME` — or, when there is none, from an explicit description file), or both.
public struct EvemuRecording: Sendable {
    /// The device. `path` is set to the file the description was read from.
    public var description: DeviceDescription
    /// The events in file order, timestamps exactly as recorded.
    public var events: [InputEvent]
    /// The recording's file, when it was read from one.
    public var path: String?
    /// The `x.y` of a `# EVEMU x.y` header line, when present.
    public var formatVersion: String?
    /// What was odd but replayable (timestamps going backwards), with path:line.
    public var warnings: [Diagnostic] = []

    public init(description: DeviceDescription, events: [InputEvent], path: String? = nil, formatVersion: String? = nil) {
        self.description = description
        self.events = events
        self.path = path
        self.formatVersion = formatVersion
    }

    /// The largest recording file read (256 MiB, some 8 million events); a larger one, or a
    /// file that is not a regular file (`/dev/zero`, a FIFO, a directory), is an error naming
    /// the path, not read.
    public static let maximumRecordingSize = 256 << 20
    /// The largest description file read (`--desc`, a sibling `.desc`): 1 MiB (a real one is a
    /// few KiB).
    public static let maximumDescriptionSize = 1 << 20

    /// Reads a recording from a file (a regular file of at most ``maximumRecordingSize`` bytes).
    ///
    /// - Parameters:
    ///   - path: the recording.
    ///   - descriptionPath: a description file (`--desc`) for a recording that has none: used only
    ///     when the recording holds no description and no sibling `.desc` exists (a keyboard's
    ///     own description is never replaced by a touchscreen's `--desc`).
    /// - Returns: the recording, its description from (in this order) itself, the first sibling
    ///   `.desc` of `siblingDescriptionPaths(for:)`, or `descriptionPath`.
    /// - Throws: `Diagnostic` naming `path:line` and what was wrong.
    public static func load(path: String, descriptionPath: String? = nil) throws(Diagnostic) -> EvemuRecording {
        let bytes: [UInt8]
        switch FileBytes.read(path, limit: maximumRecordingSize, what: "a recording") {
        case .success(let b): bytes = b
        case .failure(let error): throw error
        }
        return try parse(bytes: bytes, path: path) { () throws(Diagnostic) in
            for candidate in siblingDescriptionPaths(for: path) where candidate != path && FileBytes.isFile(candidate) {
                return try loadDescription(path: candidate)
            }
            return try descriptionPath.map { path throws(Diagnostic) in try loadDescription(path: path) }
        }
    }

    /// Parses recording bytes.
    ///
    /// - Parameters:
    ///   - path: names the source in errors and becomes `description.path` when the bytes hold the description.
    ///   - description: a description that takes precedence over one in the bytes.
    ///   - fallbackDescription: asked (once) for a description when events come before any description.
    public static func parse(bytes: [UInt8], path: String = "<recording>", description: DeviceDescription? = nil,
                             fallbackDescription: () throws(Diagnostic) -> DeviceDescription? = { nil }) throws(Diagnostic) -> EvemuRecording {
        var parser = EvemuParser(path: path, external: description)
        return try parser.parse(bytes, fallback: fallbackDescription)
    }

    /// Parses recording text (see `parse(bytes:path:description:fallbackDescription:)`).
    public static func parse(text: String, path: String = "<recording>", description: DeviceDescription? = nil) throws(Diagnostic) -> EvemuRecording {
        try parse(bytes: Array(text.utf8), path: path, description: description)
    }

    /// Reads a description-only file (events in it, if any, are ignored): a regular file of at
    /// most ``maximumDescriptionSize`` bytes.
    public static func loadDescription(path: String) throws(Diagnostic) -> DeviceDescription {
        let bytes: [UInt8]
        switch FileBytes.read(path, limit: maximumDescriptionSize, what: "a device description") {
        case .success(let b): bytes = b
        case .failure(let error): throw error
        }
        var parser = EvemuParser(path: path, external: nil)
        parser.descriptionOnly = true
        let recording = try parser.parse(bytes, fallback: { () throws(Diagnostic) in nil })
        if !parser.sawDescription {
            throw Diagnostic(recording: path, line: 0, message: "no device description (N: line) in the file")
        }
        return recording.description
    }

    /// Where an events-only recording's description may be, in the order tried: the file name cut
    /// at each dot, the last dot first, plus `.desc` (`dir/X.hp8470p.scroll.events` →
    /// `dir/X.hp8470p.desc`, then `dir/X.desc`): the longest name that has a description is the
    /// most specific one (a machine's own `X.hp8470p.desc` before a generic `X.desc`), and device
    /// names that themselves contain a dot (`Logitech Unifying Device. Wireless PID:400e`) work.
    public static func siblingDescriptionPaths(for path: String) -> [String] {
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { String(path[...$0]) } ?? ""
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        var result: [String] = []
        var index = name.startIndex
        while let dot = name[index...].firstIndex(of: ".") {
            if dot != name.startIndex {
                result.append(directory + name[..<dot] + ".desc")
            }
            index = name.index(after: dot)
        }
        return result.reversed()
    }
}
