import EvrouteCore
import EvrouteInput
#if canImport(Glibc)
import Glibc
#endif

/// `evroute --dry-run`: routes recordings or live devices and prints every decision.
public final class DryRun {
    public let layout: Layout
    public let writer: TraceWriter
    public let session: RoutingSession

    public init(layout: Layout, format: TraceFormat, sink: OutputSink = FileDescriptorSink(fd: 1)) {
        self.layout = layout
        writer = TraceWriter(format: format, sink: sink)
        session = RoutingSession(layout: layout)
        session.router.observer = writer
        let writer = self.writer
        session.onDeviceIgnored = { description, kind, time in writer.deviceIgnored(name: description.name, kind: kind, time: time) }
    }

    /// Loads each recording (its description from itself, a sibling `.desc`, or `descriptionPath`)
    /// and routes them merged by timestamp. Errors name the file and line.
    public func runReplays(paths: [String], descriptionPath: String?) throws {
        var recordings: [EvemuRecording] = []
        for path in paths {
            recordings.append(try EvemuRecording.load(path: path, descriptionPath: descriptionPath))
        }
        let source = ReplaySource(recordings: recordings)
        run(source, startTimes: ReplayPacer.startTimes(of: source))
    }

    /// Routes an input stream to its end, paced as a replay (see ``ReplayPacer``);
    /// `startTimes` gives each device's appearance time (a recording's first event).
    public func run(_ items: some Sequence<InputItem>, startTimes: [DeviceID: Timestamp] = [:]) {
        var pacer = ReplayPacer(startTimes: startTimes)
        for item in items { pacer.route(item, into: session) }
        writer.flush()
    }

    /// Routes live devices until SIGINT or SIGTERM, printing as it goes.
    public func runLive() throws {
        // Output is flushed after each batch of readable devices (below): live, but one
        // write(2) per batch rather than per line.
        let source = try LiveInputSource(rules: layout.deviceRules)
        source.onError = { error in
            let line = "evroute: \(error)\n"
            _ = line.withCString { Glibc.write(2, $0, strlen($0)) }
        }
        let loop = try PollLoop()
        for item in source.start() { session.handle(item) }
        writer.flush()
        while !PollLoop.stopRequested {
            let ready = loop.wait(on: source.fileDescriptors)
            for fd in ready {
                source.handleReadable(fd: fd) { session.handle($0) }
            }
            writer.flush()
        }
        for item in source.stop() { session.handle(item) }
        writer.flush()
    }
}
