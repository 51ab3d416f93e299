import EvrouteConfig

/// Man pages (roff, `man 7 man` macros) derived from the ``Command`` table: one page for the
/// tool (`evroute(1)`) and one per visible subcommand (`evroute-check(1)`, `evroute-ctl(1)` with
/// its own subcommands), as git and systemd ship theirs. Hidden commands and options are left out.
public enum ManualPage {
    /// A section the table does not know (EXIT STATUS, FILES, ENVIRONMENT, …): a title and
    /// paragraphs of plain text, or terms each followed by its definition indented two spaces.
    public struct Section: Sendable {
        public let title: String
        public let text: String
        public init(_ title: String, _ text: String) {
            self.title = title
            self.text = text
        }
    }

    /// One page: its file name (`evroute-check.1`) and roff text.
    public struct Page: Sendable {
        public let fileName: String
        public let text: String
    }

    /// Every page of `root`: the tool's page first, then one per visible subcommand. `sections`
    /// follow DESCRIPTION…COMMANDS on the tool's page; `commonSections` (EXIT STATUS, say) go on
    /// every page.
    /// `seeAlso` adds pages (`evroute.yaml(5)`) to the tool page's SEE ALSO.
    public static func pages(for root: Command, version: String, sections: [Section] = [],
                             commonSections: [Section] = [], seeAlso: [String] = []) -> [Page] {
        let subPages = root.visibleSubcommands.map { page(for: $0, path: [root.name, $0.name], root: root, version: version, commonSections: commonSections) }
        var out = ".TH \(title(root.name)) 1 \"\" \"\(escape(root.name)) \(escape(version))\" \"User Commands\"\n"
        out += ".SH NAME\n\(escape(root.name)) \\- \(escape(root.abstract))\n"
        out += ".SH SYNOPSIS\n" + synopsis(root, path: [root.name])
        for sub in root.visibleSubcommands { out += synopsis(sub, path: [root.name, sub.name]) }
        if !root.discussion.isEmpty { out += ".SH DESCRIPTION\n" + paragraphs(root.discussion) }
        var options = root.visibleOptions
        if let sub = root.defaultCommand { options += sub.visibleOptions }
        out += ".SH OPTIONS\n" + optionItems(options + [CommandLineParser.help, CommandLineParser.version])
        if !root.visibleSubcommands.isEmpty {
            out += ".SH COMMANDS\n"
            for sub in root.visibleSubcommands {
                out += ".TP\n.B \(escape(root.name)) \(escape(sub.name))\n\(escape(sub.abstract))"
                out += " See \\fB\(escape(root.name))-\(escape(sub.name))\\fR(1).\n"
            }
        }
        for section in sections + commonSections { out += render(section) }
        out += ".SH SEE ALSO\n" + (root.visibleSubcommands.map { "\\fB\(escape(root.name))-\(escape($0.name))\\fR(1)" } + seeAlso.map(reference))
            .joined(separator: ",\n") + "\n"
        return [Page(fileName: "\(root.name).1", text: out)] + subPages
    }

    static func page(for command: Command, path: [String], root: Command, version: String, commonSections: [Section]) -> Page {
        let name = path.joined(separator: "-")
        var out = ".TH \(title(name)) 1 \"\" \"\(escape(root.name)) \(escape(version))\" \"User Commands\"\n"
        out += ".SH NAME\n\(escape(name)) \\- \(escape(command.abstract))\n"
        out += ".SH SYNOPSIS\n" + synopsis(command, path: path)
        for sub in command.visibleSubcommands { out += synopsis(sub, path: path + [sub.name]) }
        out += ".SH DESCRIPTION\n" + paragraphs(command.discussion.isEmpty ? command.abstract : command.discussion)
        if !command.arguments.isEmpty {
            out += ".SH ARGUMENTS\n"
            for argument in command.arguments { out += ".TP\n.I \(escape(argument.name))\(argument.isRepeated ? " ..." : "")\n\(escape(argument.help))\n" }
        }
        out += ".SH OPTIONS\n" + optionItems(command.visibleOptions + [CommandLineParser.help])
        if !command.visibleSubcommands.isEmpty {
            out += ".SH COMMANDS\n"
            for sub in command.visibleSubcommands {
                out += ".SS \(escape((path + [sub.name]).joined(separator: " ")))\n" + paragraphs(sub.discussion.isEmpty ? sub.abstract : sub.discussion)
                for argument in sub.arguments { out += ".TP\n.I \(escape(argument.name))\(argument.isRepeated ? " ..." : "")\n\(escape(argument.help))\n" }
                // Options the group already lists (given before or after the subcommand) are not repeated.
                let own = sub.visibleOptions.filter { option in !command.options.contains { $0.name == option.name } }
                if !own.isEmpty { out += optionItems(own) }
            }
        }
        for section in commonSections { out += render(section) }
        out += ".SH SEE ALSO\n\\fB\(escape(root.name))\\fR(1)\n"
        return Page(fileName: "\(name).1", text: out)
    }

    /// `.SY`-free synopsis (portable to mandoc and groff): the usage line of ``HelpText``.
    static func synopsis(_ command: Command, path: [String]) -> String {
        let usage = HelpText.usage(for: command, path: path)
        let words = usage.split(separator: " ", maxSplits: path.count, omittingEmptySubsequences: true)
        let rest = words.count > path.count ? String(words[path.count]) : ""
        return ".PP\n.B \(escape(path.joined(separator: " ")))\n" + (rest.isEmpty ? "" : escape(rest) + "\n")
    }

