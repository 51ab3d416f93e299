import EvrouteConfig
import EvrouteCore
import EvrouteInput
import EvrouteJSON
import EvrouteRuntime
import EvrouteSystem

extension Daemon {
    /// The metrics in Prometheus text format: what `evroute status --format
    /// prometheus` prints and the `metrics:` block's text file holds. The families the
    /// ``MetricsSink`` counts (handled, unhandled, forwarded, touches, gestures, the latency
    /// histogram) are there when the config has a `metrics:` block.
    func metricsText() -> String {
        var p = PrometheusText()
        let layout = session.layout
        p.family("evroute_build_info", .gauge, help: "The running evroute's version (always 1).")
        p.sample("evroute_build_info", [("version", evrouteVersion)], 1)
        p.family("evroute_start_time_seconds", .gauge, help: "When the daemon started, in Unix seconds.")
        p.sample("evroute_start_time_seconds", [], MonotonicClock.unixSeconds(of: startTime).rounded())
        if let spec = metricsSpec, spec.textfile != nil {
            // How often the text file is rewritten: a file older than a few intervals means a
            // daemon that stopped or hangs (the stale-textfile alert divides node_exporter's
            // node_textfile_mtime_seconds by it).
            p.family("evroute_metrics_interval_seconds", .gauge, help: "How often the metrics text file is written, in seconds.")
            p.sample("evroute_metrics_interval_seconds", [], spec.intervalSeconds)
        }
        p.family("evroute_config_reloads_total", .counter, help: "Config reloads, by result.")
        p.sample("evroute_config_reloads_total", [("result", "success")], reloads)
        p.sample("evroute_config_reloads_total", [("result", "failure")], failedReloads)
        p.family("evroute_config_last_reload_success_timestamp_seconds", .gauge, help: "When the running config was loaded (the start, or the last reload that took), in Unix seconds.")
        p.sample("evroute_config_last_reload_success_timestamp_seconds", [], MonotonicClock.unixSeconds(of: lastConfigLoad).rounded())

        // Each rule's kind (its match's, else "any") reads 0 while none of its devices is open,
        // so an alert sees the absence.
        var present: [String: [String: Int]] = [:]
        for rule in layout.deviceRules { present[rule.name] = [rule.match.kind?.rawValue ?? "any": 0] }
        for info in session.activeDevices {
            if present[info.ruleName]?.values.allSatisfy({ $0 == 0 }) ?? false { present[info.ruleName] = [:] }
            present[info.ruleName, default: [:]][info.kind.rawValue, default: 0] += 1
        }
        p.family("evroute_device_present", .gauge, help: "Input devices open, by device rule and kind.")
        for (rule, kinds) in present.sorted(by: { $0.key < $1.key }) {
            for (kind, n) in kinds.sorted(by: { $0.key < $1.key }) { p.sample("evroute_device_present", [("device", rule), ("kind", kind)], n) }
        }
        let counts = session.deviceCounts.sorted { $0.key < $1.key }
        p.family("evroute_device_events_total", .counter, help: "Raw input events read, by device rule.")
        for (rule, c) in counts { p.sample("evroute_device_events_total", [("device", rule)], c.events) }
        p.family("evroute_device_last_event_timestamp_seconds", .gauge, help: "When a device rule's devices last sent an event, in Unix seconds.")
        for (rule, c) in counts {
            if let t = c.lastEventTime { p.sample("evroute_device_last_event_timestamp_seconds", [("device", rule)], MonotonicClock.unixSeconds(of: t)) }
        }
        p.family("evroute_syn_dropped_total", .counter, help: "Kernel buffer overruns (SYN_DROPPED), by device rule.")
        for (rule, c) in counts { p.sample("evroute_syn_dropped_total", [("device", rule)], c.synDropped) }

        let stats = plugins?.statistics ?? []
        p.family("evroute_plugin_failures_total", .counter, help: "Plugin failures (a helper that exited, a socket peer that failed), by plugin.")
        for s in stats { p.sample("evroute_plugin_failures_total", [("plugin", s.name)], s.failures) }
        p.family("evroute_plugin_restarts_total", .counter, help: "Plugin helper restarts, by plugin.")
        for s in stats { p.sample("evroute_plugin_restarts_total", [("plugin", s.name)], s.restarts) }
        p.family("evroute_idle", .gauge, help: "1 while a display is idle (no input for its idle: after-s), else 0; by display.")
        for d in layout.displays.indices {
            p.sample("evroute_idle", [("display", layout.displays[d].name)], session.router.activity(ofDisplay: d)?.idle == true ? 1 : 0)
        }
        if let metrics {
            let c = observer.counts
            metrics.render(into: &p, layout: layout, cancelledByReload: c.touchesCancelledByReload, cancelledByChanges: c.touchesCancelledByChanges)
        }
        return p.text
    }

