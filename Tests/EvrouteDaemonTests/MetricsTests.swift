import Testing
import EvrouteChecks
#if canImport(Glibc)
import Glibc
#endif
@testable import EvrouteDaemon
import EvrouteConfig
import EvrouteCore
import EvrouteTestSupport

/// The `metrics:` block, the Prometheus text (its escaper, the histogram, the filter
/// counters' API), and the real daemon's text file against the dry-run on the same replay,
/// checked by the real promtool and served by a real node_exporter when they are installed
/// (`make test-deps`: Debian's prometheus and prometheus-node-exporter).
@Suite("Metrics", .serialized)
struct MetricsTests {
    static func errors(_ yaml: String) -> String {
        do {
            _ = try ConfigLoader.parse(yaml: yaml, file: "m.yaml", pluginTypes: PluginTypes.all)
            return ""
        } catch {
            return error.description
        }
    }

    @Test func theBlockIsReadAndItsErrorsNameTheirPlaceAndRange() throws {
        let spec = try ConfigLoader.parse(yaml: "metrics:\n  textfile: /var/lib/prometheus/node-exporter/evroute.prom\n  interval-s: 30\n",
                                          file: "m.yaml", pluginTypes: PluginTypes.all)
        expectEqual(spec.metrics, MetricsSpec(textfile: "/var/lib/prometheus/node-exporter/evroute.prom", intervalSeconds: 30))
        try expectEqual(try ConfigLoader.parse(yaml: "metrics:\n", file: "m.yaml", pluginTypes: PluginTypes.all).metrics?.intervalSeconds, 15)
        let interval = Self.errors("metrics:\n  interval-s: 0\n")
        expect(interval.contains("m.yaml:2:15: error: 'interval-s' must be a whole number of seconds from 1 to 3600, found 0"), "\(interval)")
        let relative = Self.errors("metrics:\n  textfile: evroute.prom\n")
        expect(relative.contains("m.yaml:2:13: error: 'textfile' must be an absolute file path"), "\(relative)")
        let unknown = Self.errors("metrics:\n  intervall-s: 5\n")
        expect(unknown.contains("m.yaml:2:3:") && unknown.contains("interval-s"), "\(unknown)")
    }

    @Test func labelValuesAndHelpAreEscapedAsTheFormatSays() {
        expectEqual(PrometheusText.escapeLabel("plain"), "plain")
        expectEqual(PrometheusText.escapeLabel("a\"b\\c\nd"), "a\\\"b\\\\c\\nd")
        var p = PrometheusText()
        p.family("evroute_x_total", .counter, help: "one\\two\nthree")
        p.sample("evroute_x_total", [("device", "Touch \"A\"")], 3)
        p.sample("evroute_y", [], 0.25)
        expectEqual(p.text, "# HELP evroute_x_total one\\\\two\\nthree\n# TYPE evroute_x_total counter\nevroute_x_total{device=\"Touch \\\"A\\\"\"} 3\nevroute_y 0.25\n")
        expect(PrometheusText.number(.infinity) == "+Inf" && PrometheusText.number(1e-4) == "0.0001" && PrometheusText.number(15) == "15")
    }

    @Test func theHistogramsBucketsAreUpperInclusive() {
        var h = MetricsSink.Latency()
        for us: Int64 in [50, 100, 101, 2_000_000, -5] { h.observe(us) }
        expect(h.buckets[0] == 3 && h.buckets[1] == 1 && h.buckets.last == 1)
        expect(h.count == 5 && h.sumMicroseconds == 50 + 100 + 101 + 2_000_000)
    }

    @Test func filteredContactsAreCountedPerDeviceAndFilter() {
        let sink = MetricsSink(now: { Timestamp(microseconds: 0) })
        sink.recordFiltered(device: "touch", filter: "jitter")
        sink.recordFiltered(device: "touch", filter: "jitter")
        sink.recordFiltered(device: "touch", filter: "palm")
        expectEqual(sink.filtered[.init(device: "touch", filter: "jitter")], 2)
        expectEqual(sink.filtered[.init(device: "touch", filter: "palm")], 1)
        expectEqual(sink.filtered.count, 2)
    }

