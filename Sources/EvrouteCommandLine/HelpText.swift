/// Help, usage lines, the man page and shell completions, all derived from the ``Command`` table.
public enum HelpText {
    /// `evroute check [--config <file>] [<file>]`.
    public static func usage(for command: Command, path: [String]) -> String {
        var parts = [path.joined(separator: " ")]
        if !command.subcommands.isEmpty { parts.append(command.run == nil && command.defaultSubcommand == nil ? "<command>" : "[<command>]") }
        for option in command.options where !option.isHidden {
            let text = option.kind == .flag ? "--\(option.name)" : "--\(option.name) <\(option.valueName)>"
            parts.append(option.kind == .repeated ? "[\(text) ...]" : "[\(text)]")
        }
        for argument in command.arguments { parts.append(argument.synopsis) }
        return parts.joined(separator: " ")
    }

    /// The `--help` text.
    public static func help(for command: Command, path: [String]) -> String {
        var out = "OVERVIEW: \(command.abstract)\n"
        if !command.discussion.isEmpty { out += "\n" + command.discussion + "\n" }
        out += "\nUSAGE: \(usage(for: command, path: path))\n"
        if !command.arguments.isEmpty {
            out += "\nARGUMENTS:\n"
            out += table(command.arguments.map { ($0.synopsis, $0.help) })
        }
        var options = command.options.filter { !$0.isHidden } + [CommandLineParser.help]
        if path.count == 1 { options.append(CommandLineParser.version) }
        out += "\nOPTIONS:\n"
        out += table(options.map { option in
            var help = option.help
            if !option.choices.isEmpty && !help.contains(option.choices[0]) { help += " (\(option.choices.joined(separator: ", ")))" }
            if let d = option.defaultValue { help += " (default: \(d))" }
            return (option.synopsis, help)
        })
        if !command.subcommands.isEmpty {
            out += "\nSUBCOMMANDS:\n"
            out += table(command.visibleSubcommands.map { sub in
                (sub.name + (sub.name == command.defaultSubcommand ? " (default)" : ""), sub.abstract)
            })
            out += "\n  See '\(path.joined(separator: " ")) help <subcommand>' for detailed help.\n"
        }
        if let sub = command.defaultCommand, let name = command.defaultSubcommand {
            out += "\nOPTIONS OF '\(path.joined(separator: " ")) \(name)' (THE DEFAULT SUBCOMMAND):\n"
            out += table(sub.options.filter { !$0.isHidden }.map { ($0.synopsis, $0.help) })
        }
        return out
    }

    static func table(_ rows: [(String, String)]) -> String {
        let width = min(30, (rows.map(\.0.count).max() ?? 0) + 2)
        var out = ""
        for (left, right) in rows {
            if left.count + 2 > width {
                out += "  \(left)\n" + String(repeating: " ", count: width + 2) + right + "\n"
            } else {
                out += "  " + left + String(repeating: " ", count: width - left.count) + right + "\n"
            }
        }
        return out
    }
}
