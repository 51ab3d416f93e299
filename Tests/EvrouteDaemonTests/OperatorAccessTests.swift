import Testing
import EvrouteChecks
#if canImport(Glibc)
import Glibc
#endif
import EvrouteSystem
import EvrouteTestSupport

/// Who may use the control socket, on a `/proc` like the one the shipped unit's
/// `ProtectProc=invisible` gives the daemon: in an unshared mount namespace, proc is mounted
/// with `hidepid=invisible`; the real daemon runs as one unprivileged uid (its group owns the
/// socket), an operator — another uid, the socket's group only as a *supplementary* group — runs
/// `evroute status` and `evroute ctl state`, and a third uid outside the group is refused: by
/// the socket file's mode, and by the daemon itself when the mode would let it in. Real
/// processes, a real socket, real uids (`setpriv`); the daemon cannot see the operator's
/// `/proc/PID`, so only the kernel's `SO_PEERGROUPS` can tell it the operator's groups.
@Suite("Operator access under hidepid=invisible", .serialized)
struct OperatorAccessTests {
    static let socketGroup: gid_t = 61000
    static let daemonUser: uid_t = 61001
    static let operatorUser: uid_t = 61002
    static let outsider: uid_t = 61003

    /// nil when the test can run here; otherwise why not.
    static let missingPrerequisite: String? = {
        guard geteuid() == 0 else { return "needs root (to mount proc in a new mount namespace and to run as other uids)" }
        for tool in ["unshare", "setpriv", "mount"] where run(["sh", "-c", "command -v \(tool)"]).status != 0 {
            return "\(tool) (util-linux) is not installed"
        }
        guard evrouteBinaryPath() != nil else { return "the evroute binary is not next to the test bundle; run `swift build` first" }
        let probe = run(["unshare", "--mount", "--propagation", "private", "--fork", "sh", "-c",
                         "mount -t proc -o hidepid=invisible proc /proc && grep -q hidepid=invisible /proc/self/mountinfo"])
        guard probe.status == 0 else {
            return "cannot mount proc with hidepid=invisible in an unshared mount namespace (Linux 5.8+ and CAP_SYS_ADMIN needed): \(probe.output)"
        }
        return nil
    }()

    /// Runs `argv` (looked up in PATH) with stdin from /dev/null; exit status and stdout+stderr.
    static func run(_ argv: [String]) -> (status: Int32, output: String) {
        guard let r = try? TestProcess.run(argv[0], Array(argv.dropFirst()), stderr: .standardOutput, searchPath: true) else {
            return (127, "cannot run \(argv[0])")
        }
        return (r.status, r.out.trimmingTrailingNewlines)
    }

    /// The script run inside the new mount namespace (as root). $1 scratch dir, $2 evroute, $3 config.
    /// Each step's output and exit status go to files the test reads.
    static let script = """
        set -u
        D=$1 EV=$2 CFG=$3 SOCK=$1/run/control.sock
        mount -t proc -o hidepid=invisible proc /proc || exit 3
        grep ' /proc ' /proc/self/mountinfo | tail -n 1 >$D/proc.mountinfo
        as() { u=$1; shift; setpriv --reuid=$u --regid=$u "$@"; }
        # the daemon: its own uid, primary group \(socketGroup) (the socket's group), no other group
        setpriv --reuid=\(daemonUser) --regid=\(socketGroup) --clear-groups \\
            "$EV" --config "$CFG" --control-socket $SOCK >$D/daemon.out 2>$D/daemon.log &
        DPID=$!
        i=0; while [ ! -S $SOCK ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
        stat -c '%u %g' /proc/$DPID >$D/daemon.ids
        stat -c '%a %g' $SOCK >$D/socket.mode
        # hidepid=invisible at work: the daemon's user does not see an operator's process
        as \(operatorUser) --groups=\(socketGroup) sleep 5 & SLEEPER=$!
        setpriv --reuid=\(daemonUser) --regid=\(socketGroup) --clear-groups \\
            sh -c "test -e /proc/$SLEEPER && echo visible || echo hidden" >$D/daemon-sees-operator
        kill $SLEEPER
        # the operator: primary group its own, the socket's group supplementary
        as \(operatorUser) --groups=\(socketGroup) "$EV" status --control-socket $SOCK >$D/operator-status.out 2>&1
        echo $? >$D/operator-status.rc
        as \(operatorUser) --groups=\(socketGroup) "$EV" ctl state --control-socket $SOCK >$D/operator-ctl.out 2>&1
        echo $? >$D/operator-ctl.rc
        # outside the group: the socket's mode refuses it, and so does the daemon when the mode would not
        as \(outsider) --clear-groups "$EV" status --control-socket $SOCK >$D/outsider-mode.out 2>&1
        echo $? >$D/outsider-mode.rc
        chmod 0666 $SOCK
        as \(outsider) --clear-groups "$EV" status --control-socket $SOCK >$D/outsider-daemon.out 2>&1
        echo $? >$D/outsider-daemon.rc
        as \(outsider) --clear-groups "$EV" ctl state --control-socket $SOCK >$D/outsider-ctl.out 2>&1
        echo $? >$D/outsider-ctl.rc
        kill -TERM $DPID
        wait $DPID
        echo $? >$D/daemon.rc
        """