    static func config(textfile: String?) -> String {
        DaemonLayout.yaml(keyboard: "", screens: """
            - name: home
              display: main
              root:
                name: root
                frame: [0, 0, 1280, 800]
                handlers:
                  - { plugin: log, on: [touch-began, touch-ended] }
            """, blocks: textfile.map { ["metrics:\n  textfile: \($0)\n  interval-s: 1"] } ?? [])
    }

    /// The value of one sample line (`name{labels} value`) of a metrics page.
    static func value(_ page: String, _ series: String) -> Double? {
        for line in page.split(separator: "\n") where line.hasPrefix(series + " ") {
            return Double(line.dropFirst(series.count + 1))
        }
        return nil
    }

    static func dryRunTouches(_ binary: String, config: String, replay: [String]) throws -> Int? {
        let run = try TestProcess.run(binary, ["--dry-run", "--config", config] + replay.flatMap { ["--replay", $0] })
        guard let summary = run.out.split(separator: "\n").last(where: { $0.hasPrefix("summary:") }) ?? run.err.split(separator: "\n").last(where: { $0.hasPrefix("summary:") }),
              let part = summary.split(separator: ";").dropFirst().first else { return nil }
        return Int(part.split(separator: " ").first ?? "")
    }

    /// The `evroute_…` names a text mentions.
    static func metricNames(_ text: String) -> Set<String> {
        let words = text.split { !($0.isLetter || $0.isNumber || $0 == "_") }
        let names = Set(words.filter { $0.hasPrefix("evroute_") }.map(String.init))
        return names
    }

    static var replays: [String] { [packageRoot + "/demo/touchscreen.events", packageRoot + "/demo/keyboard.events"] }

    @Test func theDaemonsTextFileCountsWhatTheDryRunCounts() throws {
        let binary = try evrouteBinary()
        let scratch = Scratch("evroute-metrics")
        defer { scratch.cleanUp() }
        let textfile = scratch.file("evroute.prom")
        let config = scratch.write("evroute.yaml", Self.config(textfile: textfile))
        let run = try TestProcess.run(binary, ["--config", config, "--control-socket", scratch.file("control.sock"), "--exit-after-replay"] + Self.replays.flatMap { ["--replay", $0] })
        expectEqual(run.status, 0, "\(run.err)")
        let page = try #require(readFile(textfile), "no text file; log:\n\(run.err)")
        expect(access(textfile + ".tmp", F_OK) != 0, "the temp file was renamed")
        let expected = try #require(try Self.dryRunTouches(binary, config: config, replay: Self.replays))
        expect(expected > 0)
        expectEqual(Self.value(page, "evroute_touches_total{device=\"touch\"}"), Double(expected), "\(page)")
        expectEqual(Self.value(page, "evroute_build_info{version=\"\(evrouteVersion)\"}"), 1)
        expect((Self.value(page, "evroute_device_events_total{device=\"touch\"}") ?? 0) > 0)
        expectEqual((Self.value(page, "evroute_handled_total{plugin=\"log\",kind=\"touch\"}") ?? 0), Double(2 * expected))
        expect(Self.value(page, "evroute_device_present{device=\"touch\",kind=\"touchscreen\"}") != nil)
        expectEqual(Self.value(page, "evroute_idle{display=\"main\"}"), 0)
        expect(page.contains("evroute_dispatch_latency_seconds_bucket{le=\"+Inf\"}"))
        // The interval, for the stale-textfile alert (a dead daemon's file stays behind).
        expect(page.split(separator: "\n").contains { $0.hasPrefix("evroute_metrics_interval_seconds ") }, "\(page)")

        // The dashboard and the alerts use only series the daemon writes.
        for example in ["examples/grafana-dashboard.json", "examples/evroute.rules.yml"] {
            let text = try #require(readFile(packageRoot + "/" + example))
            let names = Self.metricNames(text)
            expect(names.count >= 4, "\(example)")
            for name in names {
                let family = name.hasSuffix("_bucket") ? String(name.dropLast("_bucket".count)) : name
                expect(page.contains("# TYPE \(family) "), "\(example) uses \(name), which the daemon does not write")
            }
        }
        if access("/usr/bin/promtool", X_OK) == 0 {
            let check = try TestProcess.run("/usr/bin/promtool", ["check", "metrics"], stdin: .file(textfile))
            expect(check.status == 0 && check.out.isEmpty && check.err.isEmpty, "promtool: \(check.out)\(check.err)\n\(page)")
        }
        if access("/usr/bin/prometheus-node-exporter", X_OK) == 0 {
            try Self.nodeExporterServes(scratch.path, touches: expected)
        }
    }

