/// Shell completion scripts for bash, zsh and fish, derived from the ``Command`` table: the
/// subcommands at each level, every visible option, an option's choices as its values, files
/// where an option or argument takes a path. Hidden commands and options are left out.
public enum ShellCompletion {
    /// The shells a script can be made for.
    public enum Shell: String, CaseIterable, Sendable {
        case bash, zsh, fish

        /// Where the script is installed under a prefix (`share/bash-completion/completions/evroute`).
        public func installPath(for tool: String) -> String {
            switch self {
            case .bash: "share/bash-completion/completions/\(tool)"
            case .zsh: "share/zsh/vendor-completions/_\(tool)"
            case .fish: "share/fish/vendor_completions.d/\(tool).fish"
            }
        }
    }

    /// The completion script of `root` for `shell`.
    public static func script(for root: Command, shell: Shell) -> String {
        switch shell {
        case .bash: bash(root)
        case .zsh: zsh(root)
        case .fish: fish(root)
        }
    }

    /// Every visible command with its path, the root first, depth first.
    static func commands(_ root: Command) -> [(path: [String], command: Command)] {
        var out: [(path: [String], command: Command)] = []
        func walk(_ command: Command, _ path: [String]) {
            out.append((path, command))
            for sub in command.visibleSubcommands { walk(sub, path + [sub.name]) }
        }
        walk(root, [root.name])
        return out
    }

    /// The options a command takes: its own, plus its default subcommand's (`evroute --dry-run`).
    static func options(of command: Command, isRoot: Bool) -> [CommandOption] {
        var options = command.visibleOptions
        if let sub = command.defaultCommand { options += sub.visibleOptions }
        options.append(CommandLineParser.help)
        if isRoot { options.append(CommandLineParser.version) }
        return options
    }

    /// The arguments a command takes (the default subcommand's, when it has one).
    static func arguments(of command: Command) -> [CommandArgument] {
        command.arguments.isEmpty ? (command.defaultCommand?.arguments ?? []) : command.arguments
    }

    // MARK: bash

    static func bash(_ root: Command) -> String {
        let function = "_\(identifier(root.name))"
        var out = "# bash completion for \(root.name); generated from its command table (`\(root.name) __generate bash`).\n"
        out += "\(function)() {\n"
        out += "    local cur prev path i word words_for files=0\n"
        out += "    cur=\"${COMP_WORDS[COMP_CWORD]}\"\n"
        out += "    prev=\"${COMP_WORDS[COMP_CWORD-1]}\"\n"
        out += "    path=\(shellQuote(root.name))\n"
        out += "    for ((i = 1; i < COMP_CWORD; i++)); do\n"
        out += "        word=\"${COMP_WORDS[i]}\"\n"
        out += "        case \"$path $word\" in\n"
        let all = commands(root)
        let nested = all.dropFirst().map { shellQuote($0.path.joined(separator: " ")) }
        if !nested.isEmpty { out += "            \(nested.joined(separator: "|"))) path=\"$path $word\" ;;\n" }
        out += "        esac\n"
        out += "    done\n"
        // The value of the option just typed.
        out += "    case \"$path $prev\" in\n"
        for (path, command) in all {
            for option in options(of: command, isRoot: path.count == 1) where option.kind != .flag {
                let key = shellQuote(path.joined(separator: " ") + " --" + option.name)
                if !option.choices.isEmpty {
                    out += "        \(key)) COMPREPLY=($(compgen -W \(shellQuote(option.choices.joined(separator: " "))) -- \"$cur\")); return ;;\n"
                } else if option.completion == .directory {
                    out += "        \(key)) COMPREPLY=($(compgen -d -- \"$cur\")); return ;;\n"
                } else if option.completion == .file {
                    out += "        \(key)) COMPREPLY=($(compgen -f -- \"$cur\")); compopt -o filenames 2>/dev/null; return ;;\n"
                } else {
                    out += "        \(key)) COMPREPLY=(); return ;;\n"
                }
            }
        }
        out += "    esac\n"
        out += "    case \"$path\" in\n"
        for (path, command) in all {
            let words = options(of: command, isRoot: path.count == 1).map { "--" + $0.name } + command.visibleSubcommands.map(\.name)
            let takesFiles = arguments(of: command).contains { $0.completion == .file }
            out += "        \(shellQuote(path.joined(separator: " "))) ) words_for=\(shellQuote(words.joined(separator: " ")))\(takesFiles ? "; files=1" : "") ;;\n"
        }
        out += "    esac\n"
        out += "    COMPREPLY=($(compgen -W \"$words_for\" -- \"$cur\"))\n"
        out += "    if [[ $files == 1 && $cur != -* ]]; then COMPREPLY+=($(compgen -f -- \"$cur\")); compopt -o filenames 2>/dev/null; fi\n"
        out += "}\n"
        out += "complete -F \(function) \(root.name)\n"
        return out
    }

    // MARK: zsh

