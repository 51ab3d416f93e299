#if canImport(Glibc)
import Glibc
#endif
import EvrouteCommandLine
import EvrouteConfig
import EvrouteCore
import EvrouteDaemon
import EvrouteRuntime
import EvrouteSystem

extension EvrouteCLI {
    /// `evroute __generate man DIR | bash | zsh | fish`: the man pages and shell completions, made
    /// from the command table at build or install time (hidden: not a user's command).
    static let generate: Command = Command(
        "__generate", abstract: "Write the man pages (into DIR) or print a shell's completion script.",
        arguments: [
            CommandArgument("what", help: "man, bash, zsh or fish."),
            CommandArgument("directory", help: "For man: the directory the pages are written to.", optional: true),
        ],
        hidden: true,
        run: { p in
            let what = p.argument("what") ?? ""
            if let shell = ShellCompletion.Shell(rawValue: what) {
                writeOut(ShellCompletion.script(for: root, shell: shell))
                return
            }
            guard what == "man" else { throw p.usageError("'\(what)' is not one of: man, bash, zsh, fish") }
            guard let directory = p.argument("directory") else { throw p.usageError("man needs the directory to write the pages into") }
            let pages = ManualPage.pages(for: root, version: evrouteVersion, sections: manualSections, commonSections: [exitStatusSection],
                                         seeAlso: ["evroute.yaml(5)"]) + [layoutPage]
            for page in pages {
                do {
                    try SystemCall.writeFile(directory + "/" + page.fileName, page.text)
                } catch {
                    throw failure("\(error)")
                }
            }
        })

    /// `evroute.yaml(5)`: the layout file, every key from ``LayoutSchema`` (written next to the
    /// section-1 pages; `make install` puts it in man5).
    static var layoutPage: ManualPage.Page {
        ManualPage.filePage(
            name: "evroute.yaml", summary: "the layout file of evroute", tool: "evroute", version: evrouteVersion,
            description: """
                evroute reads its layout from \(ConfigLoader.defaultPath) (or the file given with --config): a YAML \
                document of displays, device rules, plugins, screens of nested regions with their handlers \
                and gestures, the application and fallback handlers, motion and metrics. Coordinates and sizes \
                are in display units; times are in the unit the key's name ends in (-s, -ms).

                evroute check reads a layout without running it and prints every error as file:line:col. \
                A key not listed here is refused (with a did-you-mean for a near miss), except where a \
                mapping takes options: a plugin's and a handler's other keys are options of the plugin.
                """,
            sections: layoutSections, example: ConfigLoader.builtInDefaultYAML,
            seeAlso: ["evroute(1)", "evroute-check(1)"])
    }

    /// The sections of `evroute.yaml(5)`: the layout's keys, then the plugin types' options.
    static var layoutSections: [ManualPage.KeySection] {
        [ManualPage.KeySection("Keys", "The top level and, indented under each key, the keys inside it.", keys: LayoutSchema.top)]
            + PluginTypes.declarations.map { type in
                ManualPage.KeySection("Plugin type \(type.type)", "A plugin of type \(type.type) (plugins: [{ name: NAME, type: \(type.type), … }]) and its handlers.", keys: [
                    ConfigKey("plugin options", .mapping, "Keys on the plugin, beside name and type.", keys: type.pluginKeys),
                    ConfigKey("handler options", .mapping, "Keys on a handler of the plugin, beside plugin, on and devices.", keys: type.handlerKeys),
                ])
            }
            + [ManualPage.KeySection("Routing built-in plugins", "Plugins that act on routing itself, each with an instance named like its type: the options of their handlers.",
                                     keys: LayoutSchema.routingHandlerOptions.map { ConfigKey("\($0.type)", .mapping, "A handler of \($0.type).", keys: $0.keys) })]
    }

    /// EXIT STATUS, on every page.
    static let exitStatusSection = ManualPage.Section("Exit status", """
        0
          success (the daemon: a clean stop on SIGTERM or SIGINT).
        1
          errors were found: a config error (printed as file:line:col), a failed request,
          a device or socket that cannot be opened.
        2
          a usage error: an unknown command or option, a missing or malformed argument.
        """)

    /// The tool page's FILES, ENVIRONMENT and SIGNALS.
    static let manualSections: [ManualPage.Section] = [
        .init("Files", """
            \(ConfigLoader.defaultPath)
              the layout read when --config is not given (the built-in default when it does not exist).
            \(ControlClient.defaultPath)
              the control socket (status, reload, ctl); mode 0660, group evroute under the shipped unit.
            """),
        .init("Environment", """
            NOTIFY_SOCKET, WATCHDOG_USEC, WATCHDOG_PID
              set by systemd: the daemon reports READY=1, RELOADING=1, STOPPING=1 and WATCHDOG=1.
            JOURNAL_STREAM
              when it names standard error, the daemon sends its entries to journald's native socket
              (/run/systemd/journal/socket) with PRIORITY, a MESSAGE_ID per kind of message and the
              EVROUTE_DEVICE, EVROUTE_PLUGIN, EVROUTE_REGION, EVROUTE_SCREEN fields (journalctl -u
              evroute EVROUTE_DEVICE=touch); without that socket, lines with syslog priority prefixes.
              Info and debug lines (a log handler writes one per event) go out in batches, at most
              250 ms after the first of them; notices, warnings and errors at once.
            EVROUTE_JOURNAL_SOCKET
              another socket for those entries (tests).
            """),
        .init("Signals", """
            SIGHUP
              reload the layout (read and compiled off the event loop, which goes on routing); a bad
              one is refused with file:line:col and the running one kept.
            SIGTERM, SIGINT
              cancel every touch still down, drain the plugins and exit 0.
            """),
    ]
}