    /// A real node_exporter (textfile collector only, on 127.0.0.1) serves the file: no scrape
    /// error, the touch count the dry-run gave.
    static func nodeExporterServes(_ directory: String, touches: Int) throws {
        let port = 19_100 + Int(getpid() % 500)
        let exporter = try TestProcess("/usr/bin/prometheus-node-exporter",
                                       ["--collector.disable-defaults", "--collector.textfile",
                                        "--collector.textfile.directory=\(directory)", "--web.listen-address=127.0.0.1:\(port)"],
                                       stdout: .null, stderr: .null)
        defer { exporter.kill9() }
        var page = ""
        for _ in 0..<100 {
            let get = try TestProcess.run("/usr/bin/curl", ["-sf", "http://127.0.0.1:\(port)/metrics"], timeout: 10)
            if get.status == 0 { page = get.out; break }
            usleep(100_000)
        }
        expectEqual(Self.value(page, "node_textfile_scrape_error"), 0, "\(page)")
        expectEqual(Self.value(page, "evroute_touches_total{device=\"touch\"}"), Double(touches), "\(page)")
    }

    @Test func aFileThatCannotBeWrittenIsLoggedOnceAndRoutingGoesOn() throws {
        let binary = try evrouteBinary()
        let scratch = Scratch("evroute-metrics")
        defer { scratch.cleanUp() }
        let config = scratch.write("evroute.yaml", Self.config(textfile: scratch.file("missing/evroute.prom")))
        let run = try TestProcess.run(binary, ["--config", config, "--control-socket", scratch.file("control.sock"), "--exit-after-replay"] + Self.replays.flatMap { ["--replay", $0] })
        expectEqual(run.status, 0, "\(run.err)")
        let failures = run.err.split(separator: "\n").filter { $0.contains("metrics: cannot write \(scratch.file("missing/evroute.prom"))") }
        expectEqual(failures.count, 1, "\(run.err)")
        expect(run.err.contains("replay finished"), "\(run.err)")
    }

    /// Runs the daemon over the demo replay with the text file at `textfile`, under `umask`.
    static func runReplay(textfile: String, scratch: Scratch, umask: String = "022") throws -> TestProcess.Result {
        let binary = try evrouteBinary()
        let config = scratch.write("evroute.yaml", Self.config(textfile: textfile))
        let argv = [binary, "--config", config, "--control-socket", scratch.file("control.sock"), "--exit-after-replay"] + Self.replays.flatMap { ["--replay", $0] }
        return try TestProcess.run("/bin/sh", ["-c", "umask \(umask) && exec \"$@\"", "sh"] + argv)
    }