    static func zsh(_ root: Command) -> String {
        var out = "#compdef \(root.name)\n"
        out += "# zsh completion for \(root.name); generated from its command table (`\(root.name) __generate zsh`).\n\n"
        for (path, command) in commands(root).reversed() {
            let function = "_" + path.map(identifier).joined(separator: "_")
            out += "\(function)() {\n"
            var specs = options(of: command, isRoot: path.count == 1).map(zshOptionSpec)
            if command.visibleSubcommands.isEmpty {
                for argument in arguments(of: command) {
                    let action = argument.completion == .file ? "_files" : argument.completion == .directory ? "_files -/" : " "
                    let prefix = argument.isRepeated ? "*" : argument.isOptional ? ":" : ""
                    specs.append("'\(prefix):\(zshEscape(argument.name)):\(action)'")
                }
                out += "    _arguments -s \\\n        " + specs.joined(separator: " \\\n        ") + "\n"
            } else {
                out += "    local curcontext=\"$curcontext\" state line\n"
                out += "    local -a commands\n"
                out += "    commands=(\n"
                for sub in command.visibleSubcommands { out += "        '\(zshEscape(sub.name)):\(zshEscape(firstSentence(sub.abstract)))'\n" }
                out += "    )\n"
                specs += ["'1: :->command'", "'*:: :->argument'"]
                out += "    _arguments -C -s \\\n        " + specs.joined(separator: " \\\n        ") + "\n"
                out += "    case $state in\n"
                out += "        command) _describe -t commands 'command' commands ;;\n"
                out += "        argument)\n"
                out += "            case $words[1] in\n"
                for sub in command.visibleSubcommands {
                    out += "                \(sub.name)) \(function)_\(identifier(sub.name)) ;;\n"
                }
                out += "            esac ;;\n"
                out += "    esac\n"
            }
            out += "}\n\n"
        }
        out += "_\(identifier(root.name)) \"$@\"\n"
        return out
    }

    static func zshOptionSpec(_ option: CommandOption) -> String {
        let help = "[\(zshEscape(firstSentence(option.help)))]"
        let names: String
        if let short = option.short {
            names = "'(-\(short) --\(option.name))'{-\(short),--\(option.name)}'"
        } else {
            names = "'\(option.kind == .repeated ? "*" : "")--\(option.name)"
        }
        guard option.kind != .flag else { return names + help + "'" }
        let action: String
        if !option.choices.isEmpty {
            action = "(\(option.choices.map(zshEscape).joined(separator: " ")))"
        } else {
            action = option.completion == .file ? "_files" : option.completion == .directory ? "_files -/" : " "
        }
        return names + help + ":\(zshEscape(option.valueName)):\(action)'"
    }

    /// Inside a single-quoted `_arguments` spec: quotes, brackets and colons.
    static func zshEscape(_ text: String) -> String {
        var out = ""
        for ch in text {
            switch ch {
            case "'": out += "'\\''"
            case "[", "]", ":", "\\": out += "\\" + String(ch)
            default: out.append(ch)
            }
        }
        return out
    }

    // MARK: fish

    static func fish(_ root: Command) -> String {
        let tool = root.name
        var out = "# fish completion for \(tool); generated from its command table (`\(tool) __generate fish`).\n"
        for (path, command) in commands(root) {
            let condition = fishCondition(path: path, root: root)
            for sub in command.visibleSubcommands {
                out += "complete -c \(tool) -f -n \(shellQuote(condition)) -a \(shellQuote(sub.name)) -d \(shellQuote(firstSentence(sub.abstract)))\n"
            }
            for option in options(of: command, isRoot: path.count == 1) {
                var line = "complete -c \(tool) -n \(shellQuote(condition)) -l \(option.name)"
                if let short = option.short { line += " -s \(short)" }
                if option.kind != .flag {
                    if !option.choices.isEmpty {
                        line += " -x -a \(shellQuote(option.choices.joined(separator: " ")))"
                    } else if option.completion == .none {
                        line += " -x"
                    } else {
                        line += " -r -F"
                    }
                }
                out += line + " -d \(shellQuote(firstSentence(option.help)))\n"
            }
            if command.visibleSubcommands.isEmpty, arguments(of: command).contains(where: { $0.completion != .none }) {
                out += "complete -c \(tool) -n \(shellQuote(condition)) -F\n"
            }
        }
        return out
    }

    /// The fish condition that holds when the command line is at `path`: every word of it seen,
    /// and none of the next level's subcommands.
    static func fishCondition(path: [String], root: Command) -> String {
        var parts: [String] = []
        var command = root
        for name in path.dropFirst() {
            parts.append("__fish_seen_subcommand_from \(name)")
            command = command.subcommand(name) ?? command
        }
        if !command.visibleSubcommands.isEmpty {
            parts.append("not __fish_seen_subcommand_from \(command.visibleSubcommands.map(\.name).joined(separator: " "))")
        }
        return parts.isEmpty ? "true" : parts.joined(separator: "; and ")
    }

    // MARK: Shared

    /// A POSIX-shell single-quoted word (also fish's).
    static func shellQuote(_ text: String) -> String {
        var out = "'"
        for ch in text { if ch == "'" { out += "'\\''" } else { out.append(ch) } }
        return out + "'"
    }

    /// A name usable in a shell function name.
    static func identifier(_ name: String) -> String {
        String(name.map { $0.isLetter || $0.isNumber ? $0 : "_" })
    }

    /// The first sentence of a help text (completion menus show one line).
    static func firstSentence(_ text: String) -> String {
        var out = ""
        var previous: Character = " "
        for ch in text {
            if ch == "\n" { out.append(" "); previous = " "; continue }
            if previous == "." && ch == " " { return out }
            out.append(ch)
            previous = ch
        }
        return out
    }
}
