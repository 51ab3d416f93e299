import Foundation
import Testing
import EvrouteChecks
import EvrouteConfig
import EvrouteDaemon
import EvrouteTestSupport

/// The path of a program on PATH, or a test failure saying which package `make test` installs it from.
func requireProgram(_ name: String, package: String) throws -> String {
    for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
        let candidate = "\(dir)/\(name)"
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
    }
    throw TestSupportError("\(name) is not installed (Debian package \(package); `make test` installs it)")
}

/// The man pages and shell completions `make install` installs, made by `evroute __generate`
/// from the one command table, checked by the real tools: man(1) renders every page without a
/// warning, and bash, zsh and fish complete real command lines with them.
@Suite("Man pages and shell completions")
struct ManualAndCompletionTests {
    func generatedPages() throws -> (dir: String, names: [String]) {
        let dir = NSTemporaryDirectory() + "evroute-man-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let r = try runEvroute(["__generate", "man", dir])
        expectEqual(r.status, 0, "\(r.err)")
        return (dir, try FileManager.default.contentsOfDirectory(atPath: dir).sorted())
    }

    @Test func onePagePerCommandEachRenderingWithoutWarnings() throws {
        let man = try requireProgram("man", package: "man-db")
        let (dir, names) = try generatedPages()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for command in ["check", "ctl", "devices", "hit", "calibrate", "record", "reload", "route", "status", "tree"] {
            expect(names.contains("evroute-\(command).1"), "\(names)")
        }
        expect(names.contains("evroute.1"))
        expect(!names.contains { $0.contains("__generate") }, "a hidden command got a page")
        for name in names where name.hasSuffix(".1") {
            let r = try TestProcess.run(man, ["--warnings", "-l", "\(dir)/\(name)"], environment: .only(["MANWIDTH": "80", "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"]))
            expect(r.status == 0 && r.err.isEmpty, "\(name): \(r.err)")
            expect(r.out.contains("NAME") && r.out.contains("SYNOPSIS") && r.out.contains("EXIT STATUS"), "\(name)")
        }
        let page = try TestProcess.run(man, ["-l", "\(dir)/evroute.1"], environment: .only(["MANWIDTH": "200", "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"])).out
        // Every option of the default command and the exit codes, as help has them.
        for option in ["--config", "--dry-run", "--replay", "--format", "--control-socket", "--version"] {
            expect(page.contains(option), "\(option) missing from evroute(1)")
        }
        expect(page.contains("a usage error: an unknown command or option"))
        expect(page.contains("evroute.yaml(5)"), "evroute(1)'s SEE ALSO does not name the layout file's page")
        let ctl = try TestProcess.run(man, ["-l", "\(dir)/evroute-ctl.1"], environment: .only(["MANWIDTH": "200", "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"])).out
        for sub in ["present", "dismiss", "focus", "hide", "show", "disable", "enable", "frame", "regions", "action", "state", "replay"] {
            expect(ctl.contains("evroute ctl \(sub)"), "ctl \(sub) missing from evroute-ctl(1)")
        }
    }

    /// `evroute.yaml(5)`, made from the layout's schema: it renders without a warning, and names
    /// every key of the schema (each with its type).
    @Test func layoutFilePageRendersEveryKeyOfTheSchema() throws {
        let man = try requireProgram("man", package: "man-db")
        let (dir, names) = try generatedPages()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        expect(names.contains("evroute.yaml.5"), "\(names)")
        let checked = try TestProcess.run(man, ["--warnings", "-l", "\(dir)/evroute.yaml.5"], environment: .only(["MANWIDTH": "80", "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"]))
        expect(checked.status == 0 && checked.err.isEmpty, "evroute.yaml.5: \(checked.err)")
        // Wide, so that no key or type is hyphenated across lines.
        let page = try TestProcess.run(man, ["-l", "\(dir)/evroute.yaml.5"], environment: .only(["MANWIDTH": "400", "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"])).out
        for section in ["NAME", "DESCRIPTION", "KEYS", "EXAMPLE", "SEE ALSO"] { expect(page.contains("\n\(section)\n"), "\(section) missing") }
        expect(page.contains("evroute(1)") && page.contains("evroute-check(1)"))
        var count = 0
        func walk(_ keys: [ConfigKey], _ path: String) {
            for key in keys {
                count += 1
                expect(page.contains("\(key.name) (\(key.typeDescription)"), "\(path)\(key.name) missing from evroute.yaml(5)")
                walk(key.keys, path + key.name + ".")
            }
        }
        walk(LayoutSchema.top, "")
        expect(count > 100, "the schema has \(count) keys")
        // Every hosted plugin type's keys, and the routing built-ins' handler options, each in its section.
        for type in PluginTypes.declarations {
            expect(page.contains("\nPLUGIN TYPE \(type.type.rawValue.uppercased())\n"), "no section for plugin type \(type.type)")
            walk(type.pluginKeys + type.handlerKeys, "\(type.type).")
        }
        walk(LayoutSchema.routingHandlerOptions.flatMap(\.keys), "routing.")
        expect(page.contains("\nROUTING BUILT-IN PLUGINS\n"))
        expect(page.contains("- name: main"), "the example is missing")
    }