    /// The shipped unit's `UMask=0077` would make the file 0600, which node_exporter (its own
    /// user) cannot read: the file is 0644 whatever the umask.
    @Test func theTextFileIsReadableByOthersUnderTheUnitsUmask() throws {
        let scratch = Scratch("evroute-metrics")
        defer { scratch.cleanUp() }
        let textfile = scratch.file("evroute.prom")
        let run = try Self.runReplay(textfile: textfile, scratch: scratch, umask: "077")
        expectEqual(run.status, 0, "\(run.err)")
        var st = stat()
        try #require(stat(textfile, &st) == 0, "no text file; log:\n\(run.err)")
        expectEqual(st.st_mode & 0o777, 0o644, "mode \(String(st.st_mode & 0o777, radix: 8))")
        let left = directoryEntries(scratch.path).filter { $0.hasSuffix(".tmp") }
        expect(left.isEmpty, "temp files left: \(left)")
    }

    /// A link planted where the temp file used to be (`PATH.tmp`, a fixed name) or at the text
    /// file itself is never followed: the file it points to stays as it was, the text file
    /// becomes a plain file.
    @Test func aPlantedSymlinkIsNeverFollowed() throws {
        let scratch = Scratch("evroute-metrics")
        defer { scratch.cleanUp() }
        let victim = scratch.write("victim", "precious\n"), other = scratch.write("other", "also precious\n")
        let textfile = scratch.file("evroute.prom")
        try #require(symlink(victim, textfile + ".tmp") == 0)
        try #require(symlink(other, textfile) == 0)
        let run = try Self.runReplay(textfile: textfile, scratch: scratch)
        expectEqual(run.status, 0, "\(run.err)")
        expectEqual(readFile(victim), "precious\n", "the link at PATH.tmp was followed")
        expectEqual(readFile(other), "also precious\n", "the link at PATH was followed")
        var st = stat()
        expect(lstat(textfile, &st) == 0 && st.st_mode & S_IFMT == S_IFREG, "the text file is a plain file now")
        expectEqual(readFile(textfile)?.contains("evroute_build_info"), true)
        let temps = directoryEntries(scratch.path).filter { $0.hasPrefix(".evroute.prom.") }
        expect(temps.isEmpty, "temp files left: \(temps)")
    }

    /// A directory others may write without the sticky bit, or another user's, is refused,
    /// naming it and why; with the sticky bit it is used.
    @Test func aDirectoryOthersMayWriteOrAnotherUsersIsRefusedNamingIt() throws {
        let scratch = Scratch("evroute-metrics")
        defer { scratch.cleanUp() }
        let shared = scratch.file("shared")
        try #require(mkdir(shared, 0o755) == 0)
        chmod(shared, 0o777)
        let textfile = shared + "/evroute.prom"
        let run = try Self.runReplay(textfile: textfile, scratch: scratch)
        expectEqual(run.status, 0, "\(run.err)")
        expect(access(textfile, F_OK) != 0, "written into a directory anyone may rename in")
        let refusals = run.err.split(separator: "\n").filter {
            $0.contains("metrics: cannot write \(textfile): use directory \(shared): writable by others without the sticky bit (mode 777)")
        }
        expectEqual(refusals.count, 1, "\(run.err)")

        chmod(shared, 0o1777)
        let sticky = try Self.runReplay(textfile: textfile, scratch: scratch)
        expectEqual(readFile(textfile)?.contains("evroute_build_info"), true, "\(sticky.err)")

        if geteuid() == 0 {
            unlink(textfile)
            chmod(shared, 0o755)
            try #require(chown(shared, 65534, 65534) == 0)
            let foreign = try Self.runReplay(textfile: textfile, scratch: scratch)
            expect(access(textfile, F_OK) != 0, "written into another user's directory")
            expect(foreign.err.contains("use directory \(shared): owned by uid 65534, not by root nor by this process's uid 0; refused"), "\(foreign.err)")
        }
    }