    /// Starts counting (the sink joins the router's fan-out) and writing `spec`'s text file every
    /// interval, on the loop's timers; after a reload, goes on with the same counters and the
    /// new file and interval.
    func startMetrics(_ spec: MetricsSpec) {
        if metrics == nil {
            let sink = MetricsSink(now: { MonotonicClock.now() })
            for info in session.activeDevices { sink.record(.deviceAdded(info, time: startTime)) }
            metrics = sink
            setObservers()
        }
        metrics?.measuresLatency = live != nil
        metricsSpec = spec
        if let metricsTimer { loop.cancel(metricsTimer) }
        metricsTimer = nil
        if spec.textfile != nil { scheduleMetricsWrite(every: .seconds(Double(spec.intervalSeconds))) }
    }

    /// The last write of the text file (the daemon stops), then no more.
    func stopMetrics() {
        writeMetricsFile()
        endMetrics()
    }

    /// No more counting nor writes (a reload removed the `metrics:` block; the file stays).
    func endMetrics() {
        if let metricsTimer { loop.cancel(metricsTimer) }
        metricsTimer = nil
        metricsSpec = nil
        metrics = nil
        setObservers()
    }

    /// Writes the text file, and again every `interval`.
    private func scheduleMetricsWrite(every interval: Timestamp.Duration) {
        metricsTimer = loop.schedule(after: interval) { [unowned self] in scheduleMetricsWrite(every: interval) }
        writeMetricsFile()
    }

    /// One write of the text file (atomic: a temp file renamed over it, mode 0644 whatever the
    /// umask; ``SystemCall/replaceFile(_:_:mode:)``). A failure is logged with its path when it
    /// is not the one logged last (another path after a reload, another error), its end once;
    /// `status` shows the last outcome. Routing never waits for it.
    func writeMetricsFile() {
        guard let path = metricsSpec?.textfile else { return }
        let previous = metricsLastWrite
        do {
            try SystemCall.replaceFile(path, metricsText())
            metricsLastWrite = MetricsWrite(path: path, error: nil, failures: previous?.failures ?? 0)
            if let previous, previous.error != nil {
                log.notice(.metricsWriteRecovered, previous.path == path
                           ? "metrics: writing \(path) works again"
                           : "metrics: writing \(path) works (\(previous.path) failed)")
            }
        } catch {
            metricsLastWrite = MetricsWrite(path: path, error: error, failures: (previous?.failures ?? 0) + 1)
            if previous?.path != path || previous?.error != error {
                log.warning(.metricsWriteFailed, "metrics: cannot write \(path): \(error); retrying every interval")
            }
        }
    }

    /// The `metrics` member of `status`: the text file, its interval, and its last write.
    func metricsStatus() -> JSONValue {
        typealias M = ControlProtocol.Status.Metrics
        guard let spec = metricsSpec else { return .null }
        let last = metricsLastWrite.flatMap { $0.path == spec.textfile ? $0 : nil }
        return .object([
            (M.textfile, .string(spec.textfile)), (M.intervalSeconds, .int(spec.intervalSeconds)),
            (M.lastWrite, .string(spec.textfile == nil ? nil : last == nil ? "pending" : last!.error == nil ? "ok" : "failed")),
            (M.lastError, .string(last?.error?.description)),
            (M.failures, .int(metricsLastWrite?.failures ?? 0)),
        ])
    }
}

/// One write of the metrics text file: where, and the error it failed with (nil: written);
/// `failures` counts every failed write since the daemon started.
struct MetricsWrite: Equatable {
    var path: String
    var error: SystemError?
    var failures: Int
}

