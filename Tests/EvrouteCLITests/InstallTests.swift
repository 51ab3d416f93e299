import Foundation
import Testing
import EvrouteChecks
import EvrouteTestSupport

/// `make install` into a staged DESTDIR from an existing build (no build, no apt-get): the binary
/// answers `--version`, the man pages and completions are where man and the shells look, the
/// example layouts are under the doc directory; `make uninstall` takes them away again but
/// leaves the config.
@Suite("make install")
struct InstallTests {
    @Test func installsBinaryManPagesCompletionsAndExamplesThenUninstalls() throws {
        let make = try requireProgram("make", package: "make")
        let stage = NSTemporaryDirectory() + "evroute-stage-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: stage) }
        let binary = try evrouteBinary()
        let args = ["-C", packageRoot, "--no-print-directory", "DESTDIR=\(stage)", "PREFIX=/usr", "BIN=\(binary)"]
        let r = try TestProcess.run(make, ["install"] + args)
        expectEqual(r.status, 0, "\(r.out)\(r.err)")
        expect(!r.out.contains("swift build") && !r.out.contains("apt-get"), "install built or called apt:\n\(r.out)")
        let expected = [
            "usr/bin/evroute", "usr/share/man/man1/evroute.1", "usr/share/man/man1/evroute-check.1", "usr/share/man/man1/evroute-ctl.1",
            "usr/share/man/man5/evroute.yaml.5",
            "usr/share/bash-completion/completions/evroute", "usr/share/zsh/vendor-completions/_evroute",
            "usr/share/fish/vendor_completions.d/evroute.fish", "usr/lib/systemd/system/evroute.service",
            "usr/lib/sysusers.d/evroute.conf", "usr/lib/tmpfiles.d/evroute.conf", "usr/lib/systemd/catalog/evroute.catalog", "etc/evroute/evroute.yaml",
            "usr/share/doc/evroute/examples/ui-two-pages.yaml", "usr/share/doc/evroute/examples/kiosk.yaml",
            "usr/share/doc/evroute/examples/browser-kiosk.yaml",
            "usr/lib/udev/rules.d/70-evroute-uinput.rules", "usr/lib/modules-load.d/evroute.conf",
        ]
        for path in expected {
            expect(FileManager.default.fileExists(atPath: "\(stage)/\(path)"), "\(path) not installed")
        }
        let version = try TestProcess.run("\(stage)/usr/bin/evroute", ["--version"])
        expect(version.status == 0 && version.out.hasPrefix("evroute ") && version.out.split(separator: " ").count == 2, "\(version)")
        let page = try String(contentsOfFile: "\(stage)/usr/share/man/man1/evroute.1", encoding: .utf8)
        expect(page.contains(version.out.split(separator: " ")[1].trimmingCharacters(in: .whitespacesAndNewlines)), "the man page names another version")
        let unit = try String(contentsOfFile: "\(stage)/usr/lib/systemd/system/evroute.service", encoding: .utf8)
        expect(unit.contains("ExecStart=/usr/bin/evroute"))
        // Forwarding: the hardened unit may open /dev/uinput (and the input nodes), nothing more.
        expect(unit.contains("DeviceAllow=/dev/uinput rw") && unit.contains("DevicePolicy=closed"))
        // The metrics textfile's directory: made by tmpfiles.d for evroute, the unit's one writable
        // place besides /run/evroute.
        let tmpfiles = try String(contentsOfFile: "\(stage)/usr/lib/tmpfiles.d/evroute.conf", encoding: .utf8)
        expect(tmpfiles.contains("\nd /var/lib/evroute/metrics 0755 evroute evroute -\n"))
        expectEqual(unit.split(separator: "\n").filter { $0.hasPrefix("ReadWritePaths=") }, ["ReadWritePaths=-/var/lib/evroute/metrics"])
        let rule = try String(contentsOfFile: "\(stage)/usr/lib/udev/rules.d/70-evroute-uinput.rules", encoding: .utf8)
        let users = try String(contentsOfFile: "\(stage)/usr/lib/sysusers.d/evroute.conf", encoding: .utf8)
        expect(rule.contains("GROUP=\"evroute-uinput\"") && users.contains("m evroute evroute-uinput"))

        // Without a build to install, install says what to do instead of building one.
        let missing = try TestProcess.run(make, ["install", "-C", packageRoot, "DESTDIR=\(stage)", "BIN=\(stage)/nothing-here"])
        expect(missing.status != 0 && missing.out.contains("run 'make release' first"), "\(missing)")

        let u = try TestProcess.run(make, ["uninstall"] + args)
        expectEqual(u.status, 0, "\(u.err)")
        for path in expected where path != "etc/evroute/evroute.yaml" {
            expect(!FileManager.default.fileExists(atPath: "\(stage)/\(path)"), "\(path) left behind by uninstall")
        }
        expect(FileManager.default.fileExists(atPath: "\(stage)/etc/evroute/evroute.yaml"), "uninstall removed the user's config")
    }
}