    /// Every failure names its path, a reload to another failing path too; `status` (JSON and
    /// text) shows the file and its last write; a working write is logged once.
    @Test func everyFailureNamesItsPathAndStatusShowsTheLastWrite() throws {
        let rig = try DaemonProcessTests.Rig()
        defer { rig.scratch.cleanUp() }
        let first = rig.scratch.file("a/evroute.prom"), second = rig.scratch.file("b/evroute.prom"), good = rig.scratch.file("evroute.prom")
        _ = rig.scratch.write("evroute.yaml", Self.config(textfile: first))
        let daemon = try rig.start(["--replay", Self.replays[0]])
        defer { daemon.kill9() }
        try #require(rig.notify.wait(for: "READY=1") != nil, "no READY=1; log:\n\(daemon.log)")
        let status = harnessControl("status", rig.control)?["metrics"]
        expectEqual(status?["textfile"]?.stringValue, first)
        expectEqual(status?["last_write"]?.stringValue, "failed", "\(String(describing: status))")
        expectEqual(status?["last_error"]?.stringValue?.contains("open \(rig.scratch.file("a")): No such file or directory"), true, "\(String(describing: status))")
        let text = try TestProcess.run(rig.binary, ["status", "--control-socket", rig.control])
        expect(text.out.contains("metrics: \(first) every 1 s; last write failed: open \(rig.scratch.file("a")): No such file or directory"), "\(text.out)")

        _ = rig.scratch.write("evroute.yaml", Self.config(textfile: second))
        daemon.signal(SIGHUP)
        expect(rig.notify.wait(for: "READY=1") != nil, "log:\n\(daemon.log)")
        expectEqual(harnessControl("status", rig.control)?["metrics"]?["textfile"]?.stringValue, second)
        expectEqual(harnessControl("status", rig.control)?["metrics"]?["last_write"]?.stringValue, "failed")

        _ = rig.scratch.write("evroute.yaml", Self.config(textfile: good))
        daemon.signal(SIGHUP)
        expect(rig.notify.wait(for: "READY=1") != nil, "log:\n\(daemon.log)")
        let ok = harnessControl("status", rig.control)?["metrics"]
        expect(ok?["last_write"]?.stringValue == "ok" && ok?["last_error"] == .null, "\(String(describing: ok))")
        expect((ok?["failures"]?.intValue ?? 0) >= 2)
        let log = daemon.log.split(separator: "\n")
        expectEqual(log.filter { $0.contains("metrics: cannot write \(first): open \(rig.scratch.file("a")):") }.count, 1, "\(daemon.log)")
        expectEqual(log.filter { $0.contains("metrics: cannot write \(second): open \(rig.scratch.file("b")):") }.count, 1, "\(daemon.log)")
        expectEqual(log.filter { $0.contains("metrics: writing \(good) works (\(second) failed)") }.count, 1, "\(daemon.log)")
    }