    func script(_ shell: String) throws -> String {
        let r = try runEvroute(["__generate", shell])
        expectEqual(r.status, 0, "\(r.err)")
        let path = NSTemporaryDirectory() + "evroute-completion-\(UUID().uuidString).\(shell)"
        try r.out.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func bashCompletesCommandsOptionsAndChoices() throws {
        let bash = try requireProgram("bash", package: "bash")
        let path = try script("bash")
        defer { try? FileManager.default.removeItem(atPath: path) }
        func complete(_ words: [String]) throws -> [String] {
            let quoted = words.map { "'\($0)'" }.joined(separator: " ")
            let r = try TestProcess.run(bash, ["-c", "source '\(path)'; COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1); _evroute; printf '%s\\n' \"${COMPREPLY[@]}\""])
            expectEqual(r.status, 0, "\(r.err)")
            return r.out.split(separator: "\n").map(String.init)
        }
        try expectEqual(try complete(["evroute", "ch"]), ["check"])
        try expectEqual(try complete(["evroute", "check", "--fo"]), ["--format"])
        try expectEqual(try complete(["evroute", "check", "--format", ""]), ["text", "json"])
        try expectEqual(try complete(["evroute", "--dry"]), ["--dry-run"])
        try expectEqual(try complete(["evroute", "ctl", "pr"]), ["present"])
        try expectEqual(try complete(["evroute", "ctl", "state", "--format", "j"]), ["json"])
        try expect(try complete(["evroute", "__gen"]).isEmpty, "a hidden command is completed")
    }

    @Test func fishCompletesCommandsOptionsAndChoices() throws {
        let fish = try requireProgram("fish", package: "fish")
        let path = try script("fish")
        defer { try? FileManager.default.removeItem(atPath: path) }
        func complete(_ line: String) throws -> [String] {
            let r = try TestProcess.run(fish, ["--no-config", "-c", "source '\(path)'; complete -C '\(line)'"])
            expectEqual(r.status, 0, "\(r.err)")
            return r.out.split(separator: "\n").map { String($0.split(separator: "\t").first ?? "") }
        }
        try expectEqual(try complete("evroute ch"), ["check"])
        try expectEqual(try complete("evroute check --fo"), ["--format"])
        try expectEqual(try complete("evroute check --format ").sorted(), ["json", "text"])
        try expectEqual(try complete("evroute ctl pr"), ["present"])
        try expectEqual(try complete("evroute --dry"), ["--dry-run"])
    }

    /// zsh completes only in an interactive shell with its line editor: the script is loaded by
    /// compinit from fpath in a zsh on a pseudo-terminal (zsh/zpty), a line and TAB are typed,
    /// and the completed line is read back.
    @Test func zshCompletesCommandsOptionsAndChoices() throws {
        let zsh = try requireProgram("zsh", package: "zsh")
        let dir = NSTemporaryDirectory() + "evroute-zsh-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let generated = try runEvroute(["__generate", "zsh"])
        try generated.out.write(toFile: "\(dir)/_evroute", atomically: true, encoding: .utf8)
        try expectEqual(try TestProcess.run(zsh, ["-n", "\(dir)/_evroute"]).status, 0)
        let driver = """
            setopt extendedglob
            zmodload zsh/zpty
            zpty z zsh -f -i
            zpty -w z 'PS1="%% "; fpath=(\(dir) $fpath); autoload -Uz compinit; compinit -u -D; evroute() {}; echo REA""DY'
            line=""; while zpty -r z line; do [[ $line == *READY* ]] && break; done
            for input expected in "evroute ch" "evroute check " "evroute ctl pr" "evroute ctl present " "evroute ctl state --format j" "evroute ctl state --format json " "evroute --dry" "evroute --dry-run "; do
              zpty -w -n z "$input"$'\\t'
              got=""; chunk=""; clean=""
              for i in {1..100}; do
                zpty -r -t z chunk && got+="$chunk"
                clean=${${got//$'\\e'\\[[0-9;?]#[A-Za-z]/}//[$'\\a\\r']/}
                [[ $clean == *"$expected"* ]] && break
                sleep 0.05
              done
              [[ $clean == *"$expected"* ]] && print "ok: $input" || print "FAILED: $input"
              zpty -w -n z $'\\C-u'
              sleep 0.1; zpty -r -t z chunk
            done
            zpty -d z
            """
        try driver.write(toFile: "\(dir)/driver.zsh", atomically: true, encoding: .utf8)
        let r = try TestProcess.run(zsh, ["-f", "\(dir)/driver.zsh"])
        expectEqual(r.out.split(separator: "\n").filter { $0.hasPrefix("ok: ") }.count, 4, "\(r.out)\(r.err)")
        expect(!r.out.contains("FAILED"), "\(r.out)")
    }
}