extension MetricsSink {
    /// The sink's families, in Prometheus text format.
    /// Label sets the layout makes known (its device rules, their filters, its gestures) are
    /// there at 0 before anything was counted, so a dashboard or an alert has a series from the
    /// start (Prometheus's advice for known label sets).
    func render(into p: inout PrometheusText, layout: Layout, cancelledByReload: Int, cancelledByChanges: Int) {
        let rules = deviceRules
        var touches: [String: Int] = [:]
        for rule in Set(rules.values) { touches[rule] = 0 }
        for rule in layout.deviceRules { touches[rule.name] = 0 }
        for (id, n) in touchesByDevice { touches[rules[id] ?? "unknown", default: 0] += n }
        p.family("evroute_touches_total", .counter, help: "Touches begun, by device rule.")
        for (rule, n) in touches.sorted(by: { $0.key < $1.key }) { p.sample("evroute_touches_total", [("device", rule)], n) }
        var reopens = self.reopens
        for rule in Set(rules.values) { reopens[rule, default: 0] += 0 }
        for rule in layout.deviceRules { reopens[rule.name, default: 0] += 0 }
        p.family("evroute_device_reopens_total", .counter, help: "Devices of a rule opened again (unplugged and back, or reopened), by device rule.")
        for (rule, n) in reopens.sorted(by: { $0.key < $1.key }) { p.sample("evroute_device_reopens_total", [("device", rule)], n) }
        p.family("evroute_touches_cancelled_total", .counter, help: "Touches cancelled (a reload, a region change, a device gone), by reason.")
        p.sample("evroute_touches_cancelled_total", [("reason", "reload")], cancelledByReload)
        p.sample("evroute_touches_cancelled_total", [("reason", "region_change")], cancelledByChanges)
        p.sample("evroute_touches_cancelled_total", [("reason", "other")], max(touchesCancelled - cancelledByReload - cancelledByChanges, 0))
        p.family("evroute_filtered_total", .counter, help: "Contacts a contact filter removed, by device rule and filter.")
        var filtered = self.filtered
        for rule in layout.deviceRules {
            for name in TouchFrameFilters.removalNames(rule.filters) { filtered[FilteredKey(device: rule.name, filter: name), default: 0] += 0 }
        }
        for (k, n) in filtered.sorted(by: { ($0.key.device, $0.key.filter) < ($1.key.device, $1.key.filter) }) {
            p.sample("evroute_filtered_total", [("device", k.device), ("filter", k.filter)], n)
        }
        let all = handled.sorted { ($0.key.plugin, $0.key.kind) < ($1.key.plugin, $1.key.kind) }
        p.family("evroute_handled_total", .counter, help: "Events a handler took, by plugin and event kind.")
        for (k, n) in all { p.sample("evroute_handled_total", [("plugin", k.plugin), ("kind", MetricsSink.kinds[k.kind])], n) }
        p.family("evroute_unhandled_total", .counter, help: "Events no handler took, by event kind.")
        for (i, n) in unhandled.enumerated() { p.sample("evroute_unhandled_total", [("kind", MetricsSink.kinds[i])], n) }
        var forwarded = [Int](repeating: 0, count: MetricsSink.kinds.count)
        for (k, n) in all where k.forwards { forwarded[k.kind] += n }
        p.family("evroute_forwarded_total", .counter, help: "Events a forwarding handler took, by event kind.")
        for (i, n) in forwarded.enumerated() { p.sample("evroute_forwarded_total", [("kind", MetricsSink.kinds[i])], n) }
        p.family("evroute_gestures_recognized_total", .counter, help: "Gestures recognized (or begun, for continuous ones), by gesture.")
        var gestures = self.gestures
        for region in layout.regions { for g in region.gestures { gestures[g.name, default: 0] += 0 } }
        for (name, n) in gestures.sorted(by: { $0.key < $1.key }) { p.sample("evroute_gestures_recognized_total", [("gesture", name)], n) }
        p.family("evroute_dispatch_latency_seconds", .histogram, help: "From an event's kernel timestamp to its handler's dispatch.")
        var cumulative = 0
        for i in MetricsSink.latencyBounds.indices {
            cumulative += latency.buckets[i]
            p.sample("evroute_dispatch_latency_seconds_bucket", [("le", MetricsSink.latencyBoundLabels[i])], cumulative)
        }
        p.sample("evroute_dispatch_latency_seconds_bucket", [("le", "+Inf")], latency.count)
        p.sample("evroute_dispatch_latency_seconds_sum", [], Double(latency.sumMicroseconds) / 1e6)
        p.sample("evroute_dispatch_latency_seconds_count", [], latency.count)
    }
}