    /// A text file that is the config file, a socket plugin's socket or the control socket
    /// (which the daemon would replace every interval), or that holds a NUL, is an error at
    /// the `textfile` value: in `check` and in a reload.
    @Test func aTextFileNamingAFileTheDaemonNeedsIsRefusedAtItsPlace() throws {
        let scratch = Scratch("evroute-metrics")
        defer { scratch.cleanUp() }
        func config(_ textfile: String, socket: String) -> String {
            Self.config(textfile: textfile).replacingOccurrences(of: "metrics:\n", with: "plugins:\n  - { name: ui, type: socket, path: \(socket) }\nmetrics:\n")
        }
        func errors(_ textfile: String, control: String? = nil) -> [String] {
            let path = scratch.write("evroute.yaml", config(textfile, socket: scratch.file("ui.sock")))
            useLibevdevKeyNames()
            return ConfigLoader.check(path: path, pluginTypes: PluginTypes.all, controlSocket: control).errors.map(\.description)
        }
        let configPath = scratch.file("evroute.yaml")
        expect(errors(scratch.file("evroute.prom"), control: scratch.file("control.sock")).isEmpty)
        // The textfile value is on line 2 of the metrics block; find its line in the text.
        let lines = config(configPath, socket: scratch.file("ui.sock")).split(separator: "\n", omittingEmptySubsequences: false)
        let line = try #require(lines.firstIndex { $0.contains("textfile:") }) + 1
        let place = "\(configPath):\(line):13: error: 'textfile' "
        let itself = errors(scratch.path + "/./sub/../evroute.yaml")
        expect(itself.count == 1 && itself[0].hasPrefix(place) && itself[0].contains("is the config file itself (\(configPath))"), "\(itself)")
        let socket = errors(scratch.file("ui.sock"))
        expect(socket.count == 1 && socket[0].hasPrefix(place) && socket[0].contains("is socket plugin 'ui''s socket"), "\(socket)")
        let control = errors(scratch.file("control.sock"), control: scratch.file("control.sock"))
        expect(control.count == 1 && control[0].hasPrefix(place) && control[0].contains("is the control socket"), "\(control)")
        let nul = errors("\"/tmp/evroute.prom\\0.txt\"")
        expect(nul.count == 1 && nul[0].hasPrefix(place) && nul[0].contains("must not hold a NUL byte"), "\(nul)")

        // `evroute check` refuses the default control socket's path.
        _ = scratch.write("evroute.yaml", Self.config(textfile: "/run/evroute/control.sock"))
        let cli = try TestProcess.run(try evrouteBinary(), ["check", configPath])
        expect(cli.status == 1 && cli.err.contains("'textfile' /run/evroute/control.sock is the control socket"), "\(cli.err)")

        // A reload to such a config fails; the running one stays.
        let rig = try DaemonProcessTests.Rig()
        defer { rig.scratch.cleanUp() }
        _ = rig.scratch.write("evroute.yaml", Self.config(textfile: rig.scratch.file("evroute.prom")))
        let daemon = try rig.start([])
        defer { daemon.kill9() }
        try #require(rig.notify.wait(for: "READY=1") != nil, "no READY=1; log:\n\(daemon.log)")
        _ = rig.scratch.write("evroute.yaml", Self.config(textfile: rig.configPath))
        let reload = try TestProcess.run(rig.binary, ["reload", "--control-socket", rig.control])
        expect(reload.status == 1 && reload.err.contains("is the config file itself"), "\(reload.out)\(reload.err)")
        expectEqual(readFile(rig.configPath)?.contains("metrics:"), true, "the config file was replaced")
        expectEqual(harnessControl("status", rig.control)?["metrics"]?["textfile"]?.stringValue, rig.scratch.file("evroute.prom"))
    }

    @Test func statusFormatPrometheusPrintsTheRunningDaemonsPageAndAReloadMovesTheFile() throws {
        let rig = try DaemonProcessTests.Rig()
        defer { rig.scratch.cleanUp() }
        let first = rig.scratch.file("first.prom"), second = rig.scratch.file("second.prom")
        _ = rig.scratch.write("evroute.yaml", Self.config(textfile: first))
        let daemon = try rig.start(["--replay", Self.replays[0]])
        defer { daemon.kill9() }
        try #require(rig.notify.wait(for: "READY=1") != nil, "no READY=1; log:\n\(daemon.log)")
        let cli = try TestProcess.run(rig.binary, ["status", "--format", "prometheus", "--control-socket", rig.control])
        expectEqual(cli.status, 0, "\(cli.err)")
        expect(cli.out.hasPrefix("# HELP evroute_build_info "), "\(cli.out)")
        expect(cli.out.contains("# TYPE evroute_dispatch_latency_seconds histogram"), "\(cli.out)")
        expectEqual(Self.value(cli.out, "evroute_config_reloads_total{result=\"success\"}"), 0)

        _ = rig.scratch.write("evroute.yaml", Self.config(textfile: second))
        daemon.signal(SIGHUP)
        expect(rig.notify.wait(for: "READY=1") != nil, "log:\n\(daemon.log)")
        // The new file is written at once, and every second (interval-s: 1) after.
        var page: String?
        for _ in 0..<50 {
            page = readFile(second)
            if Self.value(page ?? "", "evroute_config_reloads_total{result=\"success\"}") == 1 { break }
            usleep(100_000)
        }
        expectEqual(Self.value(page ?? "", "evroute_config_reloads_total{result=\"success\"}"), 1, "\(page ?? "no file")")

        // Without the block, the page is refused, saying why.
        _ = rig.scratch.write("evroute.yaml", Self.config(textfile: nil))
        daemon.signal(SIGHUP)
        expect(rig.notify.wait(for: "READY=1") != nil, "log:\n\(daemon.log)")
        let refused = try TestProcess.run(rig.binary, ["status", "--format", "prometheus", "--control-socket", rig.control])
        expect(refused.status == 1 && refused.err.contains("no metrics: block"), "\(refused.err)")
    }

