#if canImport(Glibc)
import Glibc
#endif
import EvrouteCommandLine
import EvrouteCore
import EvrouteInput
import EvrouteJSON
import EvrouteSystem

extension EvrouteCLI {
    /// `evroute calibrate`: four corner taps, live or from a recording, become the device rule's
    /// `calibration:` and the equivalent udev rule (``CornerCalibration``).
    static let calibrate = Command(
        "calibrate", abstract: "Measure a touchscreen's calibration from taps on the four corners of the visible area; print the device rule's calibration: and the udev rule.",
        discussion: """
            Asks for one-finger taps on the corners of the visible area, in turn: top left, top
            right, bottom right, bottom left (it draws nothing: touch the corner of the picture,
            as close to it as you can). Prints `calibration: [a, b, c, d, e, f]` for the device
            rule and the same six values as a udev rule line
            ENV{LIBINPUT_CALIBRATION_MATRIX}="a b c d e f" (libinput's normalized matrix). Says
            so when the corners come turned (90, 180, 270) or mirrored: the matrix includes the
            turn. Without --device it reads the first touchscreen; with --replay, a recording of
            the four taps. Exit status 1 when the taps give no matrix (the message says what to do),
            or when a tap lies outside the device's axis range by more than 5 % of it (the taps
            are not this panel's). With --format json the result is one JSON object on standard
            output (matrix, calibration, udev_rule, corners, turned, mirrored, residual) and the
            prompts go to standard error.
            """,
        options: [
            .value("device", valueName: "node", help: "The touchscreen's device node (default: the first touchscreen).", completion: .file),
            .value("replay", valueName: "file", help: "Read the four taps from an evemu recording instead of a live device.", completion: .file),
            .value("desc", valueName: "file", help: "Device description for a recording that has none (evemu .desc).", completion: .file),
            .value("format", valueName: "format",
                   help: "text, or json: the result as one object on standard output, the prompts on standard error (docs/events.md).",
                   choices: ["text", "json"], default: "text"),
        ],
        run: { p in
            if p.value("device") != nil && p.value("replay") != nil {
                throw p.usageError("--device and --replay exclude each other: calibrate reads one touchscreen")
            }
            let json = p.value("format") == "json"
            /// A prompt or a remark: on standard output for people; on standard error beside the JSON.
            func say(_ text: String) { if json { printError(text) } else { writeOut(text) } }
            var taps = CornerCalibration.TapCollector()
            /// The device's axes (set once it is open), and a tap refused for lying outside them.
            var mapper: CoordinateMapper?
            var outOfRange: String?
            say("touch the \(CornerCalibration.corners[0].name) corner of the visible area\n")
            /// Takes a frame; true once the four taps are in.
            func take(_ frame: TouchFrameInput) -> Bool {
                let before = taps.rejected
                guard let index = taps.feed(frame) else {
                    if let why = taps.rejected, why != before { say("  \(why)\n") }
                    return false
                }
                let t = taps.taps[index]
                if let mapper, let why = CornerCalibration.outOfRange(t, index: index, mapper: mapper) {
                    outOfRange = why
                    return true
                }
                say("  \(CornerCalibration.corners[index].name): \(EvrouteCLI.fraction(t.x)) \(EvrouteCLI.fraction(t.y)) of the panel\n")
                if index + 1 < CornerCalibration.corners.count {
                    say("touch the \(CornerCalibration.corners[index + 1].name) corner\n")
                    return false
                }
                return true
            }
            let unit = Size(width: 1, height: 1)
            var deviceName = ""
            /// The device node read, or the recording.
            var source = ""
            if let replay = p.value("replay") {
                let recording: EvemuRecording
                do throws(Diagnostic) {
                    recording = try EvemuRecording.load(path: replay, descriptionPath: p.value("desc"))
                } catch {
                    throw CommandLineExit.failure(error.description)
                }
                deviceName = recording.description.name
                source = replay
                let decoder = TouchDecoder(device: DeviceID(1), description: recording.description, displaySize: unit, calibration: .identity)
                guard decoder.mapper != nil else { throw failure("\(replay): the device has no touch axes") }
                mapper = decoder.mapper
                for event in recording.events {
                    if let frame = decoder.feed(event), take(frame) { break }
                }
            } else {
                let node: String
                if let given = p.value("device") {
                    node = given
                } else {
                    let rows: [DeviceListingRow]
                    do {
                        rows = try DeviceListing.rows(rules: [])
                    } catch {
                        throw failure("cannot list devices: \(error)")
                    }
                    guard let first = rows.first(where: { $0.kind == .touchscreen && !$0.isEvroutes }) else {
                        throw failure("no touchscreen found (`evroute devices` lists the input devices; give one with --device)")
                    }
                    node = first.node
                }
                do {
                    let device = try EvdevDevice(path: node)
                    defer { device.close() }
                    deviceName = device.description.name
                    source = node
                    say("  (reading \(node): \(deviceName))\n")
                    let decoder = TouchDecoder(device: DeviceID(1), description: device.description, displaySize: unit, calibration: .identity)
                    guard decoder.mapper != nil else { throw failure("\(node) has no touch axes: give a touchscreen with --device") }
                    mapper = decoder.mapper
                    let loop = try EventLoop()
                    var gone: SystemError?
                    try loop.handleSignals([SIGINT, SIGTERM]) { _ in loop.stop() }
                    try loop.watch(device.fileDescriptor) { _ in
                        var events: [InputEvent] = []
                        let result = device.readAvailable(into: &events)
                        for event in events {
                            if let frame = decoder.feed(event), take(frame) { loop.stop(); return }
                        }
                        if let failure = result.failure { gone = failure; loop.stop() }
                    }
                    loop.run()
                    loop.unwatch(device.fileDescriptor)
                    if let gone { throw failure("\(node) went away: \(gone)") }
                } catch let exit as CommandLineExit {
                    throw exit
                } catch {
                    throw failure("cannot read \(node): \(error)")
                }
            }
            if let outOfRange { throw failure(outOfRange) }
            let result: CornerCalibration.Result
            do throws(CornerCalibration.Problem) {
                result = try CornerCalibration.solve(taps.taps)
            } catch {
                throw failure(error.description)
            }
            switch result.orientation {
            case .rotated(.none): break
            case .rotated(let turn):
                say("the corners came turned: the matrix turns the touches \(turn.rawValue)° clockwise (as `rotate: \(turn.rawValue)` would)\n")
            case .mirrored:
                say("the corners came mirrored (an axis runs backwards): the matrix flips it\n")
            }
            let values = CornerCalibration.formatted(result.matrix)
            let calibration = "calibration: [\(values.joined(separator: ", "))]"
            let udev = "ACTION==\"add|change\", KERNEL==\"event*\", ATTRS{name}==\"\(EvrouteCLI.udevEscaped(deviceName))\", ENV{LIBINPUT_CALIBRATION_MATRIX}=\"\(values.joined(separator: " "))\""
            guard json else {
                writeOut("device rule:  \(calibration)\nudev rule:    \(udev)\n")
                return
            }
            let turned = if case .rotated(let turn) = result.orientation { turn.rawValue } else { 0 }
            let corners = zip(CornerCalibration.corners, taps.taps).map { corner, tap -> JSONValue in
                .object([("corner", .string(corner.name)), ("x", .number(tap.x)), ("y", .number(tap.y))])
            }
            let object = JSONValue.object([
                ("device", .string(deviceName)),
                ("node", .string(source)),
                // The printed numbers (rounded as in the text), as numbers.
                ("matrix", .array(values.map { .number(Double($0) ?? 0) })),
                ("calibration", .string(calibration)),
                ("udev_rule", .string(udev)),
                ("corners", .array(corners)),
                ("turned", .int(turned)),
                ("mirrored", .bool(result.orientation == .mirrored)),
                ("residual", .number(result.residual)),
            ])
            writeOut(object.serialized + "\n")
        })

    /// A device name inside a udev rule's double quotes (udev takes no escapes there: a quote or
    /// backslash becomes `?`, which its glob matches).
    private static func udevEscaped(_ name: String) -> String {
        String(name.map { $0 == "\"" || $0 == "\\" || $0.isNewline ? "?" : $0 })
    }

    /// A normalized coordinate for the prompts, 3 decimals.
    private static func fraction(_ value: Double) -> String {
        let text = String((value * 1000).rounded() / 1000)
        return text
    }
}