    static func optionItems(_ options: [CommandOption]) -> String {
        var out = ""
        for option in options {
            var head = option.short.map { "\\fB\\-\(escape(String($0)))\\fR, " } ?? ""
            head += "\\fB\\-\\-\(escape(option.name))\\fR"
            if option.kind != .flag { head += " \\fI\(escape(option.valueName))\\fR" }
            var help = option.help
            if !option.choices.isEmpty && !help.contains(option.choices[0]) { help += " One of: \(option.choices.joined(separator: ", "))." }
            if let value = option.defaultValue { help += " Default: \(value)." }
            if option.kind == .repeated { help += " May be given more than once." }
            out += ".TP\n\(head)\n\(escape(help))\n"
        }
        return out
    }

    static func render(_ section: Section) -> String {
        ".SH \(escape(section.title.uppercased()))\n" + paragraphs(section.text)
    }

    /// Paragraphs separated by blank lines; an unindented line followed by lines indented two
    /// spaces is a term and its definition (`.TP`), as EXIT STATUS and FILES are written.
    static func paragraphs(_ text: String) -> String {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var out = ""
        var startParagraph = true
        var index = 0
        while index < lines.count {
            let line = lines[index]
            index += 1
            if line.allSatisfy({ $0 == " " }) { startParagraph = true; continue }
            if !line.hasPrefix(" "), index < lines.count, lines[index].hasPrefix("  ") {
                out += ".TP\n" + escape(line) + "\n"
                while index < lines.count, lines[index].hasPrefix("  ") {
                    out += escape(String(lines[index].drop { $0 == " " })) + "\n"
                    index += 1
                }
                startParagraph = true
                continue
            }
            if startParagraph { out += ".PP\n"; startParagraph = false }
            out += escape(String(line.drop { $0 == " " })) + "\n"
        }
        return out
    }

    static func title(_ name: String) -> String { escape(name.uppercased()) }

    /// The one roff escaper: backslashes, hyphens (as `\-`, so they copy and search as ASCII),
    /// and a control character (`.` or `'`) at the start of a line.
    static func escape(_ text: String) -> String {
        var out = ""
        var atLineStart = true
        for ch in text {
            if atLineStart && (ch == "." || ch == "'") { out += "\\&" }
            switch ch {
            case "\\": out += "\\e"
            case "-": out += "\\-"
            default: out.append(ch)
            }
            atLineStart = ch == "\n"
        }
        return out
    }
}

// MARK: A file format's page

extension ManualPage {
    /// A section of a file-format page made from keys: a title and the keys it describes.
    public struct KeySection: Sendable {
        public let title: String
        /// A paragraph before the keys (may be empty).
        public let text: String
        public let keys: [ConfigKey]
        public init(_ title: String, _ text: String = "", keys: [ConfigKey]) {
            self.title = title
            self.text = text
            self.keys = keys
        }
    }

    /// A section-5 page of a file format (`evroute.yaml(5)`): NAME, DESCRIPTION, one section per
    /// entry of `sections` (every key with its type and range, default and meaning; a mapping's
    /// keys as an indented list under it), EXAMPLE (`example`, shown as written) and SEE ALSO.
    public static func filePage(name: String, summary: String, tool: String, version: String, description: String,
                                sections: [KeySection], example: String, seeAlso: [String]) -> Page {
        var out = ".TH \(title(name)) 5 \"\" \"\(escape(tool)) \(escape(version))\" \"File Formats\"\n"
        out += ".SH NAME\n\(escape(name)) \\- \(escape(summary))\n"
        out += ".SH DESCRIPTION\n" + paragraphs(description)
        for section in sections {
            out += ".SH \(escape(section.title.uppercased()))\n"
            if !section.text.isEmpty { out += paragraphs(section.text) }
            out += keyItems(section.keys)
        }
        out += ".SH EXAMPLE\n.PP\n.EX\n" + escape(example.hasSuffix("\n") ? example : example + "\n") + ".EE\n"
        out += ".SH SEE ALSO\n" + seeAlso.map(reference).joined(separator: ",\n") + "\n"
        return Page(fileName: "\(name).5", text: out)
    }

    /// `evroute-check(1)` as a reference to another page: the name bold, the section after it.
    static func reference(_ page: String) -> String {
        guard let open = page.lastIndex(of: "("), page.hasSuffix(")") else { return escape(page) }
        return "\\fB\(escape(String(page[..<open])))\\fR\(escape(String(page[open...])))"
    }

    /// Each key as a tagged paragraph (`.TP`): `name` (type[, required][, default: …]) and its
    /// meaning; inner keys indented below it (`.RS`/`.RE`).
    static func keyItems(_ keys: [ConfigKey]) -> String {
        var out = ""
        for key in keys {
            var head = "\\fB\(escape(key.name))\\fR (\(escape(key.typeDescription))"
            if key.required { head += ", required" }
            if let value = key.defaultValue { head += ", default: \(escape(value))" }
            head += ")"
            out += ".TP\n\(head)\n\(escape(key.summary.isEmpty ? " " : key.summary))\n"
            if key.takesOtherKeys { out += ".br\n\(escape("Other keys are options (of the plugin, or udev properties)."))\n" }
            if !key.keys.isEmpty { out += ".RS\n" + keyItems(key.keys) + ".RE\n" }
        }
        return out
    }
}