    /// Label sets the layout makes known are exported at 0 before anything happens: touches and
    /// reopens per device rule, each configured filter per rule, each gesture — so a dashboard
    /// panel or an alert on them has a series from the start.
    @Test func knownLabelSetsAreThereAtZeroFromTheStart() throws {
        let binary = try evrouteBinary()
        let scratch = Scratch("evroute-metrics-zero")
        defer { scratch.cleanUp() }
        let textfile = scratch.file("evroute.prom")
        let config = scratch.write("evroute.yaml", """
        displays: [{ name: main, size: [1280, 800] }]
        devices:
          - { name: touch, match: { kind: touchscreen }, display: main, filters: { ghost-taps: {}, palm: {}, stuck-after-s: 30 } }
          - { name: keys, match: { kind: keyboard }, display: main }
        screens:
          - name: home
            display: main
            root:
              name: root
              frame: [0, 0, 1280, 800]
              handlers: [{ plugin: log, on: [key, "action:reload"] }]
              gestures: [{ name: reload, type: swipe, touches: 3, direction: down, action: reload }]
        metrics:
          textfile: \(textfile)
          interval-s: 1
        """)
        // Only the keyboard: no touchscreen ever comes, nothing is filtered or recognized.
        let run = try TestProcess.run(binary, ["--config", config, "--control-socket", scratch.file("control.sock"),
                                               "--exit-after-replay", "--replay", packageRoot + "/demo/keyboard.events"])
        expectEqual(run.status, 0, "\(run.err)")
        let page = try #require(readFile(textfile), "no text file; log:\n\(run.err)")
        for series in ["evroute_touches_total{device=\"touch\"}", "evroute_device_reopens_total{device=\"touch\"}",
                       "evroute_filtered_total{device=\"touch\",filter=\"ghost-tap\"}", "evroute_filtered_total{device=\"touch\",filter=\"palm\"}",
                       "evroute_filtered_total{device=\"touch\",filter=\"stuck\"}", "evroute_gestures_recognized_total{gesture=\"reload\"}"] {
            expectEqual(Self.value(page, series), 0, "\(series) missing or not 0:\n\(page)")
        }
        expect(Self.value(page, "evroute_filtered_total{device=\"keys\",filter=\"palm\"}") == nil, "a rule without filters has no filter series")
    }

    /// The alert rules load in the real promtool, and its unit tests of them pass
    /// (Tests/Fixtures/promtool/evroute.rules.test.yml: each alert fires on the series that should
    /// fire it — a dead daemon's stale text file among them — and not on a healthy kiosk).
    /// promtool comes with Debian's `prometheus` (`make test` installs it).
    @Test func rulesPassPromtool() throws {
        try #require(access("/usr/bin/promtool", X_OK) == 0, "promtool is missing: apt-get install prometheus (make test-deps)")
        let check = try TestProcess.run("/usr/bin/promtool", ["check", "rules", packageRoot + "/examples/evroute.rules.yml"])
        expectEqual(check.status, 0, "\(check.out)\(check.err)")
        expect(check.out.contains("SUCCESS: 5 rules found"), "\(check.out)")
        let test = try TestProcess.run("/usr/bin/promtool", ["test", "rules", "evroute.rules.test.yml"],
                                       directory: packageRoot + "/Tests/Fixtures/promtool")
        expect(test.status == 0 && test.out.contains("SUCCESS"), "\(test.out)\(test.err)")
    }
}
