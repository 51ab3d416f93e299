import Foundation

/// An evemu recording played twice, the second time `shift` seconds later (its header once, every
/// event line again with its time moved): a silence between two runs of real input, for idle
/// Written into `scratch` as `name`; returns its path, or nil when `path` is unreadable.
public func recordingWithGap(_ path: String, shift: Double, in scratch: Scratch, name: String = "gap.events") -> String? {
    guard let text = readFile(path) else { return nil }
    var header: [Substring] = [], events: [Substring] = []
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
        if line.hasPrefix("E: ") { events.append(line) } else if events.isEmpty { header.append(line) }
    }
    var out = header.map(String.init) + events.map(String.init)
    for line in events {
        var fields = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard fields.count == 3, let t = Double(fields[1]) else { return nil }
        fields[1] = Substring(String(format: "%.6f", t + shift))
        out.append(fields.joined(separator: " "))
    }
    return scratch.write(name, out.joined(separator: "\n") + "\n")
}