    @Test("under hidepid=invisible: an operator with the socket's group as supplementary group is served, a uid outside it is refused",
          .enabled(if: missingPrerequisite == nil, Comment(rawValue: "skipped: \(missingPrerequisite ?? "")")))
    func hidepidOperatorAccess() throws {
        let scratch = Scratch("evroute-daemon-test")
        defer { scratch.cleanUp() }
        let binary = try #require(evrouteBinaryPath())
        chmod(scratch.path, 0o755)
        mkdir(scratch.file("run"), 0o755)
        chmod(scratch.file("run"), 0o755)  // mkdir's mode is masked by the umask (CI may run with 077)
        chown(scratch.file("run"), Self.daemonUser, Self.socketGroup)
        let config = scratch.write("evroute.yaml", """
            displays: [{ name: main, size: [1280, 800] }]
            screens:
              - name: home
                display: main
                root: { name: root, frame: [0, 0, 1280, 800] }

            """)
        let script = scratch.write("access.sh", Self.script)
        // other uids read these whatever the umask the tests run under (CI may run with 077)
        chmod(config, 0o644)
        chmod(script, 0o644)
        let result = Self.run(["timeout", "60", "unshare", "--mount", "--propagation", "private", "--fork",
                               "sh", script, scratch.path, binary, config])
        func file(_ name: String) -> String { (scratch.read(name) ?? "(missing)").trimmingTrailingNewlines }
        let log = file("daemon.log")
        try #require(result.status == 0, "the namespace script failed (\(result.status)): \(result.output)\ndaemon log:\n\(log)")

        expect(file("proc.mountinfo").contains("hidepid=invisible"), "proc in the namespace: \(file("proc.mountinfo"))")
        expectEqual(file("daemon.ids"), "\(Self.daemonUser) \(Self.socketGroup)")
        expectEqual(file("socket.mode"), "660 \(Self.socketGroup)")
        expectEqual(file("daemon-sees-operator"), "hidden", "the daemon's user must not see the operator's /proc/PID")

        expectEqual(file("operator-status.rc"), "0", "evroute status as the operator: \(file("operator-status.out"))\n\(log)")
        expect(file("operator-status.out").contains("daemon, pid"))
        expectEqual(file("operator-ctl.rc"), "0", "evroute ctl state as the operator: \(file("operator-ctl.out"))\n\(log)")
        expect(file("operator-ctl.out").contains("display main: home"))

        expectEqual(file("outsider-mode.rc"), "1")
        expect(file("outsider-mode.out").contains("Permission denied"), "\(file("outsider-mode.out"))")
        expectEqual(file("outsider-daemon.rc"), "1")
        expect(file("outsider-daemon.out").contains("permission denied"), "refused by the daemon: \(file("outsider-daemon.out"))")
        expectEqual(file("outsider-ctl.rc"), "1")
        expect(file("outsider-ctl.out").contains("permission denied"), "\(file("outsider-ctl.out"))")
        // the daemon refused exactly the two that reached it; the first never got past the file mode
        expectEqual(log.split(separator: "\n").filter { $0.contains("refused a client without permission") }.count, 2, "\(log)")
        expectEqual(file("daemon.rc"), "0", "\(log)")
        print("operator access under hidepid=invisible: operator served (status, ctl state), outsider refused by mode and by the daemon")
    }
}

extension String {
    fileprivate var trimmingTrailingNewlines: String {
        var s = self
        while s.hasSuffix("\n") { s.removeLast() }
        return s
    }
}
