import Foundation
import Testing
import EvrouteChecks
import EvrouteTestSupport

/// `make deb` (scripts/make-deb.sh) on the binary the tests run: the package holds every file the
/// deployment needs, its maintainer scripts start nothing, and lintian finds no error in it.
@Suite("make deb")
struct DebianPackageTests {
    @Test func packageHoldsEverythingAndLintianFindsNoError() throws {
        let make = try requireProgram("make", package: "make")
        let lintian = try requireProgram("lintian", package: "lintian")
        let out = NSTemporaryDirectory() + "evroute-deb-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: out) }
        let r = try TestProcess.run(make, ["-C", packageRoot, "--no-print-directory", "deb", "BIN=\(try evrouteBinary())", "DEB_DIR=\(out)"])
        expectEqual(r.status, 0, "\(r.out)\(r.err)")
        let debs = (try? FileManager.default.contentsOfDirectory(atPath: out))?.filter { $0.hasSuffix(".deb") } ?? []
        let deb = "\(out)/\(try #require(debs.first, "no .deb in \(out): \(r.out)"))"

        let contents = try TestProcess.run("/usr/bin/dpkg-deb", ["-c", deb]).out
        for path in ["./usr/bin/evroute", "./usr/lib/systemd/system/evroute.service", "./usr/lib/sysusers.d/evroute.conf",
                     "./usr/lib/tmpfiles.d/evroute.conf", "./usr/lib/systemd/catalog/evroute.catalog", "./usr/share/man/man1/evroute.1.gz", "./usr/share/man/man1/evroute-ctl.1.gz",
                     "./usr/share/man/man5/evroute.yaml.5.gz",
                     "./usr/share/bash-completion/completions/evroute", "./usr/share/zsh/vendor-completions/_evroute",
                     "./usr/share/fish/vendor_completions.d/evroute.fish", "./usr/share/doc/evroute/examples/kiosk.yaml",
                     "./usr/share/doc/evroute/copyright", "./usr/share/doc/evroute/changelog.Debian.gz", "./etc/evroute/evroute.yaml"] {
            expect(contents.contains(" \(path)\n"), "\(path) missing from the package")
        }
        // The copyright file names the MIT licence of LICENSE, with its text, and the test recordings' own.
        let unpacked = out + "/root"
        try expectEqual(try TestProcess.run("/usr/bin/dpkg-deb", ["-x", deb, unpacked]).status, 0)
        let copyright = try String(contentsOfFile: unpacked + "/usr/share/doc/evroute/copyright", encoding: .utf8)
        expect(copyright.contains("Files: *\nCopyright: 2026 the evroute authors\nLicense: MIT\n"), "\(copyright)")
        expect(copyright.contains("Files: Tests/Fixtures/recordings/*"), "\(copyright)")
        let licenceText = try String(contentsOfFile: packageRoot + "/LICENSE", encoding: .utf8)
            .split(separator: "\n").filter { $0.hasPrefix("Permission is hereby granted") || $0.hasPrefix("THE SOFTWARE IS PROVIDED") }
        expectEqual(licenceText.count, 2)
        for line in licenceText { expect(copyright.contains(" " + line + "\n"), "the licence text lacks: \(line)") }
        let control = try TestProcess.run("/usr/bin/dpkg-deb", ["-f", deb]).out
        for dependency in ["libc6", "libevdev2", "libudev1", "libyaml-0-2", "libxkbcommon0", "xkb-data"] {
            expect(control.contains(dependency), "Depends lacks \(dependency): \(control)")
        }

        // The maintainer scripts set up the user and directories and reload systemd; none enables or starts the service.
        let scripts = out + "/control"
        try expectEqual(try TestProcess.run("/usr/bin/dpkg-deb", ["-e", deb, scripts]).status, 0)
        let postinst = try String(contentsOfFile: scripts + "/postinst", encoding: .utf8)
        expect(postinst.contains("systemd-sysusers evroute.conf") && postinst.contains("systemd-tmpfiles --create evroute.conf"))
        expect(postinst.contains("daemon-reload"))
        expect(postinst.contains("journalctl --update-catalog"))
        for name in ["postinst", "prerm", "postrm"] {
            let commands = try String(contentsOfFile: scripts + "/" + name, encoding: .utf8)
                .split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("#") }.joined(separator: "\n")
            expect(!commands.contains("systemctl enable") && !commands.contains("systemctl start") && !commands.contains("--now"), "\(name) starts the service")
        }
        try expectEqual(try String(contentsOfFile: scripts + "/conffiles", encoding: .utf8), "/etc/evroute/evroute.yaml\n")

        // The binary here is the tests' debug build, linked to the toolchain's Swift runtime by
        // RUNPATH; the release build `make deb` packages has the runtime inside and no RUNPATH
        // (`make test` lints that package too: the deb-check target).
        let check = try TestProcess.run(lintian, ["--tag-display-limit", "0", "--suppress-tags", "custom-library-search-path", deb])
        let errors = check.out.split(separator: "\n").filter { $0.hasPrefix("E: ") }
        expect(errors.isEmpty, "lintian errors:\n\(errors.joined(separator: "\n"))")
    }
}
